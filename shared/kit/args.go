package kit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// args decodes and validates one tool's arguments. It does with the standard library, once,
// what the go-sdk's typed AddTool does through several passes of its JSON decoder, which
// allocates a 32 KiB buffer on each pass: on the calculator that was most of the server's
// CPU time per call.
type args[In any] struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

func newArgs[In any]() (*args[In], error) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("arguments must be a struct, got %q", schema.Type)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &args[In]{schema: schema, resolved: resolved}, nil
}

// decode validates raw against the input schema and unmarshals it.
func (a *args[In]) decode(raw json.RawMessage) (In, error) {
	var in In
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, fmt.Errorf("invalid arguments: %w; send a JSON object matching the tool's input schema", err)
	}
	if err := a.resolved.Validate(generic); err != nil {
		return in, fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	return in, nil
}
