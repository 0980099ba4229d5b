// Command notes is the fleet's notes MCP server (port 9009): Markdown notes with front matter
// in a folder tree a person can read, edit and back up without the server, found through an
// embedded SQLite FTS5 index that is derived from the files and rebuilt when missing or stale.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the notes server's own flags.
type settings struct {
	notesDir      string
	indexFile     string
	scanInterval  time.Duration
	dailyFolder   string
	dailyTemplate string
	sync          syncSettings
}

// spec describes the notes server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "notes",
		Title:        "Notes",
		Port:         9009,
		Instructions: "The user's notes: Markdown files with front matter in folders. Find notes with search_notes (full text) or list_notes, read them with get_note, write with create_note and update_note (pass the hash from get_note as expected_hash to avoid overwriting someone else's change). Link notes with [[wikilinks]] and tag them with #tags. A note named NAME.conflict-TIMESTAMP.md is the Drive sync's copy of a note changed in two places: offer to merge it into NAME.md and delete it.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.notesDir, "notes-dir", "", "folder the notes live in, created 0700 (default: STATE-DIR/notes)")
			fs.StringVar(&st.indexFile, "index-file", "", "the search index database, rebuilt from the notes when missing or stale (default: STATE-DIR/notes-index.sqlite)")
			fs.DurationVar(&st.scanInterval, "scan-interval", 2*time.Second, "how stale the index may get before a read looks for notes changed outside the server (0: look before every read)")
			fs.StringVar(&st.dailyFolder, "daily-folder", "daily", "folder daily_note keeps one note a day in (YYYY-MM-DD.md)")
			fs.StringVar(&st.dailyTemplate, "daily-template", "templates/daily.md", "note daily_note copies into a new day's note when it exists; {{date}}, {{title}} and {{weekday}} are filled in")
			st.sync.register(fs)
		},
		Setup: func(s *kit.Server) error {
			cfg, err := st.resolve(s.Config().StateDir)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			if err := st.sync.check(); err != nil {
				return &kit.ConfigError{Err: err}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			n, err := openStore(ctx, cfg, s.Logger())
			if err != nil {
				return err
			}
			s.OnClose(n.close)
			s.AddHealthCheck("index", n.health)
			addReadTools(s, n)
			addWriteTools(s, n)
			addOrganizeTools(s, n)
			if st.sync.mode == "drive" {
				return startSync(s, n, &st.sync)
			}
			return nil
		},
		Commands: map[string]kit.Command{"auth": oauth.Google.Command("notes", nil)},
	}
}

// storeConfig is the validated configuration.
type storeConfig struct {
	notesDir, indexFile string
	scanInterval        time.Duration
	dailyFolder         string
	dailyTemplate       string
}

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
	if err := os.MkdirAll(filepath.Dir(c.indexFile), 0o700); err != nil {
		return c, fmt.Errorf("--index-file: %w", err)
	}
	return c, nil
}

func hiddenFirst(rel string) bool {
	return len(rel) > 0 && rel[0] == '.'
}

// health reports the index's state on /healthz.
func (n *store) health(ctx context.Context) health.Result {
	count, err := n.ix.Count(ctx)
	if err != nil {
		return health.Result{Status: health.Fail, Detail: "index unreadable: " + err.Error()}
	}
	if err := n.lastScanError(); err != nil {
		return health.Result{Status: health.Warn, Detail: fmt.Sprintf("%d notes; last scan failed: %v", count, err)}
	}
	return health.Result{Status: health.OK, Detail: fmt.Sprintf("%d notes", count)}
}

var errNoNote = errors.New("no such note")
