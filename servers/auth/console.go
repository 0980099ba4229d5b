package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// consoleSwitchesKey is the meta row that holds the fleet's switches (fleetSwitches as JSON).
const consoleSwitchesKey = "console_switches"

// consoleServer is one server the console manages: its name and its admin surface.
type consoleServer struct {
	Name   string
	client *admin.Client
}

// parseConsoleServers reads --console-servers: NAME=URL,… with each URL the server's base
// address as the auth server reaches it directly (LAN, loopback or container network; the
// admin surface refuses proxied requests).
func parseConsoleServers(s, token string) ([]consoleServer, error) {
	var out []consoleServer
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, raw, ok := strings.Cut(item, "=")
		u, err := url.Parse(raw)
		if !ok || name == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("invalid --console-servers entry %q: give NAME=URL with the server's base address, e.g. gmail=http://127.0.0.1:9005", item)
		}
		if slices.ContainsFunc(out, func(c consoleServer) bool { return c.Name == name }) {
			return nil, fmt.Errorf("invalid --console-servers: %s is named twice", name)
		}
		out = append(out, consoleServer{Name: name, client: &admin.Client{Base: strings.TrimSuffix(raw, "/"), Token: token}})
	}
	if len(out) == 0 {
		return nil, errors.New("--console-servers names no server: give NAME=URL,… or leave the console off")
	}
	return out, nil
}

// fleetSwitches are the switches the owner set for the whole fleet; the console keeps them
// in auth.db and gives each server its share (stateFor). Version grows by one with each change.
type fleetSwitches struct {
	Version  int64                     `json:"version"`
	ReadOnly bool                      `json:"read_only,omitempty"`
	Servers  map[string]serverSwitches `json:"servers,omitempty"`
	Changed  time.Time                 `json:"changed,omitzero"`
	By       string                    `json:"by,omitempty"`
}

// serverSwitches are one server's own switches.
type serverSwitches struct {
	Off      bool     `json:"off,omitempty"`
	Toolsets []string `json:"toolsets_off,omitempty"`
	Tools    []string `json:"tools_off,omitempty"`
}

// stateFor is the switches.State the console puts in force on the named server.
func (f fleetSwitches) stateFor(name string) switches.State {
	s := f.Servers[name]
	return switches.State{Format: switches.Format, Version: f.Version, Server: s.Off, ReadOnly: f.ReadOnly,
		Toolsets: slices.Clone(s.Toolsets), Tools: slices.Clone(s.Tools), Changed: f.Changed, By: f.By}
}

// console is the owner's console: the fleet's state read from each server's admin surface,
// the switches it sets there, and the record of what the owner did.
type console struct {
	servers   []consoleServer
	lan       string // --console-lan-url: where LAN clients reach the servers; "" unknown
	resources *fleet // the servers OAuth clients reach through the tunnel
	db        *db
	log       *slog.Logger
	mu        sync.Mutex // orders changes of the fleet's switches
}

// switches loads the fleet's switches; none were set yet is the zero value.
func (c *console) switches(ctx context.Context) (fleetSwitches, error) {
	var f fleetSwitches
	v, err := c.db.meta(ctx, consoleSwitchesKey)
	if err != nil || v == "" {
		return f, err
	}
	if err := json.Unmarshal([]byte(v), &f); err != nil {
		return f, fmt.Errorf("read the fleet's switches: %w", err)
	}
	return f, nil
}

// change applies edit to the fleet's switches (edit says what it changed), keeps the result with the next version and
// records who did what; then it puts the new state in force on every server and returns what
// each server answered (nil for the servers that took it).
func (c *console) change(ctx context.Context, who string, edit func(*fleetSwitches) (string, error)) (map[string]error, error) {
	c.mu.Lock()
	var what string
	f, err := c.switches(ctx)
	if err == nil {
		what, err = edit(&f)
	}
	if err == nil {
		f.Version++
		f.Changed, f.By = c.db.now().UTC(), who
		for _, s := range c.servers {
			if err = f.stateFor(s.Name).Validate(); err != nil {
				break
			}
		}
	}
	if err == nil {
		var b []byte
		b, err = json.Marshal(f)
		if err == nil {
			err = c.db.setMeta(ctx, consoleSwitchesKey, string(b))
		}
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	c.audit(ctx, who, "switches", fmt.Sprintf("%s (version %d)", what, f.Version))
	return c.push(ctx, f), nil
}

// push puts the fleet's switches in force on every server at once.
func (c *console) push(ctx context.Context, f fleetSwitches) map[string]error {
	out := make(map[string]error, len(c.servers))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range c.servers {
		wg.Go(func() {
			_, err := s.client.SetSwitches(ctx, f.stateFor(s.Name))
			if err != nil {
				c.log.Warn("console: switches not put in force", "server", s.Name, "version", f.Version, "error", err.Error())
			}
			mu.Lock()
			out[s.Name] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// serverState is what the console knows of one server now.
type serverState struct {
	Name   string        `json:"name"`
	Status *admin.Status `json:"status,omitempty"`
	Error  string        `json:"error,omitempty"` // why the console could not reach it
	// Behind is set when the server runs other switches than the console's (it missed a
	// change or started with an older file); the console has just sent it the current ones.
	Behind bool `json:"behind,omitempty"`
}

// fleet asks every server for its status at once. A server that runs switches of another
// version than the console's is given the console's: that is how a server that was down or
// unreachable during a change catches up.
func (c *console) fleet(ctx context.Context) ([]serverState, fleetSwitches, error) {
	f, err := c.switches(ctx)
	if err != nil {
		return nil, f, err
	}
	out := make([]serverState, len(c.servers))
	var wg sync.WaitGroup
	for i, s := range c.servers {
		wg.Go(func() {
			st, err := s.client.Status(ctx)
			out[i].Name = s.Name
			if err != nil {
				out[i].Error = reachError(err)
				return
			}
			if f.Version > 0 && st.Switches.Version != f.Version {
				out[i].Behind = true
				if st2, err := s.client.SetSwitches(ctx, f.stateFor(s.Name)); err == nil {
					st = st2
				} else {
					out[i].Error = "runs switches version " + fmt.Sprint(st.Switches.Version) + ", and the current ones were refused: " + reachError(err)
				}
			}
			out[i].Status = &st
		})
	}
	wg.Wait()
	return out, f, nil
}

// reachError says why a server's admin surface did not answer, without guessing its state.
func reachError(err error) string {
	var ae *admin.Error
	switch {
	case errors.As(err, &ae) && ae.Status == 401:
		return "refused the console token: give the server --admin-token-sha256 of the console's token"
	case errors.As(err, &ae) && ae.Status == 404:
		return "has no admin surface: start it with --admin-token-sha256"
	case errors.As(err, &ae):
		return ae.Error()
	}
	return "unreachable: " + err.Error()
}

// call is one tool call as the activity page shows it.
type call struct {
	Server string `json:"server"`
	admin.Call
}

// calls gathers the calls every server still holds, newest first, keeping those filter keeps;
// it also names the servers it could not ask.
func (c *console) calls(ctx context.Context, keep func(call) bool) ([]call, map[string]string) {
	var mu sync.Mutex
	var out []call
	failed := map[string]string{}
	var wg sync.WaitGroup
	for _, s := range c.servers {
		wg.Go(func() {
			got, err := s.client.Calls(ctx, 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[s.Name] = reachError(err)
				return
			}
			for _, a := range got.Calls {
				if cl := (call{Server: s.Name, Call: a}); keep(cl) {
					out = append(out, cl)
				}
			}
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b call) int { return b.At.Compare(a.At) })
	return out, failed
}

// auditEntry is one thing the owner did in the console.
type auditEntry struct {
	At     time.Time `json:"at"`
	Who    string    `json:"who"` // the passkey (base64url id) of the session
	Action string    `json:"action"`
	Detail string    `json:"detail"`
}

// audit records a console action in auth.db and in the log.
func (c *console) audit(ctx context.Context, who, action, detail string) {
	c.log.Info("console action", "passkey", who, "action", action, "detail", detail)
	if _, err := c.db.sql.ExecContext(ctx, "INSERT INTO console_audit (at, passkey, action, detail) VALUES (?, ?, ?, ?)",
		c.db.now().UnixMilli(), who, action, detail); err != nil {
		c.log.Error("console action not recorded in auth.db", "error", err.Error())
	}
}

// auditLog returns the last n console actions, newest first.
func (c *console) auditLog(ctx context.Context, n int) ([]auditEntry, error) {
	rows, err := c.db.sql.QueryContext(ctx, "SELECT at, passkey, action, detail FROM console_audit ORDER BY at DESC, rowid DESC LIMIT ?", n)
	if err != nil {
		return nil, fmt.Errorf("read the console's record: %w", err)
	}
	defer rows.Close()
	var out []auditEntry
	for rows.Next() {
		var e auditEntry
		var at int64
		if err := rows.Scan(&at, &e.Who, &e.Action, &e.Detail); err != nil {
			return nil, fmt.Errorf("read the console's record: %w", err)
		}
		e.At = time.UnixMilli(at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
