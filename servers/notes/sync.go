package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/drivesync"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// product is the Drive API as the sync uses it, through the shared Google sign-in with the
// drive.file scope (`notes auth login`).
var product = googleserver.Product{Server: "notes", Name: "Google Drive", EndpointFlag: "drive-endpoint", Endpoint: "https://www.googleapis.com/drive/v3/", Background: true}

// syncSettings are the sync's flags.
type syncSettings struct {
	mode     string
	folder   string
	interval time.Duration
	delay    time.Duration
	google   googleserver.Flags
}

func (ss *syncSettings) register(fs *flag.FlagSet) {
	fs.StringVar(&ss.mode, "sync", "", "mirror the notes folder both ways: drive (to a Google Drive folder, with the drive.file scope; sign in with `notes auth login`), or empty for none")
	fs.StringVar(&ss.folder, "sync-folder", "Notes", "name of the Drive folder in My Drive the notes are mirrored to; created on the first sync, found again by other machines syncing the same name")
	fs.DurationVar(&ss.interval, "sync-interval", time.Minute, "how often to sync (10s to 24h)")
	fs.DurationVar(&ss.delay, "sync-delay", 5*time.Second, "how long after a change made through the tools to sync it; changes meanwhile go together (0 to 10m)")
	ss.google.Register(fs, product)
}

func (ss *syncSettings) check() error {
	switch {
	case ss.mode != "" && ss.mode != "drive":
		return fmt.Errorf("--sync %q: give drive, or leave it empty for no sync", ss.mode)
	case ss.mode == "":
		return nil
	case strings.TrimSpace(ss.folder) == "" || strings.ContainsAny(ss.folder, "/\\") || ss.folder == "." || ss.folder == "..":
		return fmt.Errorf("--sync-folder %q: give a folder name without slashes, e.g. Notes", ss.folder)
	case ss.interval < 10*time.Second || ss.interval > 24*time.Hour:
		return fmt.Errorf("--sync-interval %s: give 10s to 24h", ss.interval)
	case ss.delay < 0 || ss.delay > 10*time.Minute:
		return fmt.Errorf("--sync-delay %s: give 0 to 10m", ss.delay)
	}
	return nil
}

// startSync wires the Drive sync into the server: the Drive client over the shared sign-in,
// the "drive sync" health check, the sync_notes tool, a cycle soon after every change made
// through the tools, and the background loop.
func startSync(s *kit.Server, n *store, ss *syncSettings) error {
	acct, err := googleserver.Open(s, &ss.google, product)
	if err != nil {
		return &kit.ConfigError{Err: err}
	}
	svc, err := gdrive.New(acct)
	if err != nil {
		return &kit.ConfigError{Err: err}
	}
	sy, err := drivesync.New(drivesync.NewRemote(svc), syncFolder{n}, drivesync.Options{
		Folder:    ss.folder,
		StateFile: filepath.Join(s.Config().StateDir, "notes-sync-drive.json"),
		Interval:  ss.interval,
		Debounce:  ss.delay,
		Logger:    s.Logger().With("component", "drive sync"),
	})
	if err != nil {
		return &kit.ConfigError{Err: err}
	}
	n.onWrite = sy.Kick
	s.AddHealthCheck("drive sync", sy.Health)
	s.Background(sy.Run)
	kit.AddTool(s, kit.Tool{Name: "sync_notes", Toolset: toolsetSync, Title: "Sync notes with Google Drive", Destructive: true, Idempotent: true, OpenWorld: true, Timeout: 85 * time.Second,
		Description: "Sync notes with Google Drive now (also done every few minutes); a note changed on both sides gets a conflict copy."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, syncOutput, error) {
			rep, err := sy.Sync(ctx)
			if err != nil && len(rep.Failed) == 0 {
				return nil, syncOutput{}, acct.Fail(err, "the notes folder on Drive")
			}
			return nil, syncOutput(rep), nil
		})
	return nil
}

// syncOutput is what sync_notes returns.
type syncOutput drivesync.Report

func (o syncOutput) Text() string {
	if o.Idle {
		return fmt.Sprintf("Nothing changed on either side; %d notes in sync.", o.Notes)
	}
	var b strings.Builder
	part := func(what string, paths []string) {
		if len(paths) > 0 {
			fmt.Fprintf(&b, "%s (%d): %s\n", what, len(paths), strings.Join(paths, ", "))
		}
	}
	part("Uploaded", o.Uploaded)
	part("Downloaded", o.Downloaded)
	part("Moved", o.Moved)
	part("Moved to the trash here (deleted on Drive)", o.TrashedLocal)
	part("Moved to Drive's trash (deleted here)", o.TrashedRemote)
	part("Conflict copies (both sides changed; Drive's version saved as)", o.Conflicts)
	part("Failed, retried next sync", o.Failed)
	if o.Skipped > 0 {
		fmt.Fprintf(&b, "Skipped %d Drive files whose names are not note paths (.md, no hidden names).\n", o.Skipped)
	}
	fmt.Fprintf(&b, "%d notes in sync.", o.Notes)
	return b.String()
}

// syncFolder is the notes folder as the sync sees it.
type syncFolder struct{ n *store }

func (f syncFolder) Walk() ([]vault.File, error)          { return f.n.v.Walk("") }
func (f syncFolder) ReadFile(rel string) ([]byte, error)  { return f.n.v.ReadFile(rel) }
func (f syncFolder) Stat(rel string) (fs.FileInfo, error) { return f.n.v.Stat(rel) }

// Apply makes the sync's changes under the write lock, each only when its note is still as
// the sync saw it, and indexes them.
func (f syncFolder) Apply(ctx context.Context, changes []drivesync.Change) []error {
	n := f.n
	n.mu.Lock()
	defer n.mu.Unlock()
	errs := make([]error, len(changes))
	var touched []string
	for i := range changes {
		c := &changes[i]
		if errs[i] = f.apply(c); errs[i] == nil {
			touched = append(touched, c.Path)
			if c.From != "" {
				touched = append(touched, c.From)
			}
		}
	}
	if len(touched) > 0 {
		n.indexPaths(ctx, touched...)
	}
	return errs
}

func (f syncFolder) apply(c *drivesync.Change) error {
	v := f.n.v
	subject := c.Path
	if c.Kind == drivesync.MoveNote {
		subject = c.From
	}
	if err := f.expect(subject, c.Expect); err != nil {
		return err
	}
	var err error
	switch c.Kind {
	case drivesync.WriteNote:
		err = v.Write(c.Path, c.Data, c.Expect == "")
	case drivesync.MoveNote:
		err = v.Move(c.From, c.Path)
	case drivesync.TrashNote:
		_, err = f.n.trash(c.Path)
		return err
	}
	if errors.Is(err, vault.ErrExists) {
		return drivesync.ErrChanged
	}
	if err != nil {
		return err
	}
	info, err := v.Stat(c.Path)
	if err != nil {
		return err
	}
	c.MTime, c.Size = info.ModTime().UnixNano(), info.Size()
	return nil
}

// expect checks that the note at rel has the content md5, or is absent when md5 is "".
func (f syncFolder) expect(rel, md5 string) error {
	if md5 == "" {
		if f.n.v.Exists(rel) {
			return drivesync.ErrChanged
		}
		return nil
	}
	data, err := f.n.v.ReadFile(rel)
	if err != nil || drivesync.Sum(data) != md5 {
		return drivesync.ErrChanged
	}
	return nil
}
