package health

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestRunCheck runs the healthcheck subcommand against real /healthz handlers over HTTP, found
// the way a container finds its server: through MCP_HOST (a wildcard) and MCP_PORT.
func TestRunCheck(t *testing.T) {
	t.Parallel()
	registry := func(name, status string) http.Handler {
		r := NewRegistry(name, "v1", func() int { return 1 })
		if status != OK {
			r.Add("token", func(context.Context) Result { return Result{Status: status} })
		}
		return r.Handler(func(*http.Request) bool { return false })
	}
	tests := []struct {
		name    string
		handler http.Handler
		args    []string
		want    int
		out     string // in stdout on success, in stderr on failure
	}{
		{"ok", registry("calculator", OK), nil, 0, "calculator v1: ok"},
		{"degraded is ready", registry("calculator", Warn), nil, 0, "calculator v1: degraded"},
		{"unavailable is not ready", registry("calculator", Fail), nil, 1, `503 Service Unavailable, status "unavailable"`},
		{"unavailable is alive", registry("calculator", Fail), []string{"--live"}, 0, "calculator v1: unavailable"},
		{"another server on the port", registry("notes", OK), nil, 1, `is "notes", not calculator`},
		{"an answer that is no report", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Forbidden: Host not allowed", http.StatusForbidden)
		}), []string{"--live"}, 1, "answered 403 Forbidden without a health report"},
		{"a bad flag", registry("calculator", OK), []string{"--bogus"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			u, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"MCP_HOST": "0.0.0.0", "MCP_PORT": u.Port()}
			var stdout, stderr bytes.Buffer
			got := RunCheck(t.Context(), "calculator", 9003, tt.args, func(k string) string { return env[k] }, &stdout, &stderr)
			if got != tt.want {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", got, tt.want, stdout.String(), stderr.String())
			}
			text := stderr.String()
			if tt.want == 0 {
				text = stdout.String()
			}
			if !strings.Contains(text, tt.out) {
				t.Errorf("output %q does not contain %q", text, tt.out)
			}
		})
	}
}

// TestRunCheckNothingListening fails when no server answers on the port.
func TestRunCheckNothingListening(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var stdout, stderr bytes.Buffer
	got := RunCheck(t.Context(), "calculator", 9003, []string{"--host", "127.0.0.1", "--port", strconv.Itoa(port)}, func(string) string { return "" }, &stdout, &stderr)
	if got != 1 || !strings.Contains(stderr.String(), "connection refused") {
		t.Errorf("exit %d, stderr %q; want 1 and connection refused", got, stderr.String())
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host     string
		port     int
		env      map[string]string
		want     string
		wantFail bool
	}{
		{"", 0, nil, "127.0.0.1:9003", false},
		{"", 0, map[string]string{"MCP_HOST": "0.0.0.0", "MCP_PORT": "9100"}, "127.0.0.1:9100", false},
		{"", 0, map[string]string{"MCP_HOST": "::"}, "[::1]:9003", false},
		{"", 0, map[string]string{"MCP_HOST": "10.0.0.5"}, "10.0.0.5:9003", false},
		{"192.168.1.110", 9200, map[string]string{"MCP_HOST": "0.0.0.0", "MCP_PORT": "9100"}, "192.168.1.110:9200", false},
		{"", 0, map[string]string{"MCP_PORT": "ninety"}, "", true},
		{"", 70000, nil, "", true},
	}
	for _, tt := range tests {
		got, err := checkAddr(tt.host, tt.port, 9003, func(k string) string { return tt.env[k] })
		if (err != nil) != tt.wantFail || got != tt.want {
			t.Errorf("checkAddr(%q, %d, %v) = %q, %v; want %q, fail %v", tt.host, tt.port, tt.env, got, err, tt.want, tt.wantFail)
		}
	}
}
