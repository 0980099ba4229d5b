package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// storeConfig is the validated configuration.
type storeConfig struct {
	notesDir, indexFile string
	scanInterval        time.Duration
	dailyFolder         string
	dailyTemplate       string
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
	rel, err := filepath.Rel(c.notesDir, c.indexFile)
	if err == nil && filepath.IsLocal(rel) && !filepath.IsAbs(rel) && rel != "." && !hiddenFirst(rel) {
		return c, fmt.Errorf("--index-file %s is inside --notes-dir: put it elsewhere or in a hidden folder such as .index/", c.indexFile)
	}
	var err2 error
	if c.dailyFolder, err2 = vault.CleanFolder(st.dailyFolder); err2 != nil {
		return c, fmt.Errorf("--daily-folder: %w", err2)
	}
	if st.dailyTemplate != "" {
		if c.dailyTemplate, err2 = vault.CleanPath(st.dailyTemplate); err2 != nil {
			return c, fmt.Errorf("--daily-template: %w", err2)
		}
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
