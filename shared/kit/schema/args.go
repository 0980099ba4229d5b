package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Args decodes and validates one tool's arguments. It does with the standard library, once,
// what the go-sdk's typed AddTool does through several passes of its JSON decoder, which
// allocates a 32 KiB buffer on each pass: on the calculator that was most of the server's
// CPU time per call. Defaults are set on the decoded struct rather than by encoding the
// arguments again. TestParity holds it to the same checks as the SDK's path.
type Args[In any] struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	defaults []fieldDefault     // top-level arguments with a default
	optional map[string][]int   // optional top-level arguments by name, with their field index: null means absent
	empty    map[string]bool    // optional enum arguments for which "" means absent too
	generic  bool               // defaults the fast path cannot set: decode through the generic value
	listed   *jsonschema.Schema // the schema tools/list shows, with the server's common arguments; nil when it is schema
	assign   assigner           // fills In from the decoded arguments without decoding again; nil when it cannot
}

// Schema is the full input schema the arguments are validated against.
func (a *Args[In]) Schema() *jsonschema.Schema { return a.schema }

// ShowAs sets the schema tools/list shows for the tool (Schema with the server's common
// arguments), which explanations of bad arguments name.
func (a *Args[In]) ShowAs(listed *jsonschema.Schema) { a.listed = listed }

// Listed is the schema tools/list shows: ShowAs's, else Schema.
func (a *Args[In]) Listed() *jsonschema.Schema {
	if a.listed != nil {
		return a.listed
	}
	return a.schema
}

// fieldDefault is one top-level argument's default, decoded once into its field's type; a
// default that holds references (a list, a map, a pointer) is decoded afresh for each call, so
// that no handler can change what the next call gets.
type fieldDefault struct {
	name  string
	index []int
	value reflect.Value
	raw   json.RawMessage // set when the value must be decoded afresh
}

func (d fieldDefault) get() reflect.Value {
	if d.raw == nil {
		return d.value
	}
	v := reflect.New(d.value.Type())
	_ = json.Unmarshal(d.raw, v.Interface()) // decoded once at registration already
	return v.Elem()
}

// NewArgs infers the input schema of In, applies its schema tags and prepares its decoding;
// a mistake in the tags is an error.
func NewArgs[In any]() (*Args[In], error) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("arguments must be a struct, got %q", schema.Type)
	}
	t := reflect.TypeFor[In]()
	if err := constrain(t, schema, ""); err != nil {
		return nil, err
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	a := &Args[In]{schema: schema, resolved: resolved, optional: map[string][]int{}, empty: emptyAbsent(schema), generic: nestedDefaults(schema), assign: assignerFor(t)}
	if t.Kind() != reflect.Struct {
		a.generic = true
		return a, nil
	}
	for _, f := range jsonFields(t) {
		prop := schema.Properties[f.name]
		if prop == nil {
			continue
		}
		if f.viaPointer {
			a.generic = a.generic || prop.Default != nil || a.empty[f.name] // the embedded pointer may be nil
			continue
		}
		if !slices.Contains(schema.Required, f.name) {
			a.optional[f.name] = f.index
		}
		if prop.Default != nil {
			v := reflect.New(f.typ)
			if err := json.Unmarshal(prop.Default, v.Interface()); err != nil {
				return nil, fmt.Errorf("argument %s: default %s: %w", f.name, prop.Default, err)
			}
			d := fieldDefault{name: f.name, index: f.index, value: v.Elem()}
			switch f.typ.Kind() {
			case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Struct:
				d.raw = prop.Default
			}
			a.defaults = append(a.defaults, d)
		}
	}
	return a, nil
}

// Decode validates raw against the input schema, applies the schema's defaults for absent
// arguments and unmarshals the result.
func (a *Args[In]) Decode(raw json.RawMessage) (In, error) {
	in, _, err := a.DecodeWith(raw, nil)
	return in, err
}

// DecodeWith is Decode that first takes the arguments named in pull out of raw (a server's
// common arguments, which the handler does not see) and returns those given, not null.
func (a *Args[In]) DecodeWith(raw json.RawMessage, pull []string) (In, map[string]any, error) {
	var generic any
	if len(bytes.TrimSpace(raw)) != 0 {
		if err := json.Unmarshal(raw, &generic); err != nil {
			var in In
			return in, nil, fmt.Errorf("invalid arguments: %w; send a JSON object matching the tool's input schema", err)
		}
	}
	return a.DecodeParsed(generic, raw, pull)
}

// DecodeParsed is DecodeWith for arguments parsed already (the request's envelope read them):
// generic is raw as encoding/json decodes it into an any, and becomes the call's to change.
// The input is filled from generic; raw is decoded only for an input the direct assignment
// cannot fill exactly (see assign.go).
func (a *Args[In]) DecodeParsed(generic any, raw json.RawMessage, pull []string) (In, map[string]any, error) {
	var in In
	var pulled map[string]any
	if generic == nil {
		generic = map[string]any{} // absent or null arguments: none
	}
	obj, _ := generic.(map[string]any)
	for _, name := range pull {
		if v, ok := obj[name]; ok {
			delete(obj, name)
			if v != nil {
				if pulled == nil {
					pulled = map[string]any{}
				}
				pulled[name] = v
			}
		}
	}
	// An optional argument sent as null, or as "" where "" is not an allowed value, is absent:
	// its default applies. Models send both for "none".
	var emptied []string
	for name, v := range obj {
		if _, ok := a.optional[name]; ok && (v == nil || (v == "" && a.empty[name])) {
			delete(obj, name)
			emptied = append(emptied, name)
		}
	}
	if err := a.resolved.Validate(generic); err != nil {
		if msg := explain(a.Listed(), generic, ""); msg != "" {
			return in, nil, fmt.Errorf("invalid arguments: %s", msg)
		}
		return in, nil, fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	if a.generic {
		if err := a.resolved.ApplyDefaults(&generic); err != nil {
			return in, nil, fmt.Errorf("applying the input schema's defaults: %w", err)
		}
	}
	if err := a.fill(&in, generic, raw); err != nil {
		return in, nil, err
	}
	if a.generic || (len(a.defaults) == 0 && len(emptied) == 0) {
		return in, pulled, nil
	}
	v := reflect.ValueOf(&in).Elem()
	for _, name := range emptied {
		v.FieldByIndex(a.optional[name]).SetZero()
	}
	for _, d := range a.defaults {
		if _, given := obj[d.name]; !given {
			v.FieldByIndex(d.index).Set(d.get())
		}
	}
	return in, pulled, nil
}

// fill sets in from the validated arguments: directly from generic when the assigner can, else
// by decoding the JSON, raw's or, with the schema's defaults applied, generic's.
func (a *Args[In]) fill(in *In, generic any, raw json.RawMessage) error {
	if a.assign != nil {
		err := a.assign(reflect.ValueOf(in).Elem(), generic)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errInexact) {
			return err
		}
		var zero In
		*in = zero
	}
	if a.generic || len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		b, err := json.Marshal(generic)
		if err != nil {
			return fmt.Errorf("applying the input schema's defaults: %w", err)
		}
		raw = b
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)
	}
	return nil
}
