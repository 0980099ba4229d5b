package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The parity tool: constrained arguments with defaults, a nested object, a list, and an
// output whose shape a test can break on purpose.
type parityIn struct {
	Query  string   `json:"query" jsonschema:"what to look for" schema:"minLength=1,maxLength=20"`
	Order  string   `json:"order,omitempty" jsonschema:"the order of the results" schema:"enum=newest|oldest|relevance,default=relevance"`
	Limit  int      `json:"limit,omitempty" jsonschema:"how many results" schema:"minimum=1,maximum=50,default=10"`
	Exact  *bool    `json:"exact,omitempty" jsonschema:"match the whole word only" schema:"default=true"`
	Labels []string `json:"labels,omitempty" jsonschema:"labels to filter by" schema:"enum=work|home,maxItems=2"`
	Window *struct {
		Days int `json:"days" jsonschema:"how many days back" schema:"minimum=1,maximum=365"`
	} `json:"window,omitempty" jsonschema:"a time window"`
	Fail  string `json:"fail,omitempty" jsonschema:"test switch: error makes the handler fail, shape makes it return an output that breaks its schema" schema:"enum=error|shape"`
	Extra string `json:"extra,omitempty" jsonschema:"passed back as it is"`
}

// shapeBreaker marshals as a string although its schema (an int) says number: an output that
// breaks its own schema.
type shapeBreaker int

func (s shapeBreaker) MarshalJSON() ([]byte, error) {
	if s < 0 {
		return []byte(`"broken"`), nil
	}
	return json.Marshal(int(s))
}

type parityOut struct {
	Seen  parityIn     `json:"seen"`
	Count shapeBreaker `json:"count"`
}

// parityHandler records what it received, so both paths can be compared on the handler's side.
type parityHandler struct {
	mu   sync.Mutex
	seen []parityIn
}

func (p *parityHandler) handle(_ context.Context, _ *mcp.CallToolRequest, in parityIn) (*mcp.CallToolResult, parityOut, error) {
	p.mu.Lock()
	p.seen = append(p.seen, in)
	p.mu.Unlock()
	switch in.Fail {
	case "error":
		return nil, parityOut{}, errors.New("the handler failed: try another query")
	case "shape":
		return nil, parityOut{Seen: in, Count: -1}, nil
	}
	return nil, parityOut{Seen: in, Count: shapeBreaker(in.Limit)}, nil
}

func (p *parityHandler) last() (parityIn, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.seen) == 0 {
		return parityIn{}, 0
	}
	return p.seen[len(p.seen)-1], len(p.seen)
}

// TestParity runs one tool through the kit's AddTool and through the go-sdk's own, over real
// HTTP with the go-sdk client, and requires the same outcome for every input: the same
// arguments reach the handler (defaults applied), bad input is refused before the handler in
// the same shape, handler errors come back alike, and an output that breaks its schema is a
// protocol error on both. The kit's fast path may not drop a check the SDK makes.
func TestParity(t *testing.T) {
	ours := &parityHandler{}
	h := mcptest.Start(t, kit.Spec{Name: "parity", Port: 9999, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "find", Description: "Find things.", ReadOnly: true}, ours.handle)
		return nil
	}})
	kitSession := h.Connect(t, "")

	// The SDK gets the schemas the kit advertises, so both enforce the same contract.
	listed, err := kitSession.ListTools(t.Context(), nil)
	if err != nil || len(listed.Tools) != 1 {
		t.Fatalf("list tools: %v %v", listed, err)
	}
	inSchema := schemaOf(t, listed.Tools[0].InputSchema)
	for name, want := range map[string]string{"order": `"relevance"`, "limit": `10`, "exact": `true`} {
		if got := string(inSchema.Properties[name].Default); got != want {
			t.Errorf("advertised default of %s = %s, want %s", name, got, want)
		}
	}
	if got := inSchema.Properties["order"].Enum; len(got) != 3 {
		t.Errorf("advertised enum of order = %v", got)
	}
	if inSchema.AdditionalProperties != nil {
		t.Errorf("the listing shows additionalProperties %v: it leaves that to the kit", inSchema.AdditionalProperties)
	}
	// The listing leaves out "additionalProperties": false and a minLength of 1, which the kit
	// enforces whatever it shows; the SDK enforces only what its schema says, so it is told.
	inSchema.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	one := 1
	inSchema.Properties["query"].MinLength = &one
	theirs := &parityHandler{}
	sdk := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "0"}, nil)
	mcp.AddTool(sdk, &mcp.Tool{Name: "find", Description: "Find things.", InputSchema: inSchema}, theirs.handle)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdk }, nil))
	t.Cleanup(ts.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "0"}, nil)
	sdkSession, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to the bare SDK server: %v", err)
	}
	t.Cleanup(func() { _ = sdkSession.Close() })

	cases := []struct {
		name    string
		args    map[string]any
		outcome string // ok, refused (before the handler), failed (by the handler), protocol
		words   []string
	}{
		{"defaults applied", map[string]any{"query": "q"}, "ok", nil},
		{"given values kept", map[string]any{"query": "q", "order": "oldest", "limit": 3, "exact": false, "labels": []string{"work"}, "window": map[string]any{"days": 7}}, "ok", nil},
		{"bad enum", map[string]any{"query": "q", "order": "random"}, "refused", []string{"order", "newest"}},
		{"below minimum", map[string]any{"query": "q", "limit": 0}, "refused", []string{"limit", "1"}},
		{"above maximum", map[string]any{"query": "q", "limit": 51}, "refused", []string{"limit", "50"}},
		{"empty required string", map[string]any{"query": ""}, "refused", []string{"query"}},
		{"too long", map[string]any{"query": strings.Repeat("x", 21)}, "refused", []string{"query", "20"}},
		{"missing required", map[string]any{}, "refused", []string{"query"}},
		{"unknown argument", map[string]any{"query": "q", "qurey": "x"}, "refused", []string{"qurey"}},
		{"wrong type", map[string]any{"query": "q", "limit": "ten"}, "refused", []string{"limit"}},
		{"fraction for an integer", map[string]any{"query": "q", "limit": 2.5}, "refused", []string{"limit"}},
		{"bad list item", map[string]any{"query": "q", "labels": []string{"work", "play"}}, "refused", []string{"labels"}},
		{"list too long", map[string]any{"query": "q", "labels": []string{"work", "home", "work"}}, "refused", []string{"labels", "2"}},
		{"nested bound", map[string]any{"query": "q", "window": map[string]any{"days": 0}}, "refused", []string{"days"}},
		{"nested required", map[string]any{"query": "q", "window": map[string]any{}}, "refused", []string{"days"}},
		{"handler error", map[string]any{"query": "q", "fail": "error"}, "failed", []string{"try another query"}},
		{"output breaks its schema", map[string]any{"query": "q", "fail": "shape"}, "protocol", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := callBoth(t, kitSession, ours, tc.args)
			b := callBoth(t, sdkSession, theirs, tc.args)
			for _, r := range []struct {
				path string
				got  parityResult
			}{{"kit", a}, {"sdk", b}} {
				if r.got.outcome != tc.outcome {
					t.Fatalf("%s: outcome %s (%s), want %s", r.path, r.got.outcome, r.got.text, tc.outcome)
				}
			}
			if tc.outcome == "refused" {
				for _, w := range tc.words {
					if !strings.Contains(a.text, w) {
						t.Errorf("kit message %q does not name %q", a.text, w)
					}
				}
			}
			if tc.outcome == "failed" && a.text != b.text {
				t.Errorf("handler error text: kit %q, sdk %q", a.text, b.text)
			}
			if !reflect.DeepEqual(a.seen, b.seen) {
				t.Errorf("handler received different arguments:\n kit %+v\n sdk %+v", a.seen, b.seen)
			}
			if tc.outcome == "ok" && a.structured != b.structured {
				t.Errorf("structured output differs:\n kit %s\n sdk %s", a.structured, b.structured)
			}
		})
	}
	got, _ := mustSeen(t, ours, kitSession, map[string]any{"query": "q"})
	if got.Order != "relevance" || got.Limit != 10 || got.Exact == nil || !*got.Exact {
		t.Errorf("defaults not applied on the kit's path: %+v", got)
	}
}

type parityResult struct {
	outcome    string
	text       string
	structured string
	seen       *parityIn // what the handler received, nil when it did not run
}

// callBoth calls find on cs and classifies the outcome.
func callBoth(t *testing.T, cs *mcp.ClientSession, p *parityHandler, args map[string]any) parityResult {
	t.Helper()
	_, before := p.last()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "find", Arguments: args})
	var r parityResult
	if in, after := p.last(); after > before {
		r.seen = &in
	}
	switch {
	case err != nil:
		r.outcome, r.text = "protocol", err.Error()
	case res.IsError:
		r.outcome, r.text = "failed", mcptest.Text(res)
		if r.seen == nil {
			r.outcome = "refused"
		}
		if res.StructuredContent != nil {
			t.Errorf("an error result carries structured content: %v", res.StructuredContent)
		}
	default:
		r.outcome, r.text = "ok", mcptest.Text(res)
		b, _ := json.Marshal(res.StructuredContent)
		r.structured = string(b)
	}
	return r
}

func mustSeen(t *testing.T, p *parityHandler, cs *mcp.ClientSession, args map[string]any) (parityIn, parityResult) {
	t.Helper()
	r := callBoth(t, cs, p, args)
	if r.seen == nil {
		t.Fatalf("the handler did not run: %s %s", r.outcome, r.text)
	}
	return *r.seen, r
}

func schemaOf(t *testing.T, v any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
