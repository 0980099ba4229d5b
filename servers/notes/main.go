// Command notes is the fleet's notes MCP server (port 9009): Markdown notes with front matter
// in a folder tree a person can read, edit and back up without the server, found through an
// embedded SQLite FTS5 index that is derived from the files and rebuilt when missing or stale.
package main

import (
	"flag"
	"os"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the notes server's own flags.
type settings struct {
	notesDir      string
	createNotes   bool // --create-notes-dir: a --notes-dir that does not exist is made, not refused
	indexFile     string
	scanInterval  time.Duration
	dailyFolder   string
	dailyTemplate string
	// weekly and monthly notes, the daily note's siblings
	weeklyFolder, weeklyTemplate   string
	monthlyFolder, monthlyTemplate string
	sync                           syncSettings
	// retryMax, when set, replaces the upkeep's longest wait between attempts to write an index
	// that could not be written (tests shorten it; no flag sets it).
	retryMax time.Duration
}

// spec describes the notes server.
func spec() kit.Spec { return specWith(&settings{}) }

// specWith describes the notes server with st to hold its settings.
func specWith(st *settings) kit.Spec {
	return kit.Spec{
		Name:         "notes",
		Title:        "Notes",
		Port:         9009,
		Instructions: "The user's notes: Markdown files with front matter in folders. Link notes with [[wikilinks]] or typed relations ('- works_at [[Acme]]') and tag them with #tags.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "expected_hash", Meaning: "the hash from get_note; the change is refused if the note changed since"},
			{Name: "folder", Meaning: "only notes in this folder and below"},
			{Name: "path", Meaning: "a note's path in the notes folder, e.g. 'projects/garden' ('.md' optional)"},
		},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.notesDir, "notes-dir", "", "folder the notes live in; must exist unless --create-notes-dir is given (default: STATE-DIR/notes, created 0700)")
			fs.BoolVar(&st.createNotes, "create-notes-dir", false, "create --notes-dir (0700) when it does not exist, to start a new, empty vault there")
			fs.StringVar(&st.indexFile, "index-file", "", "the search index database, rebuilt from the notes when missing or stale (default: STATE-DIR/notes-index.sqlite)")
			fs.DurationVar(&st.scanInterval, "scan-interval", 2*time.Second, "how stale the index may get before a read looks for notes changed outside the server (0: look before every read)")
			fs.StringVar(&st.dailyFolder, "daily-folder", "daily", "folder daily_note keeps one note a day in (YYYY-MM-DD.md)")
			fs.StringVar(&st.dailyTemplate, "daily-template", "templates/daily.md", "note daily_note copies into a new day's note when it exists; {{date}}, {{title}} and {{weekday}} are filled in")
			fs.StringVar(&st.weeklyFolder, "weekly-folder", "weekly", "folder daily_note period week keeps one note an ISO week in (YYYY-Www.md)")
			fs.StringVar(&st.weeklyTemplate, "weekly-template", "templates/weekly.md", "note a new weekly note starts from when it exists; {{date}}, {{title}}, {{start}} and {{end}} are filled in")
			fs.StringVar(&st.monthlyFolder, "monthly-folder", "monthly", "folder daily_note period month keeps one note a month in (YYYY-MM.md)")
			fs.StringVar(&st.monthlyTemplate, "monthly-template", "templates/monthly.md", "note a new monthly note starts from when it exists; {{date}}, {{title}}, {{start}} and {{end}} are filled in")
			st.sync.register(fs)
		},
		Setup: func(s *kit.Server) error {
			cfg, err := st.resolve(s.Config().StateDir)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			n, err := newStore(cfg, s.Logger())
			if err != nil {
				return err
			}
			if st.retryMax > 0 {
				n.retryMin, n.retryMax = min(n.retryMin, st.retryMax), st.retryMax
			}
			// The index is opened and built in the background: the server listens (and tells
			// systemd it is ready) at once, whatever the size of the notes folder.
			s.OnClose(n.close)
			s.Background(n.run)
			s.AddHealthCheck("index", n.health)
			addReadTools(s, n)
			addResources(s, n)
			addPrompts(s, n)
			n.onIndexed = changed(s)
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
