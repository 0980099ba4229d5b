package agenttask

import (
	"fmt"
	"strings"
)

// Table markers delimit the generated part of docs/agent-tasks.md; the prose around it is
// written by hand.
const (
	TableStart = "<!-- agent-tasks table: written by make agent-tasks UPDATE=1 from servers/*/testdata/agenttasks -->"
	TableEnd   = "<!-- end of the agent-tasks table -->"
)

// Table renders the budgets as a Markdown table, one row a task, with the fleet's totals.
func Table(budgets []Budget) string {
	var b strings.Builder
	b.WriteString("| server | task | the user asks | calls | text bytes | tools, in order |\n|---|---|---|---:|---:|---|\n")
	calls, bytes := 0, 0
	for _, t := range budgets {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %d | %s |\n", t.Server, t.Task, cell(t.Ask), t.Calls, t.Bytes, strings.Join(t.Tools, " → "))
		calls += t.Calls
		bytes += t.Bytes
	}
	fmt.Fprintf(&b, "| **all** | %d tasks | | %d | %d | |\n", len(budgets), calls, bytes)
	return b.String()
}

// Splice puts table between the markers in doc, or says why it cannot.
func Splice(doc, table string) (string, error) {
	i := strings.Index(doc, TableStart)
	j := strings.Index(doc, TableEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("the document lacks the markers %q and %q around the table", TableStart, TableEnd)
	}
	return doc[:i+len(TableStart)] + "\n" + table + doc[j:], nil
}

// cell escapes what would end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
