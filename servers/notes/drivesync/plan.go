package drivesync

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LocalFile is one note file in the notes folder.
type LocalFile struct {
	Path  string
	MD5   string
	MTime int64
	Size  int64
}

// RemoteFile is one synced file in the Drive folder.
type RemoteFile struct {
	ID   string
	Path string // the note path its folders and name give; "" when that is no valid note path
	MD5  string
	Size int64
}

// Op is what an action does.
type Op int

// The actions a sync cycle takes.
const (
	OpUpload      Op = iota // send the local note to Drive (a new file when ID is "")
	OpDownload              // write the Drive file's content to the local note
	OpConflict              // both sides changed: the Drive version goes to a conflict copy, the local one to Drive
	OpLink                  // both sides already agree: remember it
	OpMoveLocal             // Drive renamed or moved the file: move the local note
	OpMoveRemote            // rename or move the Drive file to the note's path
	OpTrashLocal            // deleted on Drive: move the local note to the trash
	OpTrashRemote           // deleted here: move the Drive file to Drive's trash
	OpForget                // gone on both sides
)

var opNames = [...]string{"upload", "download", "conflict", "link", "move-local", "move-remote", "trash-local", "trash-remote", "forget"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op" + strconv.Itoa(int(o))
}

// Action is one step of a sync cycle.
type Action struct {
	Op     Op
	ID     string // the Drive file
	Path   string // the note's path once done (OpConflict: the path that keeps the local version)
	From   string // OpMoveLocal: where the note is now
	Copy   string // OpConflict, and OpDownload of a duplicate name: the path the Drive version goes to
	Expect string // the MD5 the local file at Path (From for a move) must still have; "" for none
	MD5    string // the Drive content's MD5 (OpDownload, OpConflict)
}

// Plan reconciles the two sides against what the last sync agreed on. Edits beat deletes,
// a path already taken never gets overwritten, and when both sides changed a note differently
// the local version keeps the path while the Drive version becomes a conflict copy beside it.
// stamp names conflict copies.
func Plan(st *State, local map[string]LocalFile, remote map[string]RemoteFile, stamp time.Time) []Action {
	p := planner{local: local, remote: remote, stamp: stamp, taken: map[string]bool{}, usedLocal: map[string]bool{}, usedRemote: map[string]bool{}}
	for rel := range local {
		p.taken[rel] = true
	}
	for _, e := range st.Files {
		p.taken[e.Path] = true
	}
	tracked := make(map[string]bool, len(st.Files))
	for id, e := range st.Files {
		tracked[e.Path] = true
		p.usedRemote[id] = true
	}
	// Untracked local files by content, to recognize a note moved here.
	p.moved = map[string][]string{}
	for _, rel := range sortedKeys(local) {
		if !tracked[rel] {
			p.moved[local[rel].MD5] = append(p.moved[local[rel].MD5], rel)
		}
	}
	ids := sortedKeys(st.Files)
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(st.Files[a].Path, st.Files[b].Path) })
	for _, id := range ids {
		p.entry(id, st.Files[id])
	}
	// Drive files this machine has not synced yet.
	for _, id := range sortedByPath(remote) {
		if p.usedRemote[id] {
			continue
		}
		r := remote[id]
		if r.Path == "" {
			continue
		}
		l, ok := local[r.Path]
		switch {
		case ok && !tracked[r.Path] && !p.usedLocal[r.Path]:
			p.usedLocal[r.Path] = true
			if l.MD5 == r.MD5 {
				p.add(Action{Op: OpLink, ID: id, Path: r.Path, Expect: l.MD5, MD5: r.MD5})
			} else {
				p.add(Action{Op: OpConflict, ID: id, Path: r.Path, Copy: p.conflictPath(r.Path), Expect: l.MD5, MD5: r.MD5})
			}
		case p.taken[r.Path]:
			// Two Drive files with one name, or a name a local note already has.
			to := p.conflictPath(r.Path)
			p.add(Action{Op: OpDownload, ID: id, Path: to, Copy: to, MD5: r.MD5})
		default:
			p.taken[r.Path] = true
			p.add(Action{Op: OpDownload, ID: id, Path: r.Path, MD5: r.MD5})
		}
	}
	// Local notes Drive has not got yet.
	for _, rel := range sortedKeys(local) {
		if !tracked[rel] && !p.usedLocal[rel] {
			p.add(Action{Op: OpUpload, Path: rel, Expect: local[rel].MD5})
		}
	}
	return p.out
}

type planner struct {
	local      map[string]LocalFile
	remote     map[string]RemoteFile
	stamp      time.Time
	taken      map[string]bool     // local paths in use or planned
	usedLocal  map[string]bool     // untracked local files an action already covers
	usedRemote map[string]bool     // Drive files an action already covers
	moved      map[string][]string // untracked local paths by MD5
	out        []Action
}

func (p *planner) add(a Action) { p.out = append(p.out, a) }

// entry plans one note the last sync agreed on.
func (p *planner) entry(id string, e Entry) {
	r, rok := p.remote[id]
	l, lok := p.local[e.Path]
	if rok && r.Path == "" {
		r.Path = e.Path // renamed on Drive to something that is no note path: keep ours
	}
	remoteChanged := rok && r.MD5 != e.MD5
	switch {
	case !rok && !lok:
		p.add(Action{Op: OpForget, ID: id, Path: e.Path})
	case !rok && l.MD5 == e.MD5:
		p.add(Action{Op: OpTrashLocal, ID: id, Path: e.Path, Expect: l.MD5})
	case !rok:
		// Deleted on Drive, edited here: the edit wins as a new Drive file.
		p.add(Action{Op: OpForget, ID: id, Path: e.Path})
		p.add(Action{Op: OpUpload, Path: e.Path, Expect: l.MD5})
	case !lok && !remoteChanged:
		if to := p.movedHere(e.MD5); to != "" {
			p.add(Action{Op: OpMoveRemote, ID: id, Path: to, Expect: e.MD5})
			return
		}
		p.add(Action{Op: OpTrashRemote, ID: id, Path: e.Path})
	case !lok:
		// Deleted here, edited on Drive: the edit wins.
		to := r.Path
		if to != e.Path && p.taken[to] {
			to = e.Path
		}
		p.taken[to] = true
		p.add(Action{Op: OpDownload, ID: id, Path: to, MD5: r.MD5})
		if to != r.Path {
			p.add(Action{Op: OpMoveRemote, ID: id, Path: to})
		}
	default:
		at := e.Path
		if r.Path != e.Path {
			if p.taken[r.Path] {
				p.add(Action{Op: OpMoveRemote, ID: id, Path: e.Path}) // the name is taken here: undo the rename
			} else {
				p.taken[r.Path] = true
				p.add(Action{Op: OpMoveLocal, ID: id, From: e.Path, Path: r.Path, Expect: l.MD5})
				at = r.Path
			}
		}
		localChanged := l.MD5 != e.MD5
		switch {
		case localChanged && remoteChanged && l.MD5 == r.MD5:
			p.add(Action{Op: OpLink, ID: id, Path: at, Expect: l.MD5, MD5: r.MD5})
		case localChanged && remoteChanged:
			p.add(Action{Op: OpConflict, ID: id, Path: at, Copy: p.conflictPath(at), Expect: l.MD5, MD5: r.MD5})
		case localChanged:
			p.add(Action{Op: OpUpload, ID: id, Path: at, Expect: l.MD5})
		case remoteChanged:
			p.add(Action{Op: OpDownload, ID: id, Path: at, Expect: l.MD5, MD5: r.MD5})
		}
	}
}

// movedHere finds an untracked local note with the content md5: the note, moved.
func (p *planner) movedHere(md5 string) string {
	for _, rel := range p.moved[md5] {
		if !p.usedLocal[rel] {
			p.usedLocal[rel] = true
			return rel
		}
	}
	return ""
}

// conflictPath is a free path beside rel for the other side's version:
// ideas/garden.conflict-20261122-153000.md.
func (p *planner) conflictPath(rel string) string {
	base := strings.TrimSuffix(rel, path.Ext(rel)) + ".conflict-" + p.stamp.UTC().Format("20060102-150405")
	to := base + ".md"
	for i := 2; p.taken[to]; i++ {
		to = base + "-" + strconv.Itoa(i) + ".md"
	}
	p.taken[to] = true
	return to
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedByPath(m map[string]RemoteFile) []string {
	ids := sortedKeys(m)
	slices.SortStableFunc(ids, func(a, b string) int { return strings.Compare(m[a].Path, m[b].Path) })
	return ids
}
