package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
)

// fieldFilter is one condition of list_notes' fields argument.
type fieldFilter struct {
	Field string `json:"field" jsonschema:"front matter key" schema:"minLength=1"`
	Op    string `json:"op" jsonschema:"equals, contains: any case, any list item; before, after: dates" schema:"enum=equals|contains|before|after|exists"`
	Value string `json:"value,omitempty" jsonschema:"not for exists"`
}

// fieldConds reads the fields argument into index conditions, with an error saying what to
// fix.
func fieldConds(in []fieldFilter) ([]index.FieldCond, error) {
	var out []index.FieldCond
	for i, f := range in {
		c := index.FieldCond{Key: strings.TrimSpace(f.Field), Op: index.FieldOp(f.Op), Value: strings.TrimSpace(f.Value)}
		where := fmt.Sprintf("fields[%d] (%s %s)", i, c.Key, f.Op)
		if c.Key == "" {
			return nil, kit.Errorf(kit.CodeInvalidInput, "fields[%d]: give the front matter key in field", i)
		}
		switch c.Op {
		case index.OpEquals, index.OpContains:
			if c.Value == "" {
				return nil, kit.Errorf(kit.CodeInvalidInput, "%s: give a value, or use op exists", where)
			}
			if n, err := strconv.ParseFloat(c.Value, 64); err == nil && c.Op == index.OpEquals {
				c.Value = fieldText(n) // 3.0 finds 3, as the index writes numbers
			}
		case index.OpBefore, index.OpAfter:
			t, err := parseWhen(where, c.Value)
			if err != nil {
				return nil, err
			}
			c.At = t
		case index.OpExists:
			if c.Value != "" {
				return nil, kit.Errorf(kit.CodeInvalidInput, "%s: exists takes no value; use equals to compare one", where)
			}
		default:
			return nil, kit.Errorf(kit.CodeInvalidInput, "%s: op must be equals, contains, before, after or exists", where)
		}
		out = append(out, c)
	}
	return out, nil
}

// indexFields are a note's front matter fields as the index keeps them, without the four the
// vault owns (title, tags, created, updated have their own filters).
func indexFields(note vault.Note) []index.Field {
	var out []index.Field
	for key, v := range note.Fields() {
		switch strings.ToLower(key) {
		case "title", "tags", "created", "updated":
			continue
		}
		items, ok := v.([]any)
		if !ok {
			items = []any{v}
		} else if len(items) == 0 {
			out = append(out, index.Field{Key: key}) // an empty list is there all the same
		}
		for _, it := range items {
			text := fieldText(it)
			out = append(out, index.Field{Key: key, Value: text, At: vault.ParseTime(text)})
		}
	}
	return out
}

// fieldText is a field value as text: numbers in their shortest form, booleans as true and
// false, null as "".
func fieldText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
