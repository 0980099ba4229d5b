// Package vaultgen writes a realistic notes vault for benchmarks and tests, the same one for the
// same seed: daily notes, meetings, projects, people and reference notes in folders, 80–600 words
// each with some long ones, front matter (title, tags, dates, other fields), wikilinks, typed
// relations, inline tags, lists, tasks and code.
package vaultgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options say which vault to write.
type Options struct {
	Notes int    // how many notes
	Seed  uint64 // the same seed (and count) writes the same vault
}

// Stats describe a vault written.
type Stats struct {
	Notes   int   // notes written
	Folders int   // folders holding them
	Bytes   int64 // their total size
	Words   int64 // words in their bodies
	Long    int   // notes of more than 1,000 words
}

// base is the vault's "now": every date lies in the ten years before it.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// note is one planned note: where it goes and what it is called, known for every note before
// any is written so that links point at notes that exist.
type note struct {
	path, title string
	kind        string
	created     time.Time
	updated     time.Time
}

// gen holds one vault's plan and the random streams that write it.
type gen struct {
	r      *rand.Rand
	vocab  []string // English words first, then names: drawn by zipf
	zipf   *rand.Zipf
	names  []string // names of people, places and projects, capitalized
	people []string // the people notes' titles
	notes  []note
}

// newGen builds the vocabulary and plans every note from opt.
func newGen(opt Options) *gen {
	r := rand.New(rand.NewPCG(opt.Seed, 0x6e6f746573)) // "notes"
	g := &gen{r: r}
	seen := map[string]bool{}
	for _, w := range english {
		seen[w] = true
	}
	for len(g.names) < max(2000, opt.Notes/4) {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			g.names = append(g.names, w)
		}
	}
	g.vocab = append(append([]string{}, english...), g.names...)
	g.zipf = rand.NewZipf(r, 1.07, 3, uint64(len(g.vocab)-1))
	g.plan(opt.Notes)
	return g
}

// plan decides every note's kind, folder, title and dates.
func (g *gen) plan(count int) {
	r := g.r
	used := map[string]bool{}
	projects := make([]string, max(5, count/600))
	for i := range projects {
		projects[i] = g.title(2)
	}
	topics := make([]string, 40)
	for i := range topics {
		topics[i] = english[200+r.IntN(len(english)-200)]
	}
	dailies := min(count/4, 3650)
	for i := range count {
		var n note
		var dir string
		n.created = base.Add(-time.Duration(r.Int64N(int64(10 * 365 * 24 * time.Hour))))
		switch k := r.IntN(100); {
		case i < dailies:
			n.kind = "daily"
			n.created = base.AddDate(0, 0, -1-i)
			n.title, dir = n.created.Format("2006-01-02"), fmt.Sprintf("daily/%d", n.created.Year())
		case k < 20:
			n.kind = "meeting"
			n.title = n.created.Format("2006-01-02") + " " + g.title(2+r.IntN(3))
			dir = fmt.Sprintf("meetings/%d", n.created.Year())
		case k < 50:
			n.kind = "project"
			n.title, dir = g.title(2+r.IntN(4)), "projects/"+projects[r.IntN(len(projects))]
		case k < 58:
			n.kind = "person"
			n.title, dir = capital(g.names[r.IntN(len(g.names))])+" "+capital(g.names[r.IntN(len(g.names))]), "people"
		case k < 85:
			n.kind = "reference"
			n.title, dir = g.title(2+r.IntN(5)), "resources/"+topics[r.IntN(len(topics))]
		case k < 93:
			n.kind = "inbox"
			n.title, dir = g.title(3+r.IntN(4)), "inbox"
		default:
			n.kind = "archive"
			n.title, dir = g.title(2+r.IntN(4)), fmt.Sprintf("archive/%d", n.created.Year())
		}
		title := n.title
		n.path = dir + "/" + title + ".md"
		for j := 2; used[strings.ToLower(n.path)]; j++ {
			n.title = fmt.Sprintf("%s %d", title, j)
			n.path = dir + "/" + n.title + ".md"
		}
		used[strings.ToLower(n.path)] = true
		n.updated = n.created.Add(time.Duration(r.ExpFloat64() * float64(30*24*time.Hour)))
		if n.updated.After(base) {
			n.updated = base
		}
		if n.kind == "person" {
			g.people = append(g.people, n.title)
		}
		g.notes = append(g.notes, n)
	}
}

// title is words words, the first capitalized, drawn as often as they occur but leaving out
// the hundred most common (the, of, and …).
func (g *gen) title(words int) string {
	parts := make([]string, words)
	for i := range parts {
		parts[i] = g.vocab[min(len(g.vocab)-1, 100+int(g.zipf.Uint64()))]
	}
	parts[0] = capital(parts[0])
	return strings.Join(parts, " ")
}

func capital(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// Generate writes the vault into dir (created when missing), each file's modification time its
// note's updated time. The notes are made in order, from one random stream; the files are
// written by a few goroutines at once.
func Generate(dir string, opt Options) (Stats, error) {
	if opt.Notes < 1 {
		return Stats{}, fmt.Errorf("vaultgen: %d notes: give at least 1", opt.Notes)
	}
	g := newGen(opt)
	var st Stats
	folders := map[string]bool{}
	jobs := make(chan file, 64)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for f := range jobs {
				if err := f.write(); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	fail := func(err error) (Stats, error) {
		close(jobs)
		wg.Wait()
		return st, err
	}
	for i := range g.notes {
		n := &g.notes[i]
		var buf strings.Builder
		words := g.write(&buf, n, i)
		p := filepath.Join(dir, filepath.FromSlash(n.path))
		if d := filepath.Dir(p); !folders[d] {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return fail(err)
			}
			folders[d] = true
		}
		select {
		case err := <-errs:
			return fail(err)
		case jobs <- file{p, buf.String(), n.updated}:
		}
		st.Notes++
		st.Bytes += int64(buf.Len())
		st.Words += int64(words)
		if words > 1000 {
			st.Long++
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return st, err
	default:
	}
	st.Folders = len(folders)
	return st, nil
}

// file is one note file to write.
type file struct {
	path, content string
	mtime         time.Time
}

func (f file) write() error {
	if err := os.WriteFile(f.path, []byte(f.content), 0o600); err != nil {
		return err
	}
	return os.Chtimes(f.path, f.mtime, f.mtime)
}

// bodyWords is how many words a note's body has: most 80–600 (log-normal around 220), one in
// twenty 1,200–10,000, and one in ten thousand 60,000.
func (g *gen) bodyWords(i, count int) int {
	r := g.r
	switch {
	case count >= 2000 && i%10_000 == 7:
		return 60_000
	case r.IntN(20) == 0:
		return 1200 + r.IntN(8800)
	}
	w := int(math.Exp(math.Log(220) + 0.55*r.NormFloat64()))
	return min(600, max(80, w))
}

// write renders note i into b and returns its body's word count.
func (g *gen) write(b *strings.Builder, n *note, i int) int {
	r := g.r
	var tags []string
	if r.IntN(10) < 7 {
		for range 1 + r.IntN(4) {
			tags = append(tags, tagWords[int(r.ExpFloat64()*12)%len(tagWords)])
		}
	}
	if r.IntN(10) < 9 { // one in ten notes has no front matter at all
		b.WriteString("---\n")
		if n.kind != "daily" || r.IntN(2) == 0 {
			fmt.Fprintf(b, "title: %s\n", n.title)
		}
		if len(tags) > 0 {
			fmt.Fprintf(b, "tags: [%s]\n", strings.Join(tags, ", "))
		}
		fmt.Fprintf(b, "created: %s\nupdated: %s\n", n.created.Format(time.RFC3339), n.updated.Format(time.RFC3339))
		g.fields(b, n)
		b.WriteString("---\n\n")
	}
	fmt.Fprintf(b, "# %s\n\n", n.title)
	total := g.bodyWords(i, len(g.notes))
	words := 0
	for words < total {
		switch k := r.IntN(20); {
		case k == 0 && words > 0:
			fmt.Fprintf(b, "## %s\n\n", g.title(1+r.IntN(3)))
		case k == 1:
			for range 2 + r.IntN(4) {
				mark := "- "
				if r.IntN(3) == 0 {
					mark = []string{"- [ ] ", "- [x] "}[r.IntN(2)]
				}
				b.WriteString(mark)
				words += g.sentence(b, 3+r.IntN(8), false)
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		case k == 2 && (n.kind == "person" || n.kind == "project" || n.kind == "meeting"):
			rel := relationTypes[r.IntN(len(relationTypes))]
			fmt.Fprintf(b, "- %s [[%s]]\n", rel, g.target(i))
			if len(g.people) > 0 {
				fmt.Fprintf(b, "- %s [[%s]]\n", relationTypes[r.IntN(len(relationTypes))], g.people[r.IntN(len(g.people))])
			}
			b.WriteByte('\n')
			words += 4
		case k == 3 && r.IntN(6) == 0:
			b.WriteString("```sh\n")
			fmt.Fprintf(b, "curl -s https://%s.example.com/api/v%d/%s?limit=%d\n", g.names[r.IntN(len(g.names))], 1+r.IntN(3), g.vocab[g.zipf.Uint64()], 10*r.IntN(10))
			b.WriteString("```\n\n")
			words += 4
		default:
			for range 2 + r.IntN(4) {
				words += g.sentence(b, 6+r.IntN(15), true)
				b.WriteByte(' ')
			}
			if r.IntN(3) == 0 {
				fmt.Fprintf(b, "See [[%s]].", g.target(i))
				words += 2
			}
			b.WriteString("\n\n")
		}
	}
	return words
}

// fields writes the front matter fields other than the server's own: status, priority, due
// dates, ratings, authors and aliases, as people put them.
func (g *gen) fields(b *strings.Builder, n *note) {
	r := g.r
	if r.IntN(10) >= 4 {
		return
	}
	switch n.kind {
	case "project", "inbox":
		fmt.Fprintf(b, "status: %s\npriority: %d\n", []string{"open", "doing", "done", "waiting"}[r.IntN(4)], 1+r.IntN(5))
		if r.IntN(2) == 0 {
			fmt.Fprintf(b, "due: %s\n", n.created.AddDate(0, 0, r.IntN(90)).Format("2006-01-02"))
		}
	case "reference", "archive":
		fmt.Fprintf(b, "source: https://%s.example.org/%s\nrating: %d\n", g.names[r.IntN(len(g.names))], g.vocab[g.zipf.Uint64()], 1+r.IntN(5))
		if r.IntN(3) == 0 {
			fmt.Fprintf(b, "author: %s %s\n", capital(g.names[r.IntN(len(g.names))]), capital(g.names[r.IntN(len(g.names))]))
		}
	case "person":
		fmt.Fprintf(b, "aliases: [%s]\nbirthday: %d-%02d-%02d\n", strings.Fields(n.title)[0], 1950+r.IntN(50), 1+r.IntN(12), 1+r.IntN(28))
	case "meeting":
		fmt.Fprintf(b, "attendees: [%s, %s]\n", g.personOrName(), g.personOrName())
	default:
		fmt.Fprintf(b, "mood: %s\n", []string{"good", "calm", "tired", "busy", "great"}[r.IntN(5)])
	}
}

func (g *gen) personOrName() string {
	if len(g.people) > 0 && g.r.IntN(2) == 0 {
		return g.people[g.r.IntN(len(g.people))]
	}
	return capital(g.names[g.r.IntN(len(g.names))])
}

// target is a wikilink target for a link from note i: another note by title, by file name or
// by path with an alias, sometimes a note that does not exist.
func (g *gen) target(i int) string {
	r := g.r
	if r.IntN(25) == 0 {
		return g.title(2) // a link to a note not written yet
	}
	t := &g.notes[r.IntN(len(g.notes))]
	if r.IntN(3) == 0 && i > 0 { // people link to what they wrote recently
		t = &g.notes[max(0, i-1-r.IntN(min(i, 50)))]
	}
	switch r.IntN(6) {
	case 0:
		return strings.TrimSuffix(t.path, ".md") + "|" + strings.ToLower(t.title)
	case 1:
		return t.title + "#" + g.vocab[g.zipf.Uint64()]
	}
	return t.title
}

// rare is a word seldom seen twice: a made-up name, a code or a long number, as notes hold
// (part numbers, references, typos), so the vocabulary grows with the vault as a real one does.
func (g *gen) rare() string {
	r := g.r
	switch r.IntN(3) {
	case 0:
		return fmt.Sprint(r.IntN(1_000_000))
	case 1:
		return fmt.Sprintf("%s%d", syllables[r.IntN(len(syllables))], r.IntN(10_000))
	}
	var b strings.Builder
	for range 3 + r.IntN(3) {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	return b.String()
}

// sentence writes n words (a capital, names, numbers, an inline tag now and then) and returns n.
func (g *gen) sentence(b *strings.Builder, n int, stop bool) int {
	r := g.r
	for j := range n {
		if j > 0 {
			b.WriteByte(' ')
		}
		w := g.vocab[g.zipf.Uint64()]
		switch k := r.IntN(200); {
		case k < 8:
			w = capital(g.names[r.IntN(len(g.names))])
		case k < 12:
			w = fmt.Sprint(r.IntN(2000))
		case k < 14:
			w = "#" + tagWords[r.IntN(len(tagWords))]
		case k == 14:
			w = g.rare()
		}
		if j == 0 {
			w = capital(w)
		}
		b.WriteString(w)
	}
	if stop {
		b.WriteByte('.')
	}
	return n
}
