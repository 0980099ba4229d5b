package drivesync

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// stateVersion is the layout of the state file; another version starts a fresh first sync.
const stateVersion = 1

// State is what the last sync agreed on, kept in a JSON file between runs: the Drive folder and
// every synced note by its Drive file id.
type State struct {
	Version   int              `json:"version"`
	Folder    string           `json:"folder"`               // the Drive folder's name
	RootID    string           `json:"root_id,omitempty"`    // the Drive folder's id
	PageToken string           `json:"page_token,omitempty"` // Drive changes after the last listing
	LastSync  time.Time        `json:"last_sync,omitzero"`   // the last cycle that finished
	Files     map[string]Entry `json:"files"`                // by Drive file id
}

// Entry is one note as both sides last had it.
type Entry struct {
	Path  string `json:"path"`
	MD5   string `json:"md5"`   // the content both sides had
	MTime int64  `json:"mtime"` // the local file's stamp then: an unchanged stamp means unchanged content
	Size  int64  `json:"size"`
}

// LoadState reads the state file; a missing file, or one made for another folder or layout,
// is an empty state for folder, which makes the next cycle a first sync.
func LoadState(file, folder string) (*State, error) {
	fresh := &State{Version: stateVersion, Folder: folder, Files: map[string]Entry{}}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the sync state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("sync state %s is not valid JSON (%w): move it away to start over with a first sync", file, err)
	}
	if st.Version != stateVersion || st.Folder != folder {
		return fresh, nil
	}
	if st.Files == nil {
		st.Files = map[string]Entry{}
	}
	return &st, nil
}

// Save writes the state atomically (a synced temporary file renamed over it), mode 0600.
func (s *State) Save(file string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("save the sync state: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save the sync state: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save the sync state: %w", err)
	}
	return nil
}

// byPath indexes the entries by note path.
func (s *State) byPath() map[string]string {
	m := make(map[string]string, len(s.Files))
	for id, e := range s.Files {
		m[e.Path] = id
	}
	return m
}
