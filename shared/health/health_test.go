package health

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestReport(t *testing.T) {
	tests := []struct {
		name   string
		checks map[string]CheckFunc
		want   string
		detail map[string]Result
	}{
		{"no checks", nil, "ok", nil},
		{"all ok", map[string]CheckFunc{"a": func(context.Context) Result { return Result{Status: OK} }}, "ok", nil},
		{"a warning degrades", map[string]CheckFunc{
			"a": func(context.Context) Result { return Result{Status: OK} },
			"b": func(context.Context) Result { return Result{Status: Warn, Detail: "expires in 2 days"} },
		}, "degraded", map[string]Result{"b": {Status: Warn, Detail: "expires in 2 days"}}},
		{"a failure wins over a warning", map[string]CheckFunc{
			"a": func(context.Context) Result { return Result{Status: Fail, Detail: "missing"} },
			"b": func(context.Context) Result { return Result{Status: Warn} },
		}, "unavailable", map[string]Result{"a": {Status: Fail, Detail: "missing"}}},
		{"an unknown status counts as failure", map[string]CheckFunc{"a": func(context.Context) Result { return Result{Status: "great"} }},
			"unavailable", map[string]Result{"a": {Status: Fail}}},
		{"a panicking check fails", map[string]CheckFunc{"a": func(context.Context) Result { panic("boom") }},
			"unavailable", map[string]Result{"a": {Status: Fail, Detail: "check panicked"}}},
		{"a slow check times out", map[string]CheckFunc{"a": func(ctx context.Context) Result {
			<-ctx.Done()
			time.Sleep(time.Second)
			return Result{Status: OK}
		}}, "unavailable", map[string]Result{"a": {Status: Fail, Detail: "check timed out after 50ms"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// In a synctest bubble the 50ms timeout and the abandoned check's second are fake time.
			synctest.Test(t, func(t *testing.T) {
				r := NewRegistry("calculator", "v1", func() int { return 3 })
				for n, fn := range tt.checks {
					r.Add(n, fn)
				}
				start := time.Now()
				rep := r.Report(context.Background(), 50*time.Millisecond)
				if time.Since(start) > 500*time.Millisecond {
					t.Errorf("report took %s", time.Since(start))
				}
				if rep.Status != tt.want || rep.Name != "calculator" || rep.Version != "v1" || rep.Tools != 3 {
					t.Errorf("report = %+v, want status %s", rep, tt.want)
				}
				for n, want := range tt.detail {
					if rep.Checks[n] != want {
						t.Errorf("check %s = %+v, want %+v", n, rep.Checks[n], want)
					}
				}
				time.Sleep(2 * time.Second) // fake time: an abandoned check ends before the bubble does
			})
		})
	}
}

func TestHandlerDetailOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	r := NewRegistry("notes", "v2", func() int { return 7 })
	r.Add("vault", func(context.Context) Result { return Result{Status: OK, Detail: "/home/alice/vault: 1200 notes"} })
	r.Add("google token", func(context.Context) Result { return Result{Status: Fail, Detail: "alice@example.com: revoked"} })
	tests := []struct {
		name     string
		trusted  bool
		wantKeys []string
	}{
		{"untrusted gets the summary", false, []string{"name", "status", "version"}},
		{"trusted gets the report", true, []string{"checks", "name", "status", "tools", "uptime_seconds", "version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			r.Handler(func(*http.Request) bool { return tt.trusted }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("status %d, want 503 (a check fails) whoever asks", rec.Code)
			}
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			keys := slices.Sorted(maps.Keys(body))
			if !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("keys = %v, want %v", keys, tt.wantKeys)
			}
			if body["status"] != "unavailable" || body["name"] != "notes" || body["version"] != "v2" {
				t.Errorf("body = %v", body)
			}
			leaked := strings.Contains(rec.Body.String(), "alice")
			if leaked != tt.trusted {
				t.Errorf("details present = %v, want %v: %s", leaked, tt.trusted, rec.Body.String())
			}
		})
	}
}

// TestReportSets: a set's checks appear by the names it returns on each report, join the
// status like any check, and a set that panics is one failed check.
func TestReportSets(t *testing.T) {
	r := NewRegistry("gmail", "v1", func() int { return 1 })
	r.Add("disk", func(context.Context) Result { return Result{Status: OK} })
	accounts := map[string]Result{"google token": {Status: OK, Detail: "ok: ada"}}
	r.AddSet("google token", func(context.Context) map[string]Result { return maps.Clone(accounts) })
	rep := r.Report(t.Context(), time.Second)
	if rep.Status != "ok" || len(rep.Checks) != 2 || rep.Checks["google token"].Detail != "ok: ada" {
		t.Errorf("one account: %+v", rep)
	}
	accounts["google token (work)"] = Result{Status: Warn, Detail: "expired: run login"}
	rep = r.Report(t.Context(), time.Second)
	if rep.Status != "degraded" || len(rep.Checks) != 3 || rep.Checks["google token (work)"].Status != Warn {
		t.Errorf("a second account: %+v", rep)
	}
	r.AddSet("google token", func(context.Context) map[string]Result { panic("boom") })
	rep = r.Report(t.Context(), time.Second)
	if rep.Status != "unavailable" || rep.Checks["checks"].Detail != "check panicked" || len(rep.Checks) != 2 {
		t.Errorf("a panicking set: %+v", rep)
	}
}
