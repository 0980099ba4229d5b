package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const laptopToken = "0123456789abcdef0123456789abcdef"

// restAnswer is a REST answer: the result, or the error envelope.
type restAnswer struct {
	Result json.RawMessage `json:"result"`
	Text   string          `json:"text"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// restDo sends one REST request with the laptop's token (unless headers say otherwise) and
// decodes the answer, which must be JSON whatever its status.
func restDo(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, restAnswer) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + laptopToken}
	for k, v := range headers {
		h[k] = v
	}
	if v, ok := h["Authorization"]; ok && v == "" {
		delete(h, "Authorization")
	}
	code, hdr, raw := send(t, method, url, body, h)
	var a restAnswer
	if err := json.Unmarshal([]byte(raw), &a); err != nil || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("%s %s: %d %q, not JSON: %v", method, url, code, raw, err)
	}
	return code, hdr, a
}

func errCode(a restAnswer) string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Code
}

// TestRESTCall: POST /tools/{name} answers the structured result and the text, or the error
// envelope with the status of its code, through the same call path as /mcp (validation,
// timeouts, panics, logs, metrics).
func TestRESTCall(t *testing.T) {
	h := mcptest.Start(t, toolsetSpec(), "--auth-tokens-file", writeTokens(t), "--max-body-bytes", "2048")
	tests := []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		code                     string // the envelope's code; "" for a result
	}{
		{"result", "POST", "/tools/echo", `{"text":"hi"}`, nil, 200, ""},
		{"tool's own invalid input", "POST", "/tools/echo", `{"text":""}`, nil, 400, "invalid"},
		{"argument of the wrong type", "POST", "/tools/echo", `{"text":5}`, nil, 400, "invalid"},
		{"unknown argument", "POST", "/tools/echo", `{"text":"hi","nope":1}`, nil, 400, "invalid"},
		{"body no object", "POST", "/tools/echo", `["hi"]`, nil, 400, "invalid"},
		{"body no JSON", "POST", "/tools/echo", `text=hi`, nil, 400, "invalid"},
		{"empty body, no arguments", "POST", "/tools/write_thing", ``, nil, 200, ""},
		{"no such tool", "POST", "/tools/nope", `{}`, nil, 404, "not_found"},
		{"panic", "POST", "/tools/boom", `{}`, nil, 500, "internal"},
		{"timeout", "POST", "/tools/stuck", `{}`, nil, 504, "timeout"},
		{"GET", "GET", "/tools/echo", ``, nil, 405, "method_not_allowed"},
		{"over --max-body-bytes", "POST", "/tools/echo", `{"text":"` + strings.Repeat("a", 3000) + `"}`, nil, 413, "too_large"},
		{"no token", "POST", "/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": ""}, 401, "unauthorized"},
		{"wrong token", "POST", "/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": "Bearer wrong-wrong-wrong"}, 401, "unauthorized"},
		{"unknown narrowing", "POST", "/x/nope/tools/echo", `{"text":"hi"}`, nil, 404, "not_found"},
		{"bad narrowing header", "POST", "/tools/echo", `{"text":"hi"}`, map[string]string{"X-MCP-Toolsets": "nope"}, 400, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, a := restDo(t, tt.method, h.URL+tt.path, tt.body, tt.headers)
			if code != tt.status || errCode(a) != tt.code {
				t.Fatalf("%d %+v %s, want %d %q", code, a.Error, a.Result, tt.status, tt.code)
			}
			if code == 401 && hdr.Get("WWW-Authenticate") != `Bearer realm="mcp"` {
				t.Errorf("401 without the /mcp challenge: %q", hdr.Get("WWW-Authenticate"))
			}
			if a.Error != nil && a.Error.Message == "" {
				t.Errorf("an error without a message")
			}
		})
	}
	_, _, a := restDo(t, "POST", h.URL+"/tools/echo", `{"text":"hi"}`, nil)
	var out struct{ Echo, Caller string }
	if err := json.Unmarshal(a.Result, &out); err != nil || out.Echo != "hi" || out.Caller != "laptop" || a.Text != "echo: hi" {
		t.Errorf("echo: %s %q (%v), want echo hi by laptop and its text", a.Result, a.Text, err)
	}
	logs := h.Logs()
	for _, want := range []string{`"tool":"echo","caller":"laptop"`, `"tool":"stuck","caller":"laptop"`, `"code":"timeout"`, `"code":"internal"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the REST calls are not logged as MCP calls are: no %s in\n%s", want, logs)
		}
	}
	if _, m := get(t, h.URL+"/metrics", map[string]string{"Authorization": "Bearer " + laptopToken}); !strings.Contains(m, `mcp_tool_calls_total{outcome="ok",tool="echo"}`) {
		t.Errorf("REST calls not in the metrics:\n%s", m)
	}
}

// openAPITools fetches path (an openapi.json) with the laptop's token and returns its tool
// paths, sorted.
func openAPITools(t *testing.T, url string) []string {
	t.Helper()
	code, _, raw := send(t, http.MethodGet, url, "", map[string]string{"Authorization": "Bearer " + laptopToken})
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, code, raw)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("GET %s: %v, openapi %q", url, err, doc.OpenAPI)
	}
	var names []string
	for p := range doc.Paths {
		names = append(names, strings.TrimPrefix(p, "/tools/"))
	}
	slices.Sort(names)
	return names
}

// TestRESTNarrowingAndSwitches: each narrowed MCP URL has its REST counterpart offering the
// same tools; a switched-off tool answers 409 disabled and leaves openapi.json; --read-only
// leaves out every tool that changes something.
func TestRESTNarrowingAndSwitches(t *testing.T) {
	h := mcptest.Start(t, toolsetSpec(), "--auth-tokens-file", writeTokens(t), "--state-dir", t.TempDir())
	for path, want := range map[string][]string{
		"/openapi.json":                   {"boom", "echo", "stuck", "write_thing"},
		"/readonly/openapi.json":          {"boom", "echo", "stuck"},
		"/x/talk/openapi.json":            {"echo"},
		"/x/change/readonly/openapi.json": nil,
		"/x/all/openapi.json":             {"boom", "echo", "stuck", "write_thing"},
	} {
		if got := openAPITools(t, h.URL+path); !slices.Equal(got, want) {
			t.Errorf("%s lists %v, want %v", path, got, want)
		}
	}
	calls := []struct {
		path, body string
		status     int
		code       string
	}{
		{"/x/talk/tools/echo", `{"text":"hi"}`, 200, ""},
		{"/x/talk/tools/write_thing", `{}`, 404, "not_found"},
		{"/readonly/tools/write_thing", `{}`, 404, "not_found"},
		{"/readonly/tools/echo", `{"text":"hi"}`, 200, ""},
	}
	for _, c := range calls {
		if code, _, a := restDo(t, "POST", h.URL+c.path, c.body, nil); code != c.status || errCode(a) != c.code {
			t.Errorf("%s: %d %+v, want %d %q", c.path, code, a.Error, c.status, c.code)
		}
	}

	if _, err := h.Server.SetSwitches(switches.State{Format: switches.Format, Version: 1, Tools: []string{"echo"}}); err != nil {
		t.Fatal(err)
	}
	code, _, a := restDo(t, "POST", h.URL+"/tools/echo", `{"text":"hi"}`, nil)
	if code != http.StatusConflict || errCode(a) != "disabled" || !strings.Contains(a.Error.Message, "disabled") {
		t.Errorf("a switched-off tool: %d %+v, want 409 disabled", code, a.Error)
	}
	if got := openAPITools(t, h.URL+"/openapi.json"); slices.Contains(got, "echo") {
		t.Errorf("a switched-off tool is still in openapi.json: %v", got)
	}
	if _, err := h.Server.SetSwitches(switches.State{Format: switches.Format, Version: 2, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if got := openAPITools(t, h.URL+"/openapi.json"); !slices.Equal(got, []string{"boom", "echo", "stuck"}) {
		t.Errorf("fleet read-only: openapi.json lists %v", got)
	}
	if code, _, a := restDo(t, "POST", h.URL+"/tools/write_thing", `{}`, nil); code != http.StatusConflict || errCode(a) != "disabled" {
		t.Errorf("fleet read-only, a write: %d %+v, want 409 disabled", code, a.Error)
	}

	ro := mcptest.Start(t, toolsetSpec(), "--auth-tokens-file", writeTokens(t), "--read-only")
	if got := openAPITools(t, ro.URL+"/openapi.json"); !slices.Equal(got, []string{"boom", "echo", "stuck"}) {
		t.Errorf("--read-only: openapi.json lists %v", got)
	}
	if code, _, a := restDo(t, "POST", ro.URL+"/tools/write_thing", `{}`, nil); code != http.StatusNotFound || !strings.Contains(a.Error.Message, "--read-only") {
		t.Errorf("--read-only, a write: %d %+v, want 404 naming --read-only", code, a.Error)
	}
}

// TestRESTOAuth: the REST routes take the OAuth tokens of their MCP URL, answer a missing one
// with /mcp's challenge and a read-only one's write call with 403 insufficient_scope.
func TestRESTOAuth(t *testing.T) {
	is := issuertest.Start(t)
	const public = "https://kittest.example.com"
	h := mcptest.Start(t, toolsetSpec(), "--oauth-issuer", is.URL, "--public-url", public)
	_, mcpHdr, _ := post(t, h.URL+"/mcp/x/talk", initBody, nil)
	code, hdr, a := restDo(t, "POST", h.URL+"/x/talk/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": ""})
	if code != http.StatusUnauthorized || errCode(a) != "unauthorized" || hdr.Get("WWW-Authenticate") != mcpHdr.Get("WWW-Authenticate") || hdr.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: %d %+v %q, want 401 and /mcp/x/talk's challenge %q", code, a.Error, hdr.Get("WWW-Authenticate"), mcpHdr.Get("WWW-Authenticate"))
	}
	read := "Bearer " + is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "kittest:read"})
	code, hdr, a = restDo(t, "POST", h.URL+"/tools/write_thing", `{}`, map[string]string{"Authorization": read})
	if code != http.StatusForbidden || errCode(a) != "insufficient_scope" || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Errorf("a read-only token's write: %d %+v %q", code, a.Error, hdr.Get("WWW-Authenticate"))
	}
	if code, _, a = restDo(t, "POST", h.URL+"/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": read}); code != http.StatusOK || a.Text != "echo: hi" {
		t.Errorf("a read-only token's read: %d %+v", code, a.Error)
	}
	narrow := "Bearer " + is.Mint(t, issuertest.Token{Audience: public + "/mcp/x/talk", Scope: "kittest:read kittest:write"})
	if code, _, a = restDo(t, "POST", h.URL+"/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": narrow}); code != http.StatusUnauthorized {
		t.Errorf("a token for /mcp/x/talk at the wider /tools/echo: %d %+v, want 401", code, a.Error)
	}
	if code, _, a = restDo(t, "POST", h.URL+"/x/talk/tools/echo", `{"text":"hi"}`, map[string]string{"Authorization": narrow}); code != http.StatusOK {
		t.Errorf("a token for /mcp/x/talk at /x/talk/tools/echo: %d %+v, want 200", code, a.Error)
	}
}

// TestRESTClientGone: a REST client that goes away cancels its call, as an MCP client does.
func TestRESTClientGone(t *testing.T) {
	causes := make(chan error, 1)
	spec := toolsetSpec()
	setup := spec.Setup
	spec.Setup = func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "wait", Toolset: "talk", Description: "Wait until cancelled.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, empty, error) {
				<-ctx.Done()
				causes <- kit.StopCause(ctx)
				return nil, empty{}, ctx.Err()
			})
		return setup(s)
	}
	h := mcptest.Start(t, spec, "--auth-tokens-file", writeTokens(t))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL+"/tools/wait", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+laptopToken)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the call answered %d before the client left", resp.StatusCode)
	}
	select {
	case cause := <-causes:
		if !errors.Is(cause, kit.ErrClientGone) {
			t.Errorf("stop cause %v, want ErrClientGone", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not cancelled when its client went away")
	}
}
