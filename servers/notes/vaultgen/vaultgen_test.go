package vaultgen

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// digest hashes every file's path and content under dir.
func digest(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		h.Write([]byte(p[len(dir):] + "\x00"))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

func TestGenerateIsDeterministicAndRealistic(t *testing.T) {
	t.Parallel()
	opt := Options{Notes: 800, Seed: 7}
	a, b := t.TempDir(), t.TempDir()
	st, err := Generate(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, opt); err != nil {
		t.Fatal(err)
	}
	if digest(t, a) != digest(t, b) {
		t.Fatal("the same seed wrote two different vaults")
	}
	c := t.TempDir()
	if _, err := Generate(c, Options{Notes: 800, Seed: 8}); err != nil {
		t.Fatal(err)
	}
	if digest(t, a) == digest(t, c) {
		t.Fatal("another seed wrote the same vault")
	}
	if st.Notes != 800 || st.Folders < 20 || st.Long == 0 {
		t.Errorf("stats = %+v", st)
	}
	if avg := st.Words / int64(st.Notes); avg < 200 || avg > 1500 {
		t.Errorf("%d words a note on average", avg)
	}
	paths := Paths(opt)
	var links, fm, fields, relations, daily int
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(a, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("planned note %s: %v", p, err)
		}
		s := string(data)
		if strings.Contains(s, "[[") {
			links++
		}
		if strings.HasPrefix(s, "---\n") {
			fm++
		}
		if strings.Contains(s, "\nstatus: ") || strings.Contains(s, "\nrating: ") || strings.Contains(s, "\naliases: ") {
			fields++
		}
		for _, rt := range relationTypes {
			if strings.Contains(s, "- "+rt+" [[") {
				relations++
				break
			}
		}
		if strings.HasPrefix(p, "daily/") {
			daily++
		}
	}
	n := len(paths)
	for name, c := range map[string][2]int{"links": {links, n / 2}, "front matter": {fm, n * 8 / 10}, "fields": {fields, n / 10}, "relations": {relations, n / 20}, "daily": {daily, n / 5}} {
		if c[0] < c[1] {
			t.Errorf("%d of %d notes have %s, want at least %d", c[0], n, name, c[1])
		}
	}
}

func TestQueries(t *testing.T) {
	t.Parallel()
	opt := Options{Notes: 1000, Seed: 3}
	qs := Queries(opt, 300)
	if len(qs) != 300 {
		t.Fatalf("%d queries", len(qs))
	}
	kinds := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
		if strings.TrimSpace(q.Text) == "" {
			t.Errorf("empty query %+v", q)
		}
	}
	for _, k := range []string{"word", "common", "two-words", "name", "phrase", "prefix", "typo"} {
		if kinds[k] == 0 {
			t.Errorf("no %s query in %v", k, kinds)
		}
	}
	again := Queries(opt, 300)
	for i := range qs {
		if qs[i] != again[i] {
			t.Fatalf("query %d: %+v then %+v", i, qs[i], again[i])
		}
	}
}
