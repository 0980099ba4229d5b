package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"
)

//go:embed templates/console.html
var consoleHTML string

var consoleTmpl = template.Must(template.New("console").Funcs(template.FuncMap{
	"since": func(t time.Time) string { return time.Since(t).Truncate(time.Second).String() },
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"has":   slices.Contains[[]string],
	"join":  strings.Join,
}).Parse(consoleHTML))

// consoleData fills the console's template; Page picks the part shown.
type consoleData struct {
	Page     string // fleet, switches, activity, devices, charts
	Title    string
	Owner    *owner
	Fresh    time.Duration
	Servers  []serverState
	Switches fleetSwitches
	Error    string // the console's own state could not be read
	// activity
	Calls       []call
	Unreachable map[string]string
	Filter      map[string]string
	Audit       []auditEntry
	// devices
	Devices []device
	Lapse   time.Duration
	// charts
	Range  string // hour or day
	Charts []serverCharts
	// accounts
	SignIns  []signInGroup
	Started  *startedSignIn // a sign-in just started (or one whose finish failed: no URL then)
	EndsSoon time.Time      // a sign-in that ends before this is warned about
	// clients
	Networks []clientNetwork
}

func (cu *consoleUI) show(w http.ResponseWriter, status int, d consoleData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer the browser sends its forms with
	// "Origin: null", which the console's origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	d.Fresh = consoleFresh
	w.WriteHeader(status)
	if err := consoleTmpl.Execute(w, d); err != nil {
		cu.log.Warn("render console page", "error", err.Error())
	}
}

// fleetPage shows each server's health, version, uptime, toolsets, switches and last errors.
func (cu *consoleUI) fleetPage(w http.ResponseWriter, r *http.Request, o *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	servers, f, err := cu.c.fleet(ctx)
	d := consoleData{Page: "fleet", Title: "Fleet", Owner: o, Servers: servers, Switches: f}
	if err != nil {
		d.Error = err.Error()
	}
	cu.show(w, http.StatusOK, d)
}

// switchesPage shows the switches of every server, toolset and tool, and the fleet's read-only one.
func (cu *consoleUI) switchesPage(w http.ResponseWriter, r *http.Request, o *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	servers, f, err := cu.c.fleet(ctx)
	d := consoleData{Page: "switches", Title: "Switches", Owner: o, Servers: servers, Switches: f}
	if err != nil {
		d.Error = err.Error()
	}
	cu.show(w, http.StatusOK, d)
}

// setSwitch turns one switch: kind (server, toolset, tool or read_only), server, name, and to
// (off or on). The change is kept, then sent to every server; a server that does not take it
// is shown on the switches page, and gets it when the console next sees it.
func (cu *consoleUI) setSwitch(w http.ResponseWriter, r *http.Request, o *owner) {
	kind, server, name, to := r.PostForm.Get("kind"), r.PostForm.Get("server"), r.PostForm.Get("name"), r.PostForm.Get("to")
	if to != "off" && to != "on" {
		cu.message(w, http.StatusBadRequest, "Not changed", "to: give off or on.")
		return
	}
	off := to == "off"
	known := slices.ContainsFunc(cu.c.servers, func(s consoleServer) bool { return s.Name == server })
	if kind != "read_only" && !known {
		cu.message(w, http.StatusBadRequest, "Not changed", fmt.Sprintf("server %q is not one the console manages.", server))
		return
	}
	edit := func(f *fleetSwitches) (string, error) {
		if f.Servers == nil {
			f.Servers = map[string]serverSwitches{}
		}
		s := f.Servers[server]
		var what string
		switch kind {
		case "read_only":
			// "off" turns the writes off: the fleet becomes read-only.
			f.ReadOnly = off
			return "fleet read-only " + map[bool]string{true: "on", false: "off"}[off], nil
		case "server":
			s.Off, what = off, "server "+server+" "+to
		case "toolset":
			s.Toolsets, what = toggle(s.Toolsets, name, off), "toolset "+server+"/"+name+" "+to
		case "tool":
			s.Tools, what = toggle(s.Tools, name, off), "tool "+server+"/"+name+" "+to
		default:
			return "", fmt.Errorf("kind %q: give server, toolset, tool or read_only", kind)
		}
		f.Servers[server] = s
		return what, nil
	}
	// A server that does not take the change is logged by push, shown on the switches page,
	// and given the change when the console next sees it (fleet).
	if _, err := cu.c.change(r.Context(), o.Passkey, edit); err != nil {
		cu.message(w, http.StatusBadRequest, "Not changed", err.Error())
		return
	}
	http.Redirect(w, r, consoleSwitchesPath, http.StatusSeeOther)
}

// toggle adds name to list (off) or removes it (on), keeping the list sorted.
func toggle(list []string, name string, off bool) []string {
	list = slices.DeleteFunc(slices.Clone(list), func(n string) bool { return n == name })
	if off {
		list = append(list, name)
		slices.Sort(list)
	}
	return list
}

// activityFilter reads the activity page's filters: server, caller, tool, outcome.
func activityFilter(r *http.Request) (map[string]string, func(call) bool) {
	f := map[string]string{}
	for _, k := range []string{"server", "caller", "tool", "outcome"} {
		if v := strings.TrimSpace(r.URL.Query().Get(k)); v != "" {
			f[k] = v
		}
	}
	return f, func(c call) bool {
		return (f["server"] == "" || c.Server == f["server"]) && (f["caller"] == "" || c.Caller == f["caller"]) &&
			(f["tool"] == "" || c.Tool == f["tool"]) && (f["outcome"] == "" || c.Outcome == f["outcome"])
	}
}

// maxActivity bounds the calls one page shows.
const maxActivity = 300

// activityPage shows the recent tool calls of every server (never arguments or results) and
// the owner's console actions.
func (cu *consoleUI) activityPage(w http.ResponseWriter, r *http.Request, o *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	filter, keep := activityFilter(r)
	calls, failed := cu.c.calls(ctx, keep)
	audit, err := cu.c.auditLog(ctx, 100)
	d := consoleData{Page: "activity", Title: "Activity", Owner: o, Calls: calls[:min(len(calls), maxActivity)], Unreachable: failed, Filter: filter, Audit: audit}
	if err != nil {
		d.Error = err.Error()
	}
	cu.show(w, http.StatusOK, d)
}

// fleetJSON answers the fleet's state for scripts and tests: the console's switches and what
// each server reports (or why it could not be asked).
func (cu *consoleUI) fleetJSON(w http.ResponseWriter, r *http.Request, _ *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	servers, f, err := cu.c.fleet(ctx)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, map[string]any{"switches": f, "servers": servers})
}

// activityJSON answers the activity page's content, with the same filters.
func (cu *consoleUI) activityJSON(w http.ResponseWriter, r *http.Request, _ *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	_, keep := activityFilter(r)
	calls, failed := cu.c.calls(ctx, keep)
	audit, err := cu.c.auditLog(ctx, 100)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, map[string]any{"calls": calls[:min(len(calls), maxActivity)], "unreachable": failed, "console": audit})
}
