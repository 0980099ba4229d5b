package kit_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const consoleToken = "console-token-0123456789abcdef0123456789"

// sets puts testSpec's tools in toolsets: echo and boom read, write_thing write, stuck slow.
var sets = map[string]kit.ToolsetID{"echo": "read", "boom": "read", "write_thing": "write", "stuck": "slow"}

// adminSpec is testSpec with toolsets.
func adminSpec() kit.Spec {
	spec := testSpecIn(nil, sets)
	spec.Toolsets = []kit.Toolset{{ID: "read", Description: "Read."}, {ID: "write", Description: "Write."}, {ID: "slow", Description: "Slow."}}
	return spec
}

// startAdmin starts adminSpec with the admin surface on and its state in dir.
func startAdmin(t *testing.T, dir string, args ...string) (*mcptest.Harness, *admin.Client) {
	t.Helper()
	h := mcptest.Start(t, adminSpec(), append([]string{"--admin-token-sha256", admin.HashToken(consoleToken), "--state-dir", dir}, args...)...)
	return h, &admin.Client{Base: h.URL, Token: consoleToken}
}

// listed is the names tools/list gives the session.
func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestAdminGate: the admin surface answers only the console token, never a browser or a
// request that came through a proxy or tunnel, and is not there at all without a hash.
func TestAdminGate(t *testing.T) {
	t.Parallel()
	off := mcptest.Start(t, adminSpec(), "--state-dir", t.TempDir())
	if code, _ := get(t, off.URL+admin.PathStatus, map[string]string{"Authorization": "Bearer " + consoleToken}); code != http.StatusNotFound {
		t.Errorf("without --admin-token-sha256: %d, want 404", code)
	}
	h, _ := startAdmin(t, t.TempDir())
	bearer := "Bearer " + consoleToken
	for _, tc := range []struct {
		name    string
		path    string
		headers map[string]string
		want    int
	}{
		{"no token", admin.PathStatus, nil, http.StatusUnauthorized},
		{"a wrong token", admin.PathStatus, map[string]string{"Authorization": "Bearer " + consoleToken + "x"}, http.StatusUnauthorized},
		{"the hash as the token", admin.PathStatus, map[string]string{"Authorization": "Bearer " + admin.HashToken(consoleToken)}, http.StatusUnauthorized},
		{"a browser", admin.PathStatus, map[string]string{"Authorization": bearer, "Origin": "http://127.0.0.1:9999"}, http.StatusForbidden},
		{"through the tunnel", admin.PathStatus, map[string]string{"Authorization": bearer, "Cf-Connecting-Ip": "203.0.113.7"}, http.StatusForbidden},
		{"through a proxy", admin.PathStatus, map[string]string{"Authorization": bearer, "X-Forwarded-For": "203.0.113.7"}, http.StatusForbidden},
		{"the console", admin.PathStatus, map[string]string{"Authorization": bearer}, http.StatusOK},
		{"the console by a container's name", admin.PathStatus, map[string]string{"Authorization": bearer, "Host": "kittest:9005"}, http.StatusOK},
		{"an unknown route", "/admin/nothing", map[string]string{"Authorization": bearer}, http.StatusNotFound},
		{"an unknown route without a token", "/admin/nothing", nil, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, body := send(t, http.MethodGet, h.URL+tc.path, "", tc.headers)
			if code != tc.want {
				t.Fatalf("%d %s, want %d", code, body, tc.want)
			}
			if code == http.StatusUnauthorized && hdr.Get("WWW-Authenticate") != `Bearer realm="admin"` {
				t.Errorf("WWW-Authenticate %q", hdr.Get("WWW-Authenticate"))
			}
			if strings.Contains(body, admin.HashToken(consoleToken)) && code != http.StatusOK {
				t.Errorf("a refusal names the hash: %s", body)
			}
		})
	}
	// A PUT of switches without the token changes nothing.
	code, _, _ := send(t, http.MethodPut, h.URL+admin.PathSwitches, `{"format":1,"server_off":true}`, nil)
	if code != http.StatusUnauthorized {
		t.Errorf("PUT without a token: %d", code)
	}
	if names := listed(t, h.Connect(t, "")); !slices.Contains(names, "write_thing") {
		t.Errorf("after a refused PUT: %v", names)
	}
}

// TestSwitches switches a tool, a toolset, the fleet's read-only switch and the whole server
// off and on through /admin/, as the console does, and watches a go-sdk client's tools/list
// and calls follow at once; the state outlives a restart.
func TestSwitches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, c := startAdmin(t, dir)
	cs := h.Connect(t, "")
	all := []string{"boom", "echo", "stuck", "write_thing"}
	if got := listed(t, cs); !slices.Equal(got, all) {
		t.Fatalf("before: %v", got)
	}
	put := func(s switches.State) admin.Status {
		t.Helper()
		s.Format = switches.Format
		st, err := c.SetSwitches(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, tc := range []struct {
		name   string
		s      switches.State
		listed []string
		refuse map[string]string // tool → what its call answers
	}{
		{"a tool", switches.State{Version: 1, Tools: []string{"write_thing"}}, []string{"boom", "echo", "stuck"},
			map[string]string{"write_thing": "write_thing is switched off by the owner (console)"}},
		{"a toolset", switches.State{Version: 2, Toolsets: []string{"read"}}, []string{"stuck", "write_thing"},
			map[string]string{"echo": "echo is switched off with its toolset read"}},
		{"the fleet read-only", switches.State{Version: 3, ReadOnly: true}, []string{"boom", "echo", "stuck"},
			map[string]string{"write_thing": "the owner has made the fleet read-only"}},
		{"the server", switches.State{Version: 4, Server: true}, nil,
			map[string]string{"echo": "the owner turned the kittest server off", "write_thing": "turned the kittest server off"}},
		{"everything on again", switches.State{Version: 5}, all, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := put(tc.s)
			if st.Switches.Version != tc.s.Version {
				t.Errorf("status version %d", st.Switches.Version)
			}
			if got := listed(t, cs); !slices.Equal(got, tc.listed) {
				t.Errorf("tools/list %v, want %v", got, tc.listed)
			}
			for tool, want := range tc.refuse {
				res := mcptest.Call(t, cs, tool, map[string]any{"text": "x"})
				if !res.IsError || !strings.Contains(mcptest.Text(res), want) {
					t.Errorf("%s: %v %q, want %q", tool, res.IsError, mcptest.Text(res), want)
				}
			}
			for _, ts := range st.Toolsets {
				for _, tool := range ts.Tools {
					if off := !slices.Contains(tc.listed, tool.Name); tool.Off != off {
						t.Errorf("status: %s off=%v, want %v", tool.Name, tool.Off, off)
					}
				}
			}
		})
	}
	// The refused calls are in the log with the code and in the metrics.
	if logs := h.Logs(); !strings.Contains(logs, `"tool":"write_thing"`) || !strings.Contains(logs, `"code":"disabled"`) {
		t.Errorf("log lacks the refused call:\n%s", logs)
	}
	if m := getMetrics(t, h.Server); !strings.Contains(m, `mcp_tool_calls_disabled_total{tool="write_thing"} 3`) || !strings.Contains(m, `mcp_tool_calls_disabled_total{tool="echo"} 2`) {
		t.Errorf("metrics lack the disabled calls:\n%s", grepLines(m, "disabled"))
	}

	t.Run("kept across a restart", func(t *testing.T) {
		put(switches.State{Version: 6, Tools: []string{"write_thing"}, By: "passkey abc"})
		var kept switches.State
		data, err := os.ReadFile(filepath.Join(dir, switches.File))
		if err != nil || json.Unmarshal(data, &kept) != nil || kept.Version != 6 || kept.By != "passkey abc" {
			t.Fatalf("the file: %s %v", data, err)
		}
		again, _ := startAdmin(t, dir)
		if got := listed(t, again.Connect(t, "")); slices.Contains(got, "write_thing") || !slices.Contains(got, "echo") {
			t.Errorf("after a restart: %v", got)
		}
	})
	t.Run("unknown entries are kept and reported", func(t *testing.T) {
		st := put(switches.State{Version: 7, Toolsets: []string{"calendar"}, Tools: []string{"gone", "write_thing"}})
		if !slices.Equal(st.Unknown, []string{"toolset calendar", "tool gone"}) || !slices.Equal(st.Switches.Tools, []string{"gone", "write_thing"}) {
			t.Errorf("status %v %v", st.Unknown, st.Switches)
		}
	})
	t.Run("a state the server cannot stand behind is refused and changes nothing", func(t *testing.T) {
		for body, want := range map[string]string{
			`{"format":2,"version":8}`:                     "format 2",
			`{"format":1,"version":8,"tools":["x"]}`:       `unknown field \"tools\"`,
			`{"format":1,"version":8,"tools_off":["a b"]}`: "not a name",
		} {
			code, _, out := send(t, http.MethodPut, h.URL+admin.PathSwitches, body, map[string]string{"Authorization": "Bearer " + consoleToken})
			if code != http.StatusBadRequest || !strings.Contains(out, want) {
				t.Errorf("%s: %d %s, want 400 %q", body, code, out, want)
			}
		}
		if st, err := c.Status(t.Context()); err != nil || st.Switches.Version != 7 {
			t.Errorf("after refused states: %+v %v", st.Switches, err)
		}
	})
}

// grepLines keeps the lines of s that hold sub.
func grepLines(s, sub string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}
