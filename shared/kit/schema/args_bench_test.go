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

// BenchmarkArgsDecode is the kit's share of decoding one tool call's arguments:
//   - "from the envelope": over HTTP, the request's envelope decoded the arguments already;
//     they are validated and the input filled from that value, with no JSON decode here;
//   - "from JSON": over stdio, one decode into a generic value, validated, and the input
//     filled from it (two decodes, the generic and the typed, before the assigner);
//   - "validation only" and "typed decode only": the parts, for scale.
func BenchmarkArgsDecode(b *testing.B) {
	a, err := NewArgs[benchIn]()
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"expression":"2+3*4"}`)
	var parsed any
	if err := json.Unmarshal(raw, &parsed); err != nil {
		b.Fatal(err)
	}
	b.Run("from the envelope", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			// No argument is null or pulled, so the value is not changed and can be reused.
			if in, _, err := a.DecodeParsed(parsed, raw, nil); err != nil || in.Expression != "2+3*4" {
				b.Fatalf("decode = %+v, %v", in, err)
			}
		}
	})
	b.Run("from JSON", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if in, err := a.Decode(raw); err != nil || in.Expression != "2+3*4" {
				b.Fatalf("decode = %+v, %v", in, err)
			}
		}
	})
	b.Run("validation only", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := a.resolved.Validate(parsed); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed decode only", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var in benchIn
			if err := json.Unmarshal(raw, &in); err != nil || in.Expression != "2+3*4" {
				b.Fatalf("unmarshal = %+v, %v", in, err)
			}
		}
	})
}
