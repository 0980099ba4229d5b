// Package health serves /healthz: the server's status, name and version to anyone, and to a
// trusted caller also its uptime, tool count and the result of each dependency check (a token,
// a browser, a folder), as JSON.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Check states, worst last.
const (
	OK   = "ok"   // the dependency works
	Warn = "warn" // works for now but needs attention (a token expiring soon); still ready
	Fail = "fail" // does not work; the server reports not ready (503)
)

// Result is what one check found.
type Result struct {
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// CheckFunc inspects one dependency; it must return promptly and honour ctx.
type CheckFunc func(ctx context.Context) Result

// Report is the /healthz body.
type Report struct {
	Status        string            `json:"status"` // ok, degraded or unavailable
	Name          string            `json:"name"`
	Version       string            `json:"version"`
	UptimeSeconds float64           `json:"uptime_seconds"`
	Tools         int               `json:"tools"`
	Checks        map[string]Result `json:"checks,omitempty"`
}

// Summary is the /healthz body for a caller that is not trusted: built from these three fields
// only, so no check's detail (an account, a path, a note name) can reach it.
type Summary struct {
	Status  string `json:"status"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary returns the report without its details.
func (rep Report) Summary() Summary {
	return Summary{Status: rep.Status, Name: rep.Name, Version: rep.Version}
}

// SetFunc inspects a set of dependencies that can change at runtime (one per signed-in
// account) and returns a result for each, by check name; it must return promptly and honour ctx.
type SetFunc func(ctx context.Context) map[string]Result

// Registry holds a server's checks.
type Registry struct {
	name, version string
	started       time.Time
	tools         func() int
	mu            sync.Mutex
	checks        map[string]CheckFunc
	sets          map[string]SetFunc
}

// NewRegistry returns a registry for a server; tools reports its current tool count.
func NewRegistry(name, version string, tools func() int) *Registry {
	return &Registry{name: name, version: version, started: time.Now(), tools: tools, checks: map[string]CheckFunc{}, sets: map[string]SetFunc{}}
}

// Add registers a named check, replacing one of the same name.
func (r *Registry) Add(name string, fn CheckFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks[name] = fn
}

// AddSet registers a set of checks whose names fn decides on each report, replacing a set
// registered under the same key.
func (r *Registry) AddSet(key string, fn SetFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sets[key] = fn
}

// Report runs every check, each bounded by timeout, and summarizes them.
func (r *Registry) Report(ctx context.Context, timeout time.Duration) Report {
	r.mu.Lock()
	names := make([]string, 0, len(r.checks))
	for n := range r.checks {
		names = append(names, n)
	}
	checks := make(map[string]CheckFunc, len(r.checks))
	for n, fn := range r.checks {
		checks[n] = fn
	}
	sets := make([]SetFunc, 0, len(r.sets))
	for _, fn := range r.sets {
		sets = append(sets, fn)
	}
	r.mu.Unlock()
	for _, fn := range sets {
		for n, res := range runSet(ctx, timeout, fn) {
			if _, ok := checks[n]; !ok {
				names = append(names, n)
			}
			checks[n] = func(context.Context) Result { return res }
		}
	}
	sort.Strings(names)

	rep := Report{Status: "ok", Name: r.name, Version: r.version, UptimeSeconds: time.Since(r.started).Seconds(), Tools: r.tools()}
	if len(names) > 0 {
		rep.Checks = make(map[string]Result, len(names))
	}
	for _, n := range names {
		res := run(ctx, timeout, checks[n])
		rep.Checks[n] = res
		switch {
		case res.Status == Fail:
			rep.Status = "unavailable"
		case res.Status == Warn && rep.Status == "ok":
			rep.Status = "degraded"
		}
	}
	return rep
}

func run(ctx context.Context, timeout time.Duration, fn CheckFunc) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Result{Status: Fail, Detail: "check panicked"}
			}
		}()
		done <- fn(ctx)
	}()
	select {
	case res := <-done:
		if res.Status != OK && res.Status != Warn {
			res.Status = Fail
		}
		return res
	case <-ctx.Done():
		return Result{Status: Fail, Detail: "check timed out after " + timeout.String()}
	}
}

// runSet runs a set of checks bounded by timeout; a set that panics or overruns is one failed
// check named "checks".
func runSet(ctx context.Context, timeout time.Duration, fn SetFunc) map[string]Result {
	var out map[string]Result
	res := run(ctx, timeout, func(ctx context.Context) Result {
		out = fn(ctx)
		return Result{Status: OK}
	})
	if res.Status != OK {
		return map[string]Result{"checks": res}
	}
	return out
}

// Handler serves the report: 200 when ready (ok or degraded), 503 when not. The whole report
// goes only to a request trusted says yes to; any other gets the Summary. The checks run
// either way, since the status depends on them.
func (r *Registry) Handler(trusted func(*http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		rep := r.Report(req.Context(), 5*time.Second)
		var body any = rep.Summary()
		if trusted(req) {
			body = rep
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Vary", "Authorization")
		if rep.Status == "unavailable" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(body)
	})
}
