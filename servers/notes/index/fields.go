package index

import (
	"strings"
	"time"
)

// Field is one value of a front matter field as the index keeps it: a list's items are one
// Field each, numbers and booleans as their text, At set when the value is a date or time.
type Field struct {
	Key   string
	Value string
	At    time.Time
}

// FieldOp is how a FieldCond compares a field's values.
type FieldOp string

// Field conditions' operators. Case is ignored for the letters A to Z (SQLite's NOCASE).
const (
	OpEquals   FieldOp = "equals"   // a value (a list's item) is Value
	OpContains FieldOp = "contains" // a value (a list's item) holds Value
	OpBefore   FieldOp = "before"   // a date or time value is before At
	OpAfter    FieldOp = "after"    // a date or time value is at or after At
	OpExists   FieldOp = "exists"   // the field is there, whatever its value
)

// FieldCond is one condition on a front matter field; a note must meet all of a Filter's.
type FieldCond struct {
	Key   string
	Op    FieldOp
	Value string // for equals and contains
	At    time.Time
}

// where is the SQL condition (on notes as n) and its arguments for c; an operator it does not
// know matches nothing.
func (c FieldCond) where() (string, []any) {
	const sub = ` AND EXISTS (SELECT 1 FROM fields f WHERE f.note = n.id AND f.key = ?`
	switch c.Op {
	case OpEquals:
		return sub + ` AND f.value = ?)`, []any{c.Key, c.Value}
	case OpContains:
		return sub + ` AND instr(lower(f.value), ?) > 0)`, []any{c.Key, strings.ToLower(c.Value)}
	case OpBefore:
		return sub + ` AND f.at < ?)`, []any{c.Key, c.At.UnixNano()}
	case OpAfter:
		return sub + ` AND f.at >= ?)`, []any{c.Key, c.At.UnixNano()}
	case OpExists:
		return sub + `)`, []any{c.Key}
	}
	return ` AND 0`, nil
}
