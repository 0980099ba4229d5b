package envelope

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func TestParseBody(t *testing.T) {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + params + `}`
	}
	tests := []struct {
		name  string
		body  string
		want  *Envelope
		error string // part of the error, "" for none
	}{
		{"a call", call(`{"name":"echo","arguments":{"text":"hi","n":2}}`),
			&Envelope{Messages: []Message{{Method: "tools/call", Tool: "echo", Arguments: map[string]any{"text": "hi", "n": 2.0}, HasArguments: true, ID: 3.0}}}, ""},
		{"params before method", `{"params":{"arguments":{"a":[1,{"b":null}]},"name":"echo","_meta":{"progressToken":"p"}},"id":1,"method":"tools/call","jsonrpc":"2.0"}`,
			&Envelope{Messages: []Message{{Method: "tools/call", Tool: "echo", Arguments: map[string]any{"a": []any{1.0, map[string]any{"b": nil}}}, HasArguments: true, ID: 1.0}}}, ""},
		{"a call without arguments", call(`{"name":"echo"}`), &Envelope{Messages: []Message{{Method: "tools/call", Tool: "echo", ID: 3.0}}}, ""},
		{"null arguments", call(`{"name":"echo","arguments":null}`), &Envelope{Messages: []Message{{Method: "tools/call", Tool: "echo", HasArguments: true, ID: 3.0}}}, ""},
		{"another method keeps no params", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"name":"x","arguments":{"a":1},"capabilities":{}}}`,
			&Envelope{Messages: []Message{{Method: "initialize", ID: 1.0}}}, ""},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, &Envelope{Messages: []Message{{Method: "notifications/initialized"}}}, ""},
		{"params that are not an object", call(`[1,2]`), &Envelope{Messages: []Message{{Method: "tools/call", ID: 3.0}}}, ""},
		{"a batch", " \n[" + call(`{"name":"a"}`) + `,{"jsonrpc":"2.0","id":4,"method":"ping"},` + call(`{"name":"b","arguments":{}}`) + "]",
			&Envelope{Batch: true, Messages: []Message{{Method: "tools/call", Tool: "a", ID: 3.0}, {Method: "ping", ID: 4.0}, {Method: "tools/call", Tool: "b", Arguments: map[string]any{}, HasArguments: true, ID: 3.0}}}, ""},
		{"name twice", call(`{"name":"write","name":"echo"}`), nil, `repeats a key: "name"`},
		{"arguments in two cases", call(`{"name":"echo","arguments":{},"Arguments":{"x":1}}`), nil, `repeats a key: "Arguments"`},
		{"method in two cases", `{"Method":"ping","method":"tools/call","params":{"name":"w"}}`, nil, `repeats a key: "method"`},
		{"a Kelvin sign", call(`{"name":"w","\u212Aey":1,"key":2}`), nil, "repeats a key"},
		{"a repeated key in a batch", `[{"method":"ping","id":1,"id":2}]`, nil, `repeats a key: "id"`},
		{"only another case", call(`{"Name":"write","arguments":{}}`), &Envelope{Messages: []Message{{Method: "tools/call", Arguments: map[string]any{}, HasArguments: true, ID: 3.0}}}, ""},
		{"a cancellation", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"Esc","requestId":"7"}}`,
			&Envelope{Messages: []Message{{Method: "notifications/cancelled", Cancels: "7"}}}, ""},
		{"a cancellation of a number", `{"method":"notifications/cancelled","params":{"requestId":12}}`,
			&Envelope{Messages: []Message{{Method: "notifications/cancelled", Cancels: 12.0}}}, ""},
		{"not JSON", `{"jsonrpc":`, &Envelope{}, ""},
		{"two values", call(`{"name":"a"}`) + call(`{"name":"b"}`), &Envelope{}, ""},
		{"a string", `"tools/call"`, &Envelope{}, ""},
		{"empty", ``, &Envelope{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBody([]byte(tt.body))
			if tt.error != "" {
				if !errors.Is(err, ErrRepeatedKey) || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("error %v, want ErrRepeatedKey with %q", err, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Messages, tt.want.Messages) || got.Batch != tt.want.Batch {
				t.Errorf("got %+v (batch %v)\nwant %+v (batch %v)", got.Messages, got.Batch, tt.want.Messages, tt.want.Batch)
			}
		})
	}
}

func TestCallsAndCall(t *testing.T) {
	one := &Envelope{Messages: []Message{{Method: "ping"}, {Method: "tools/call", Tool: "echo", Arguments: map[string]any{"a": 1.0}, HasArguments: true}}}
	if got := one.Calls(); !reflect.DeepEqual(got, []string{"echo"}) {
		t.Errorf("Calls = %v", got)
	}
	if m, ok := one.Call("echo"); !ok || !reflect.DeepEqual(m.Arguments, map[string]any{"a": 1.0}) {
		t.Errorf("Call(echo) = %+v %v", m, ok)
	}
	if _, ok := one.Call("other"); ok {
		t.Error("Call of a tool the envelope does not call")
	}
	two := &Envelope{Batch: true, Messages: []Message{{Method: "tools/call", Tool: "echo"}, {Method: "tools/call", Tool: "echo"}}}
	if _, ok := two.Call("echo"); ok {
		t.Error("Call matched one of two calls of a batch")
	}
	cancels := &Envelope{Batch: true, Messages: []Message{{Method: "notifications/cancelled", Cancels: 3.0}, {Method: "notifications/cancelled"}, {Method: "ping", ID: 4.0}}}
	if got := cancels.Cancelled(); !reflect.DeepEqual(got, []any{3.0}) {
		t.Errorf("Cancelled = %v, want [3]", got)
	}
}

// TestRead: the body is read once and put back whole for the MCP layer; past the body limit
// the error is the limit's.
func TestRead(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	env, err := Read(r)
	if err != nil || len(env.Messages) != 1 || env.Messages[0].Tool != "echo" {
		t.Fatalf("Read = %+v %v", env, err)
	}
	again, err := io.ReadAll(r.Body)
	if err != nil || string(again) != body {
		t.Errorf("the body put back is %q %v", again, err)
	}
	w := httptest.NewRecorder()
	big := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	big.Body = http.MaxBytesReader(w, big.Body, 10)
	var tooLarge *http.MaxBytesError
	if _, err := Read(big); !errors.As(err, &tooLarge) {
		t.Errorf("a body past the limit: %v, want *http.MaxBytesError", err)
	}
	if env, err := Read(httptest.NewRequest(http.MethodGet, "/mcp", nil)); err != nil || len(env.Messages) != 0 {
		t.Errorf("a GET: %+v %v", env, err)
	}
}

// BenchmarkParseBody is the kit's one parse of a tools/call body (the calculator's evaluate).
func BenchmarkParseBody(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"evaluate","arguments":{"expression":"2+3*4"}}}`)
	b.ReportAllocs()
	for range b.N {
		if env, err := ParseBody(body); err != nil || env.Messages[0].Tool != "evaluate" {
			b.Fatal(env, err)
		}
	}
}
