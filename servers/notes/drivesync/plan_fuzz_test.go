package drivesync

import (
	"testing"
	"time"
)

// FuzzPlan checks what must hold for any two sides and any state: nothing changed since the
// last sync is overwritten or trashed without its content being safe elsewhere, nothing is
// written over an existing local note, and every change on either side is acted on.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x33})
	f.Add([]byte{0xff, 0x00, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05})
	paths := []string{"a.md", "b.md", "c/d.md", "c/e.md"}
	sums := []string{"x", "y", "z"}
	ids := []string{"i1", "i2", "i3", "i4"}
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		st := &State{Files: map[string]Entry{}}
		usedPath := map[string]bool{}
		for _, id := range ids {
			if b := next(); b%3 == 0 {
				p := paths[b/3%len(paths)]
				if !usedPath[p] {
					usedPath[p] = true
					st.Files[id] = Entry{Path: p, MD5: sums[b/12%len(sums)]}
				}
			}
		}
		local := map[string]LocalFile{}
		for _, p := range paths {
			if b := next(); b%2 == 0 {
				local[p] = LocalFile{Path: p, MD5: sums[b/2%len(sums)]}
			}
		}
		remote := map[string]RemoteFile{}
		for _, id := range ids {
			if b := next(); b%2 == 0 {
				p := ""
				if b%10 != 0 {
					p = paths[b/2%len(paths)]
				}
				remote[id] = RemoteFile{ID: id, Path: p, MD5: sums[b/8%len(sums)]}
			}
		}
		actions := Plan(st, local, remote, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))

		written := map[string]bool{}
		newPath := func(p string) {
			if _, ok := local[p]; ok || written[p] {
				t.Fatalf("%s is written twice or over an existing note: %+v", p, actions)
			}
			written[p] = true
		}
		covered := map[string]bool{}
		touched := map[string]bool{}
		for _, a := range actions {
			e, tracked := st.Files[a.ID]
			touched[a.ID] = true
			switch a.Op {
			case OpDownload:
				if a.Expect == "" {
					newPath(a.Path)
				} else if !tracked || local[e.Path].MD5 != a.Expect || a.Expect != e.MD5 { // e.Path: the note may be moved first
					t.Fatalf("download over a local change: %+v (entry %+v)", a, e)
				}
			case OpConflict:
				newPath(a.Copy)
				covered[a.Path] = true
			case OpMoveLocal:
				newPath(a.Path)
				covered[a.From] = true
			case OpTrashLocal:
				if !tracked || a.Expect != e.MD5 || local[a.Path].MD5 != e.MD5 {
					t.Fatalf("trashing a local change: %+v (entry %+v)", a, e)
				}
				covered[a.Path] = true
			case OpTrashRemote:
				if !tracked || remote[a.ID].MD5 != e.MD5 {
					t.Fatalf("trashing a Drive change: %+v (entry %+v)", a, e)
				}
			case OpUpload:
				if a.ID != "" && (!tracked || remote[a.ID].MD5 != e.MD5) {
					t.Fatalf("upload over a Drive change: %+v (entry %+v)", a, e)
				}
				covered[a.Path] = true
			case OpLink:
				covered[a.Path] = true
			case OpMoveRemote:
				covered[a.Path] = true
			}
		}
		byPath := st.byPath()
		for p, l := range local {
			if id, ok := byPath[p]; (!ok || st.Files[id].MD5 != l.MD5) && !covered[p] {
				t.Fatalf("local change at %s not acted on: %+v", p, actions)
			}
		}
		for id, r := range remote {
			e, tracked := st.Files[id]
			if r.Path != "" && (!tracked || e.MD5 != r.MD5) && !touched[id] {
				t.Fatalf("Drive change %+v not acted on: %+v", r, actions)
			}
		}
	})
}
