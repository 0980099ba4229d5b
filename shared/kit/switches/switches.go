// Package switches holds a server's run-time switches: the server, toolsets or single tools the
// owner turned off from the console, and the fleet's read-only switch, which leaves only the
// tools that change nothing. A server keeps the last state it was given in its state folder
// (File) and applies it again when it starts, so a switched-off tool stays off across restarts
// even while the console is out of reach.
package switches

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Format is the version of the file and wire format this package reads and writes. A state of
// another format is refused: an older server cannot tell what a newer format switched off.
const Format = 1

// File is the state's file name in the server's state folder.
const File = "switches.json"

// maxEntries bounds each list: no server has more tools than this.
const maxEntries = 512

// State is one server's switches as the console sets them and the server keeps them. The zero
// State switches nothing off. Every field only takes tools away from what the server's flags
// offer; a switch can never offer a tool the flags leave out.
type State struct {
	Format   int       `json:"format"`                 // Format
	Version  int64     `json:"version"`                // the console's generation of the fleet's switches; 0 for none yet
	Server   bool      `json:"server_off,omitempty"`   // every tool of the server is off
	ReadOnly bool      `json:"read_only,omitempty"`    // the fleet is read-only: every tool that changes something is off
	Toolsets []string  `json:"toolsets_off,omitempty"` // toolsets turned off, by id
	Tools    []string  `json:"tools_off,omitempty"`    // single tools turned off, by name
	Changed  time.Time `json:"changed,omitzero"`       // when the owner last changed the fleet's switches
	By       string    `json:"by,omitempty"`           // who changed them, as the console names the owner's passkey
}

// toolName says whether n could name a tool: 1 to 128 of A-Z, a-z, 0-9, '_', '.' and '-'.
// (A check, not a regular expression: compiled at start, `{1,128}` cost every server 126 KB.)
func toolName(n string) bool {
	return len(n) >= 1 && len(n) <= 128 && all(n, func(r rune) bool {
		return lower(r) || r >= 'A' && r <= 'Z' || digit(r) || r == '_' || r == '.' || r == '-'
	})
}

// toolsetName says whether n could name a toolset: a-z, then up to 31 of a-z, 0-9 and '_'.
func toolsetName(n string) bool {
	return len(n) >= 1 && len(n) <= 32 && lower(rune(n[0])) && all(n, func(r rune) bool {
		return lower(r) || digit(r) || r == '_'
	})
}

func lower(r rune) bool { return r >= 'a' && r <= 'z' }
func digit(r rune) bool { return r >= '0' && r <= '9' }

// all says whether every rune of s is ok.
func all(s string, ok func(rune) bool) bool {
	for _, r := range s {
		if !ok(r) {
			return false
		}
	}
	return true
}

// Validate refuses a state this package cannot stand behind: another format, a negative
// version, names no tool or toolset could have, lists that repeat or are too long.
func (s State) Validate() error {
	if s.Format != Format {
		return fmt.Errorf("switches format %d: this server reads format %d only (update the server, or the console)", s.Format, Format)
	}
	if s.Version < 0 {
		return fmt.Errorf("switches version %d: give 0 or more", s.Version)
	}
	if len(s.By) > 200 {
		return errors.New("switches: by is longer than 200 characters")
	}
	for _, l := range []struct {
		what  string
		names []string
		valid func(string) bool
	}{{"toolsets_off", s.Toolsets, toolsetName}, {"tools_off", s.Tools, toolName}} {
		if len(l.names) > maxEntries {
			return fmt.Errorf("switches: %s has %d entries, at most %d", l.what, len(l.names), maxEntries)
		}
		seen := map[string]bool{}
		for _, n := range l.names {
			if !l.valid(n) {
				return fmt.Errorf("switches: %s entry %q is not a name", l.what, n)
			}
			if seen[n] {
				return fmt.Errorf("switches: %s names %q twice", l.what, n)
			}
			seen[n] = true
		}
	}
	return nil
}

// Off reports whether the state turns off a tool of toolset that changes something unless
// readOnly, and why: "server", "read-only", "toolset" or "tool", "" when it is on.
func (s State) Off(tool, toolset string, readOnly bool) string {
	switch {
	case s.Server:
		return "server"
	case slices.Contains(s.Tools, tool):
		return "tool"
	case toolset != "" && slices.Contains(s.Toolsets, toolset):
		return "toolset"
	case s.ReadOnly && !readOnly:
		return "read-only"
	}
	return ""
}

// IsZero reports whether the state switches nothing off.
func (s State) IsZero() bool {
	return !s.Server && !s.ReadOnly && len(s.Toolsets) == 0 && len(s.Tools) == 0
}

// Read loads the state kept at path. A missing file is the zero State (nothing switched off)
// with an error that is fs.ErrNotExist; a file that cannot be read or parsed, or that Validate
// refuses, is an error.
func Read(path string) (State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return State{Format: Format}, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, fmt.Errorf("read %s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return State{}, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}

// Write keeps s at path, atomically: a reader sees the old state or the new one, never a
// part, also after a crash (temporary file in the same folder, fsync, rename, fsync of the
// folder). The folder is made 0700 if it is missing; the file is 0600.
func Write(path string, s State) error {
	if err := s.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode switches: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keep switches: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("keep switches: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op after the rename
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("keep switches in %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// Stamp identifies one version of the file on disk, so a watcher rereads it only when it
// changed: its modification time, size and inode.
type Stamp struct {
	mod  time.Time
	size int64
	ino  uint64
}

// StampOf returns the file's stamp; the zero Stamp when it does not exist.
func StampOf(path string) Stamp {
	info, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	return Stamp{mod: info.ModTime(), size: info.Size(), ino: inode(info)}
}
