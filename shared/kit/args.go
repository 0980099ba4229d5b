package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// args decodes and validates one tool's arguments. It does with the standard library, once,
// what the go-sdk's typed AddTool does through several passes of its JSON decoder, which
// allocates a 32 KiB buffer on each pass: on the calculator that was most of the server's
// CPU time per call. TestParity holds it to the same checks as the SDK's path.
type args[In any] struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	defaults bool            // some argument has a default, so decoding goes through the generic value
	empty    map[string]bool // arguments for which "" means absent (see emptyAbsent)
}

func newArgs[In any]() (*args[In], error) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("arguments must be a struct, got %q", schema.Type)
	}
	if err := constrain(reflect.TypeFor[In](), schema, ""); err != nil {
		return nil, err
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	return &args[In]{schema: schema, resolved: resolved, defaults: hasDefaults(schema), empty: emptyAbsent(schema)}, nil
}

// decode validates raw against the input schema, applies the schema's defaults for absent
// arguments and unmarshals the result.
func (a *args[In]) decode(raw json.RawMessage) (In, error) {
	var in In
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, fmt.Errorf("invalid arguments: %w; send a JSON object matching the tool's input schema", err)
	}
	reencode := a.defaults
	if obj, ok := generic.(map[string]any); ok && len(a.empty) > 0 {
		for k, v := range obj {
			if v == "" && a.empty[k] {
				delete(obj, k)
				reencode = true
			}
		}
	}
	if err := a.resolved.Validate(generic); err != nil {
		if msg := explain(a.schema, generic, ""); msg != "" {
			return in, fmt.Errorf("invalid arguments: %s", msg)
		}
		return in, fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	if reencode {
		if err := a.resolved.ApplyDefaults(&generic); err != nil {
			return in, fmt.Errorf("applying the input schema's defaults: %w", err)
		}
		b, err := json.Marshal(generic)
		if err != nil {
			return in, fmt.Errorf("applying the input schema's defaults: %w", err)
		}
		raw = b
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	return in, nil
}
