package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// selfExplaining are the only argument names a tool may list without a description (bare=true,
// or a shared argument shown without one). Many clients give a model the input schema and not
// the server's instructions, so every other argument says what it means in the schema itself:
// an id says where it comes from, a name or title what it names, a choice a tool must be given
// what it decides. Each name is here for one reason: wherever a tool takes it, the name with
// its type, bounds and allowed values says all a model needs to fill it, and none is required.
var selfExplaining = map[string]string{
	// A paging position: page_token is the last answer's next_page_token, offset its next_offset.
	"page_token": "paging", "offset": "paging",
	// A count of results, with its bounds and default in the schema.
	"limit": "count", "max_results": "count", "max_slots": "count", "page_size": "count",
	// A flag named for what it does.
	"ignore_case": "flag", "include_trashed": "flag", "include_resolved": "flag",
	"include_weekends": "flag", "full_page": "flag", "double": "flag", "reply_all": "flag",
	"no_signature": "flag", "refuse_conflicts": "flag", "guests_can_invite_others": "flag", "guests_can_modify": "flag",
	"guests_can_see_other_guests": "flag",
	// An optional choice whose allowed values name what it picks (enum).
	"button": "enum", "format": "enum", "kind": "enum", "send_updates": "enum", "sort": "enum",
	"status": "enum", "type": "enum", "types": "enum", "visibility": "enum",
	// An optional plain field of an email, a task or a playlist.
	"subject": "field", "cc": "field", "bcc": "field", "description": "field", "notes": "field",
}

// enumReason is the reason whose argument must list its allowed values.
const enumReason = "enum"

// SelfExplaining reports whether an argument of this name may be listed without a description.
func SelfExplaining(name string) bool {
	_, ok := selfExplaining[name]
	return ok
}

// Undescribed returns the arguments of a listed input schema, nested ones as a.b and a[].b,
// that have no description and may not go without one: a required argument, a name not in the
// self-explaining set, or one listed as a choice without its allowed values.
func Undescribed(s *jsonschema.Schema) []string {
	var out []string
	undescribed(s, "", &out)
	return out
}

func undescribed(s *jsonschema.Schema, prefix string, out *[]string) {
	if s == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if strings.TrimSpace(p.Description) == "" {
			reason, ok := selfExplaining[name]
			if !ok || reason == enumReason && !hasEnum(p) || slices.Contains(s.Required, name) {
				*out = append(*out, prefix+name)
			}
		}
		undescribed(p, prefix+name+".", out)
		undescribed(p.Items, prefix+name+"[].", out)
	}
}

// hasEnum reports whether p, or the items of a list p, has allowed values.
func hasEnum(p *jsonschema.Schema) bool {
	return len(p.Enum) > 0 || p.Items != nil && len(p.Items.Enum) > 0
}

// checkBare refuses bare=true on an argument whose name is not self-explaining.
func checkBare(name, where string) error {
	if SelfExplaining(name) {
		return nil
	}
	return fmt.Errorf("argument %s is bare=true, but %q is not a self-explaining name (schema.SelfExplaining): describe it in a `jsonschema:\"...\"` tag, a few words are enough", where, name)
}
