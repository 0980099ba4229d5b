package drivesync

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	stamp := time.Date(2026, 11, 22, 15, 30, 0, 0, time.UTC)
	entry := func(path, md5 string) Entry { return Entry{Path: path, MD5: md5} }
	tests := []struct {
		name   string
		state  map[string]Entry
		local  []LocalFile
		remote []RemoteFile
		want   []string // "op id path [from|copy] expect"
	}{
		{"in sync", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			nil},
		{"new here", nil, []LocalFile{{Path: "a.md", MD5: "x"}}, nil,
			[]string{"upload  a.md  x"}},
		{"new on Drive", nil, nil, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			[]string{"download i1 a.md  "}},
		{"same note on both sides, first sync", nil, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			[]string{"link i1 a.md  x"}},
		{"different notes at one path, first sync", nil, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "y"}},
			[]string{"conflict i1 a.md a.conflict-20261122-153000.md x"}},
		{"edited here", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x2"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			[]string{"upload i1 a.md  x2"}},
		{"edited on Drive", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "y"}},
			[]string{"download i1 a.md  x"}},
		{"edited on both sides alike", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "z"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "z"}},
			[]string{"link i1 a.md  z"}},
		{"edited on both sides", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x2"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "y"}},
			[]string{"conflict i1 a.md a.conflict-20261122-153000.md x2"}},
		{"conflict copy name taken", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x2"}, {Path: "a.conflict-20261122-153000.md", MD5: "q"}},
			[]RemoteFile{{ID: "i1", Path: "a.md", MD5: "y"}},
			[]string{"conflict i1 a.md a.conflict-20261122-153000-2.md x2", "upload  a.conflict-20261122-153000.md  q"}},
		{"deleted on Drive", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, nil,
			[]string{"trash-local i1 a.md  x"}},
		{"deleted on Drive, edited here", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x2"}}, nil,
			[]string{"forget i1 a.md  ", "upload  a.md  x2"}},
		{"deleted here", map[string]Entry{"i1": entry("a.md", "x")}, nil, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			[]string{"trash-remote i1 a.md  "}},
		{"deleted here, edited on Drive", map[string]Entry{"i1": entry("a.md", "x")}, nil, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "y"}},
			[]string{"download i1 a.md  "}},
		{"deleted on both sides", map[string]Entry{"i1": entry("a.md", "x")}, nil, nil,
			[]string{"forget i1 a.md  "}},
		{"moved here", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "b/a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}},
			[]string{"move-remote i1 b/a.md  x"}},
		{"renamed on Drive", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "b.md", MD5: "x"}},
			[]string{"move-local i1 b.md a.md x"}},
		{"renamed and edited on Drive", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "b.md", MD5: "y"}},
			[]string{"move-local i1 b.md a.md x", "download i1 b.md  x"}},
		{"renamed on Drive to a name taken here", map[string]Entry{"i1": entry("a.md", "x"), "i2": entry("b.md", "q")},
			[]LocalFile{{Path: "a.md", MD5: "x"}, {Path: "b.md", MD5: "q"}}, []RemoteFile{{ID: "i1", Path: "b.md", MD5: "x"}, {ID: "i2", Path: "b.md", MD5: "q"}},
			[]string{"move-remote i1 a.md  "}},
		{"renamed on Drive to no note path", map[string]Entry{"i1": entry("a.md", "x")}, []LocalFile{{Path: "a.md", MD5: "x"}}, []RemoteFile{{ID: "i1", Path: "", MD5: "y"}},
			[]string{"download i1 a.md  x"}},
		{"two Drive files with one name", nil, nil, []RemoteFile{{ID: "i1", Path: "a.md", MD5: "x"}, {ID: "i2", Path: "a.md", MD5: "y"}},
			[]string{"download i1 a.md  ", "download i2 a.conflict-20261122-153000.md a.conflict-20261122-153000.md "}},
		{"Drive file with no note path, untracked", nil, nil, []RemoteFile{{ID: "i1", Path: "", MD5: "x"}},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &State{Files: map[string]Entry{}}
			for id, e := range tt.state {
				st.Files[id] = e
			}
			local := map[string]LocalFile{}
			for _, l := range tt.local {
				local[l.Path] = l
			}
			remote := map[string]RemoteFile{}
			for _, r := range tt.remote {
				remote[r.ID] = r
			}
			var got []string
			for _, a := range Plan(st, local, remote, stamp) {
				got = append(got, fmt.Sprintf("%s %s %s %s %s", a.Op, a.ID, a.Path, a.From+a.Copy, a.Expect))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("plan =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
