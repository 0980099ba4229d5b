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
// the server's instructions, so every other argument says what it means in the schema itself.
// Each name is here for one reason: wherever a tool takes it, the name with its type, bounds
// and allowed values says all a model needs to fill it.
var selfExplaining = map[string]string{
	// The Google servers' account: optional on every one of their tools, left out for the
	// default account, explained once in the instructions; a label that is not signed in is
	// answered with the ones that are. Described in each of 69 tools it would cost 2 KB of the
	// fleet's 64 KiB list, for an argument a single-account user never sends.
	"account": "common",
	// An id named for what it identifies, from the tools that list those things.
	"file_id": "id", "document_id": "id", "spreadsheet_id": "id", "event_id": "id", "folder_id": "id",
	// A paging position: page_token is the last answer's next_page_token, offset its next_offset.
	"page_token": "paging", "offset": "paging",
	// An IANA time zone name, the only kind there is in the APIs behind the tools.
	"time_zone": "zone",
	// A count of results, with its bounds and default in the schema.
	"limit": "count", "max_results": "count", "max_slots": "count", "page_size": "count",
	// A flag named for what it does.
	"ignore_case": "flag", "include_trashed": "flag", "include_resolved": "flag",
	"include_weekends": "flag", "full_page": "flag", "double": "flag", "reply_all": "flag",
	"no_signature": "flag", "refuse_conflicts": "flag", "guests_can_invite_others": "flag", "guests_can_modify": "flag",
	"guests_can_see_other_guests": "flag",
	// A choice whose allowed values are listed (enum).
	"action": "enum", "button": "enum", "format": "enum", "kind": "enum", "response": "enum",
	"scope": "enum", "send_updates": "enum", "sort": "enum", "status": "enum", "type": "enum", "types": "enum", "visibility": "enum",
	// The plain field of the thing a tool makes (an email, an event, a playlist).
	"subject": "field", "cc": "field", "bcc": "field", "title": "field", "name": "field",
	"description": "field", "notes": "field",
}

// enumReason is the reason whose argument must list its allowed values.
const enumReason = "enum"

// SelfExplaining reports whether an argument of this name may be listed without a description.
func SelfExplaining(name string) bool {
	_, ok := selfExplaining[name]
	return ok
}

// Undescribed returns the arguments of a listed input schema, nested ones as a.b and a[].b,
// that have no description and may not go without one: a name not in the self-explaining set,
// or one listed as a choice without its allowed values.
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
			if !ok || reason == enumReason && !hasEnum(p) {
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
