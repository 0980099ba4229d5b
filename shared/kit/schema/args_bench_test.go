package schema

import (
	"encoding/json"
	"testing"
)

// benchIn is the calculator's evaluate arguments: one required string, one optional number.
type benchIn struct {
	Expression string `json:"expression" jsonschema:"the expression"`
	Precision  int    `json:"precision,omitempty" jsonschema:"significant digits"`
}

// BenchmarkArgsDecode is the kit's share of decoding one tool call's arguments: the generic
// parse the schema validation needs plus the typed decode ("kit"), against each part alone: the
// generic parse with the validation, and the typed decode, the most that folding the two parses
// into one could save.
func BenchmarkArgsDecode(b *testing.B) {
	a, err := NewArgs[benchIn]()
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"expression":"2+3*4"}`)
	b.Run("kit", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if in, err := a.Decode(raw); err != nil || in.Expression != "2+3*4" {
				b.Fatalf("decode = %+v, %v", in, err)
			}
		}
	})
	b.Run("generic and validation only", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var generic any
			if err := json.Unmarshal(raw, &generic); err != nil {
				b.Fatal(err)
			}
			if err := a.resolved.Validate(generic); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed only", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var in benchIn
			if err := json.Unmarshal(raw, &in); err != nil || in.Expression != "2+3*4" {
				b.Fatalf("unmarshal = %+v, %v", in, err)
			}
		}
	})
}
