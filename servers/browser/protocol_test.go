package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowSite serves /hang, which answers only when the browser gives up the request (or after
// 30 s), and /slow, which answers after delay.
type slowSite struct {
	*httptest.Server
	started chan struct{}
	dropped chan time.Time // when the browser closed a /hang request
}

func newSlowSite(t *testing.T, delay time.Duration) *slowSite {
	s := &slowSite{started: make(chan struct{}, 4), dropped: make(chan time.Time, 4)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		s.started <- struct{}{}
		select {
		case <-r.Context().Done():
			s.dropped <- time.Now()
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		_, _ = w.Write([]byte("<!doctype html><title>Slow</title><p>at last</p>"))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestCancelStopsNavigation: a browser_navigate whose call is cancelled stops the page's
// loading — the browser drops its request — on both protocol revisions.
func TestCancelStopsNavigation(t *testing.T) {
	h, _ := startServer(t)
	site := newSlowSite(t, 0)
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		t.Run(version, func(t *testing.T) {
			cs := h.ConnectAs(t, "", version, nil)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			returned := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": site.URL + "/hang"}})
				returned <- err
			}()
			select {
			case <-site.started:
			case <-time.After(20 * time.Second):
				t.Fatal("the browser did not request the page")
			}
			cancel()
			cancelled := time.Now()
			select {
			case at := <-site.dropped:
				t.Logf("the browser dropped the request %s after the cancellation", at.Sub(cancelled).Round(time.Millisecond))
			case <-time.After(2 * time.Second):
				t.Fatal("the browser still loads the page 2 s after the call was cancelled")
			}
			if err := <-returned; err == nil {
				t.Error("the cancelled call returned no error")
			}
		})
	}
	// The session is still usable after a cancelled navigation.
	if text := callTool(t, h.Connect(t, ""), "browser_navigate", map[string]any{"url": site.URL + "/slow", "no_snapshot": true}); !strings.Contains(text, "Title: Slow") {
		t.Errorf("after the cancellation: %s", text)
	}
}

// TestNavigateProgress: a slow page reports the navigation's phases to a client that asked
// (after heartbeats, when starting the browser takes more than a second).
func TestNavigateProgress(t *testing.T) {
	h, _ := startServer(t)
	site := newSlowSite(t, 1500*time.Millisecond)
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		t.Run(version, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			cs := h.ConnectAs(t, "", version, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, r.Params.Message)
			}})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser_navigate", Meta: mcp.Meta{"progressToken": 1},
				Arguments: map[string]any{"url": site.URL + "/slow"}})
			if err != nil || res.IsError {
				t.Fatalf("navigate: %v %s", err, mcptest.Text(res))
			}
			mu.Lock()
			defer mu.Unlock()
			for len(got) > 0 && strings.HasPrefix(got[0], "running for ") {
				got = got[1:] // heartbeats while the browser starts
			}
			want := []string{"loading " + site.URL + "/slow (step 1 of 3)", "waiting for the page to settle (step 2 of 3)", "taking the snapshot (step 3 of 3)"}
			if len(got) < 2 || got[0] != want[0] || !inOrder(got, want) {
				t.Errorf("progress %q, want the phases %q in order, the first two at least", got, want)
			}
		})
	}
}

// inOrder reports whether got is want with some items left out.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		for i < len(want) && want[i] != g {
			i++
		}
		if i == len(want) {
			return false
		}
		i++
	}
	return true
}
