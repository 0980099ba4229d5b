package kit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets a test run this binary as a stdio server child (see TestStdioSubprocess).
func TestMain(m *testing.M) {
	if os.Getenv("KIT_STDIO_CHILD") == "1" {
		os.Exit(kit.Run(context.Background(), slowSpec(), []string{"--transport", "stdio"}, func(string) string { return "" }, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// slowSpec is testSpec with a tool that takes 400ms.
func slowSpec() kit.Spec {
	spec := testSpec(nil)
	inner := spec.Setup
	spec.Setup = func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "slow", Description: "Take 400ms.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, echoOut, error) {
				select {
				case <-time.After(400 * time.Millisecond):
					return nil, echoOut{Echo: "done"}, nil
				case <-ctx.Done():
					return nil, echoOut{}, ctx.Err()
				}
			})
		return inner(s)
	}
	return spec
}

func initialize(id int, version string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`
}

func call(id int, tool string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

func itoa(i int) string { return strings.TrimSpace(string(must(json.Marshal(i)))) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

const (
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listTools   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// response is what the test reads back from stdout.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool              `json:"isError"`
		Content []json.RawMessage `json:"content"`
		Tools   []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct{ Message string } `json:"error"`
}

// pipeServer serves a stdio session over pipes: it writes the lines, closes stdin, and returns
// every line the server wrote before ServeIO returned, and how long that took after the close.
func pipeServer(t *testing.T, spec kit.Spec, lines ...string) ([]string, time.Duration) {
	t.Helper()
	cfg, err := config.Parse(spec.Name, spec.Port, []string{"--transport", "stdio"}, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kit.New(spec, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- s.ServeIO(t.Context(), inR, outW)
		outW.Close()
	}()
	var got []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
	}()
	for _, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	closed := time.Now()
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeIO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after stdin closed")
	}
	took := time.Since(closed)
	<-read
	return got, took
}

func ids(t *testing.T, lines []string) ([]string, map[string]response) {
	t.Helper()
	var out []string
	byID := map[string]response{}
	for _, l := range lines {
		var batch []response
		if strings.HasPrefix(l, "[") {
			if err := json.Unmarshal([]byte(l), &batch); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
		} else {
			var r response
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			batch = []response{r}
		}
		for _, r := range batch {
			if r.ID == nil {
				continue // a notification
			}
			out = append(out, string(r.ID))
			byID[string(r.ID)] = r
		}
	}
	slices.Sort(out)
	return out, byID
}

func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		wantIDs []string
		mayAlso string // an id that may be answered or not
		check   func(t *testing.T, byID map[string]response)
		minTook time.Duration
		maxTook time.Duration
	}{
		{
			name:    "initialize, list, a slow call",
			lines:   []string{initialize(1, "2025-11-25"), initialized, listTools, call(3, "slow")},
			wantIDs: []string{"1", "2", "3"},
			check: func(t *testing.T, byID map[string]response) {
				if r := byID["2"]; r.Result == nil || len(r.Result.Tools) != 5 {
					t.Errorf("tools/list answer = %+v", r)
				}
				if r := byID["3"]; r.Result == nil || r.Result.IsError || !strings.Contains(string(r.Result.Content[0]), "done") {
					t.Errorf("slow call answer = %+v", r.Result)
				}
			},
			minTook: 200 * time.Millisecond, maxTook: 3 * time.Second,
		},
		{
			name:    "a call that outlives its timeout is answered at the timeout",
			lines:   []string{initialize(1, "2025-11-25"), initialized, call(7, "stuck")},
			wantIDs: []string{"1", "7"},
			check: func(t *testing.T, byID map[string]response) {
				if r := byID["7"]; r.Result == nil || !r.Result.IsError || !strings.Contains(string(r.Result.Content[0]), "abandoned") {
					t.Errorf("stuck call answer = %+v", r.Result)
				}
			},
			minTook: 200 * time.Millisecond, maxTook: 2 * time.Second,
		},
		{
			name:    "a batch (2025-03-26)",
			lines:   []string{initialize(1, "2025-03-26"), initialized, "[" + listTools + "," + call(3, "slow") + "]"},
			wantIDs: []string{"1", "2", "3"},
			minTook: 200 * time.Millisecond, maxTook: 3 * time.Second,
		},
		{
			name:    "string ids",
			lines:   []string{strings.Replace(initialize(1, "2025-11-25"), `"id":1`, `"id":"a"`, 1), initialized, strings.Replace(call(3, "slow"), `"id":3`, `"id":"b"`, 1)},
			wantIDs: []string{`"a"`, `"b"`},
			minTook: 200 * time.Millisecond, maxTook: 3 * time.Second,
		},
		{
			name:    "nothing in flight: stops at once",
			lines:   []string{initialize(1, "2025-11-25"), initialized},
			wantIDs: []string{"1"},
			maxTook: time.Second,
		},
		{
			name: "a cancelled call is not waited for",
			lines: []string{initialize(1, "2025-11-25"), initialized, call(5, "slow"),
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`},
			wantIDs: []string{"1"},
			mayAlso: "5", // answered when the cancellation lands after the call started
			// Answered or not (the go-sdk answers it unless the cancellation wins the race with
			// the call's start), a cancelled call does not hold the end of input.
			maxTook: time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, took := pipeServer(t, slowSpec(), tt.lines...)
			got, byID := ids(t, lines)
			if tt.mayAlso != "" {
				got = slices.DeleteFunc(got, func(id string) bool { return id == tt.mayAlso })
			}
			if !slices.Equal(got, tt.wantIDs) {
				t.Fatalf("answered ids %v, want %v; output:\n%s", got, tt.wantIDs, strings.Join(lines, "\n"))
			}
			if tt.check != nil {
				tt.check(t, byID)
			}
			if took < tt.minTook || took > tt.maxTook {
				t.Errorf("stopped %s after stdin closed, want %s to %s", took, tt.minTook, tt.maxTook)
			}
		})
	}
}

// TestStdioSubprocess pipes a session into a real server process, closes its stdin, and
// expects every answer and a clean exit.
func TestStdioSubprocess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "KIT_STDIO_CHILD=1")
	cmd.Stdin = strings.NewReader(strings.Join([]string{initialize(1, "2025-11-25"), initialized, listTools, call(3, "slow")}, "\n") + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("server: %v\n%s", err, stderr.String())
	}
	got, _ := ids(t, strings.Split(strings.TrimSpace(string(out)), "\n"))
	if !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Fatalf("answered ids %v, want [1 2 3]; stdout:\n%s\nstderr:\n%s", got, out, stderr.String())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the server took %s to exit", took)
	}
}

// TestStdioBadLines pipes lines that are not JSON-RPC, and calls made before initialize, into
// a real server process: each gets its JSON-RPC error code, and the session goes on to answer
// the requests after them and exit cleanly at the end of stdin.
func TestStdioBadLines(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := []string{
		"hello",
		`{"jsonrpc":"2.0","id":11,"method":"tools/list"}`, // before initialize
		`{"jsonrpc":"2.0","id":12,"method":"nope"}`,       // before initialize
		`{"id":13,"foo":1}`,                               // JSON, no jsonrpc version
		`42`,
		`[]`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, // an id that is neither string nor number
		`{"jsonrpc":"2.0","id":14,`,                      // cut short
		initialize(1, "2025-11-25"), initialized,
		`not json either`,
		listTools,
		`{"jsonrpc":"2.0","id":15,"method":"nope"}`,
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "KIT_STDIO_CHILD=1")
	cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("server: %v\n%s", err, stderr.String())
	}
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		switch {
		case a.Error != nil:
			got = append(got, string(a.ID)+" "+itoa(a.Error.Code))
		case a.Result != nil:
			got = append(got, string(a.ID)+" ok")
		}
	}
	want := []string{
		"null -32700",
		"11 -32600", "12 -32600",
		"13 -32600", "null -32600", "null -32600", "null -32600",
		"null -32700",
		"1 ok",
		"null -32700",
		"2 ok",
		"15 -32601",
	}
	// The kit answers bad lines at once, the SDK the rest in its own time: compare as sets.
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("answers\n%v\nwant\n%v\nstdout:\n%s\nstderr:\n%s", got, want, out, stderr.String())
	}
	if !strings.Contains(string(out), `"message":"Parse error: the line is not JSON`) || !strings.Contains(string(out), "send initialize first") {
		t.Errorf("messages do not say what is wrong:\n%s", out)
	}
}
