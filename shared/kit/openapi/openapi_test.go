package openapi

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestBuild(t *testing.T) {
	tools := []Tool{
		{Name: "evaluate", Title: "Evaluate", Description: "Do math.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"string"}}}`),
			Annotations:  json.RawMessage(`{"readOnlyHint":true}`)},
		{Name: "ping", Description: "No arguments, no output schema."},
	}
	tests := []struct {
		name     string
		info     Info
		server   string
		security bool
	}{
		{"tokens, root", Info{Title: "calc", Version: "1", Bearer: true}, "/", true},
		{"local only, narrowed", Info{Title: "calc", Version: "1", Base: "/x/math"}, "/x/math", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Build(tt.info, tools)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				OpenAPI  string                 `json:"openapi"`
				Servers  []struct{ URL string } `json:"servers"`
				Security []map[string][]string  `json:"security"`
				Paths    map[string]struct {
					Post struct {
						OperationID string `json:"operationId"`
						Summary     string `json:"summary"`
						RequestBody struct {
							Content map[string]struct{ Schema map[string]any } `json:"content"`
						} `json:"requestBody"`
						Responses   map[string]map[string]any `json:"responses"`
						Annotations map[string]any            `json:"x-mcp-annotations"`
					} `json:"post"`
				} `json:"paths"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.OpenAPI != Version || len(doc.Servers) != 1 || doc.Servers[0].URL != tt.server || (len(doc.Security) == 1) != tt.security {
				t.Errorf("openapi %q servers %v security %v", doc.OpenAPI, doc.Servers, doc.Security)
			}
			var paths []string
			for p := range doc.Paths {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			if !slices.Equal(paths, []string{"/tools/evaluate", "/tools/ping"}) {
				t.Fatalf("paths %v", paths)
			}
			ev, ping := doc.Paths["/tools/evaluate"].Post, doc.Paths["/tools/ping"].Post
			if ev.OperationID != "evaluate" || ev.Summary != "Evaluate" || ping.Summary != "ping" || ev.Annotations["readOnlyHint"] != true {
				t.Errorf("operations: %+v %+v", ev, ping)
			}
			if req := ev.RequestBody.Content["application/json"].Schema; req["required"] == nil {
				t.Errorf("evaluate's request body is not its input schema: %v", req)
			}
			if req := ping.RequestBody.Content["application/json"].Schema; req["type"] != "object" {
				t.Errorf("ping's request body: %v", req)
			}
			if _, ok := ev.Responses["401"]; ok != tt.security {
				t.Errorf("a 401 answer listed: %v, want %v", ok, tt.security)
			}
			for _, code := range []string{"200", "400", "404", "409", "504"} {
				if ev.Responses[code] == nil {
					t.Errorf("no %s answer", code)
				}
			}
		})
	}
}
