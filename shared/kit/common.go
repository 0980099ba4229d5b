package kit

import (
	"context"
	"fmt"
	"maps"

	"github.com/google/jsonschema-go/jsonschema"
)

// CommonArg is an optional argument a server adds to every one of its tools (the Google
// servers' account). The kit lists it in each tool's input schema, takes it out of the
// arguments before the handler decodes them, validates it against Schema and hands its value to
// Bind, whose context the handler then runs with.
type CommonArg struct {
	Name   string             // the argument's name; no tool may have an argument of that name
	Schema *jsonschema.Schema // its schema, with a description; a string, number or boolean
	// Show, when set, returns what tools/list shows for the argument now instead of Schema, or
	// nil to leave it out of the list while it means nothing (the Google servers' account with
	// one account signed in); a call may give it all the same. When its answer changes, call
	// Server.RelistTools. The form shown needs a description like Schema.
	Show func() *jsonschema.Schema
	// Instructions, when set, is added to the server's instructions: what the argument means,
	// said once for every tool.
	Instructions string
	// Bind returns ctx carrying value for the handler, or the error the caller sees (wrap it
	// with Errorf and CodeInvalidInput, naming what to give instead). It is called only when the
	// argument is given, and not null or "".
	Bind func(ctx context.Context, value any) (context.Context, error)
}

type commonArg struct {
	CommonArg
	resolved *jsonschema.Resolved
}

// AddCommonArg adds an argument to every tool registered after it; call it in Setup before
// adding tools.
func (s *Server) AddCommonArg(a CommonArg) {
	if len(s.inv.Declared()) > 0 {
		panic(fmt.Sprintf("kit.AddCommonArg %s: call it before registering tools", a.Name))
	}
	if a.Name == "" || a.Schema == nil || a.Schema.Description == "" || a.Bind == nil {
		panic(fmt.Sprintf("kit.AddCommonArg %q: a name, a schema with a description and Bind are required", a.Name))
	}
	resolved, err := a.Schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("kit.AddCommonArg %s: schema: %v", a.Name, err))
	}
	s.common = append(s.common, commonArg{a, resolved})
}

// withCommon returns the tool's input schema with the common arguments added as optional
// properties: as tools/list shows them now when listing (Show), else their full Schema.
// schema itself is left as it is (its resolved form validates the tool's own).
func withCommon(tool string, schema *jsonschema.Schema, common []commonArg, listing bool) *jsonschema.Schema {
	if len(common) == 0 {
		return schema
	}
	cp := *schema
	cp.Properties = maps.Clone(schema.Properties)
	if cp.Properties == nil {
		cp.Properties = map[string]*jsonschema.Schema{}
	}
	for _, c := range common {
		if _, ok := cp.Properties[c.Name]; ok {
			panic(fmt.Sprintf("kit.AddTool %s: argument %q is the server's common argument", tool, c.Name))
		}
		shown := c.Schema
		if listing && c.Show != nil {
			if shown = c.Show(); shown == nil {
				continue
			}
		}
		cp.Properties[c.Name] = shown
		if len(cp.PropertyOrder) > 0 {
			cp.PropertyOrder = append(append([]string(nil), cp.PropertyOrder...), c.Name)
		}
	}
	return &cp
}

// listsLive reports whether any common argument's listing can change (CommonArg.Show).
func listsLive(common []commonArg) bool {
	for _, c := range common {
		if c.Show != nil {
			return true
		}
	}
	return false
}

// commonNames are the names decodeWith takes out of the arguments.
func commonNames(common []commonArg) []string {
	names := make([]string, len(common))
	for i, c := range common {
		names[i] = c.Name
	}
	return names
}

// bindCommon validates the common arguments given and lets each bind its value into ctx.
func bindCommon(ctx context.Context, common []commonArg, given map[string]any) (context.Context, error) {
	for _, c := range common {
		v, ok := given[c.Name]
		if !ok || v == "" {
			continue
		}
		if err := c.resolved.Validate(v); err != nil {
			return ctx, fmt.Errorf("invalid arguments: %s %v: %w; %s", c.Name, jsonValue(v), err, c.Schema.Description)
		}
		var err error
		if ctx, err = c.Bind(ctx, v); err != nil {
			return ctx, err
		}
	}
	return ctx, nil
}

func jsonValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
