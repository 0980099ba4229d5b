package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// storeConfig is the validated configuration.
type storeConfig struct {
	notesDir, indexFile string
	scanInterval        time.Duration
	// periods holds the daily, weekly and monthly notes' folders and templates by period.
	periods map[string]periodConfig
}

// periodConfig is where one kind of periodic note lives and the note a new one starts from.
type periodConfig struct {
	folder, template string
}

// resolve checks the flags and fills in the defaults under stateDir; it creates the index's folder.
func (st *settings) resolve(stateDir string) (storeConfig, error) {
	c := storeConfig{notesDir: st.notesDir, indexFile: st.indexFile, scanInterval: st.scanInterval}
	if c.notesDir == "" {
		c.notesDir = filepath.Join(stateDir, "notes")
	}
	if c.indexFile == "" {
		c.indexFile = filepath.Join(stateDir, "notes-index.sqlite")
	}
	switch {
	case !filepath.IsAbs(c.notesDir):
		return c, fmt.Errorf("--notes-dir %q: give an absolute path", c.notesDir)
	case !filepath.IsAbs(c.indexFile):
		return c, fmt.Errorf("--index-file %q: give an absolute path", c.indexFile)
	case st.scanInterval < 0 || st.scanInterval > time.Hour:
		return c, fmt.Errorf("--scan-interval %s: give 0 to 1h", st.scanInterval)
	}
	// A mistyped --notes-dir would otherwise become a new, empty vault without a word.
	if st.notesDir != "" && !st.createNotes {
		switch fi, err := os.Stat(c.notesDir); {
		case errors.Is(err, fs.ErrNotExist):
			return c, fmt.Errorf("--notes-dir %s does not exist: check the path, or give --create-notes-dir to start a new, empty vault there", c.notesDir)
		case err != nil:
			return c, fmt.Errorf("--notes-dir: %w", err)
		case !fi.IsDir():
			return c, fmt.Errorf("--notes-dir %s is not a folder", c.notesDir)
		}
	}
	rel, err := filepath.Rel(c.notesDir, c.indexFile)
	if err == nil && filepath.IsLocal(rel) && !filepath.IsAbs(rel) && rel != "." && !hiddenFirst(rel) {
		return c, fmt.Errorf("--index-file %s is inside --notes-dir: put it elsewhere or in a hidden folder such as .index/", c.indexFile)
	}
	c.periods = map[string]periodConfig{}
	for _, p := range []struct{ name, folder, template string }{
		{"day", st.dailyFolder, st.dailyTemplate},
		{"week", st.weeklyFolder, st.weeklyTemplate},
		{"month", st.monthlyFolder, st.monthlyTemplate},
	} {
		flagName := map[string]string{"day": "daily", "week": "weekly", "month": "monthly"}[p.name]
		var pc periodConfig
		var err error
		if pc.folder, err = vault.CleanFolder(p.folder); err != nil {
			return c, fmt.Errorf("--%s-folder: %w", flagName, err)
		}
		if p.template != "" {
			if pc.template, err = vault.CleanPath(p.template); err != nil {
				return c, fmt.Errorf("--%s-template: %w", flagName, err)
			}
		}
		c.periods[p.name] = pc
	}
	if err := st.sync.check(); err != nil {
		return c, err
	}
	if err := os.MkdirAll(filepath.Dir(c.indexFile), 0o700); err != nil {
		return c, fmt.Errorf("--index-file: %w", err)
	}
	return c, nil
}

// hiddenFirst reports whether rel starts with a hidden file or folder name.
func hiddenFirst(rel string) bool {
	return len(rel) > 0 && rel[0] == '.'
}
