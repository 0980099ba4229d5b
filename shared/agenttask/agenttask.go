// Package agenttask runs scripted assistant tasks against a server over MCP and holds each task's
// cost to a checked-in budget: the tool calls it takes and the bytes of text the model reads.
//
// A task is the call sequence a competent assistant would make for one request. Every fact the
// next call or the final answer needs is taken from the text content of a result (what clients
// show the model), never from structuredContent, so a fact missing from the text fails the task.
package agenttask

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UpdateEnv names the environment variable that, set to 1, rewrites the budgets from this run.
const UpdateEnv = "AGENT_TASKS_UPDATE"

// ShowEnv names the environment variable that, set to 1, logs every call and the text it returned.
const ShowEnv = "AGENT_TASKS_SHOW"

// BudgetDir is where a server keeps its tasks' budgets, relative to its package.
const BudgetDir = "testdata/agenttasks"

// ByteSlack is how much more text than its budget a task may read before it fails (25%).
const ByteSlack = 0.25

// Task is one request a user makes and the calls an assistant makes to answer it.
type Task struct {
	Name string         // short kebab-case name, also the budget file's name
	Ask  string         // the user's request, as they would type it
	Run  func(a *Agent) // the calls, asserting that each needed fact is in the text
}

// Budget is a task's recorded cost, one JSON file per task under BudgetDir.
type Budget struct {
	Server string   `json:"server"`
	Task   string   `json:"task"`
	Ask    string   `json:"ask"`
	Tools  []string `json:"tools"` // the calls in order
	Calls  int      `json:"calls"`
	Bytes  int      `json:"bytes"` // text bytes of every result, errors included
}

// Agent makes one task's calls through a client session and counts them.
type Agent struct {
	T     *testing.T
	cs    *mcp.ClientSession
	tools []string
	bytes int
}

// Call calls a tool that must succeed and returns the text the model would read.
func (a *Agent) Call(tool string, args map[string]any) string {
	a.T.Helper()
	text, isErr := a.call(tool, args)
	if isErr {
		a.T.Fatalf("%s(%v) failed: %s", tool, args, text)
	}
	return text
}

// CallError calls a tool that must fail (a step a model learns from) and returns the error text.
func (a *Agent) CallError(tool string, args map[string]any) string {
	a.T.Helper()
	text, isErr := a.call(tool, args)
	if !isErr {
		a.T.Fatalf("%s(%v) succeeded, want an error: %s", tool, args, text)
	}
	return text
}

func (a *Agent) call(tool string, args map[string]any) (string, bool) {
	a.T.Helper()
	res, err := a.cs.CallTool(a.T.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		a.T.Fatalf("call %s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
			a.bytes += len(tc.Text)
		}
	}
	a.tools = append(a.tools, tool)
	text := strings.Join(parts, "\n")
	if os.Getenv(ShowEnv) == "1" {
		a.T.Logf("%s %v (error %v)\n%s", tool, args, res.IsError, text)
	}
	return text, res.IsError
}

// Find returns the first submatch of pattern in text (the whole match when it has no group),
// failing the task when the text does not carry it: what is the fact, and where it should be.
func (a *Agent) Find(text, fact, pattern string) string {
	a.T.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		a.T.Fatalf("the text does not carry %s (/%s/):\n%s", fact, pattern, clip(text, 1500))
	}
	return m[len(m)-1]
}

// Int is Find for a whole number, as a model passes it on (offsets, line numbers, counts).
func (a *Agent) Int(text, fact, pattern string) int {
	a.T.Helper()
	s := a.Find(text, fact, pattern)
	n, err := strconv.Atoi(s)
	if err != nil {
		a.T.Fatalf("%s %q is not a number", fact, s)
	}
	return n
}

// Has fails the task unless text contains each of want.
func (a *Agent) Has(text string, want ...string) {
	a.T.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			a.T.Fatalf("the text does not say %q:\n%s", w, clip(text, 1500))
		}
	}
}

// Lacks fails the task when text contains any of bad.
func (a *Agent) Lacks(text string, bad ...string) {
	a.T.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			a.T.Fatalf("the text says %q, which it should not:\n%s", b, clip(text, 1500))
		}
	}
}

// Run runs each task as a subtest on a fresh session from connect and checks its cost against
// the budget in BudgetDir (or rewrites the budgets when UpdateEnv is 1). A budget file with no
// task fails too, so renamed tasks leave nothing stale behind.
func Run(t *testing.T, server string, connect func(t *testing.T) *mcp.ClientSession, tasks []Task) {
	t.Helper()
	update := os.Getenv(UpdateEnv) == "1"
	names := map[string]bool{}
	for _, task := range tasks {
		if names[task.Name] {
			t.Fatalf("two tasks are named %s", task.Name)
		}
		names[task.Name] = true
		t.Run(task.Name, func(t *testing.T) {
			a := &Agent{T: t, cs: connect(t)}
			task.Run(a)
			got := Budget{Server: server, Task: task.Name, Ask: task.Ask, Tools: a.tools, Calls: len(a.tools), Bytes: a.bytes}
			path := filepath.Join(BudgetDir, task.Name+".json")
			if update {
				if err := write(path, got); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d calls, %d bytes (budget written)", task.Name, got.Calls, got.Bytes)
				return
			}
			want, err := Read(path)
			if err != nil {
				t.Fatalf("%v: run make agent-tasks UPDATE=1 and commit the budget", err)
			}
			t.Logf("%s: %d calls (budget %d), %d bytes (budget %d)", task.Name, got.Calls, want.Calls, got.Bytes, want.Bytes)
			if problem := Over(want, got); problem != "" {
				t.Errorf("%s over its budget: %s; make it cheaper again, or if the cost is right run make agent-tasks UPDATE=1 and commit the new budget", task.Name, problem)
			}
			if want.Ask != got.Ask || want.Server != got.Server {
				t.Errorf("%s: the budget describes another task (%q); run make agent-tasks UPDATE=1", task.Name, want.Ask)
			}
		})
	}
	if update {
		return
	}
	files, err := filepath.Glob(filepath.Join(BudgetDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !names[name] {
			t.Errorf("%s is the budget of no task: delete it (or run make agent-tasks UPDATE=1)", f)
		}
	}
}

// Over says how got exceeds want: more calls, or more than ByteSlack more bytes ("" when within).
func Over(want, got Budget) string {
	var out []string
	if got.Calls > want.Calls {
		out = append(out, fmt.Sprintf("%d calls, budget %d (%s, was %s)", got.Calls, want.Calls, strings.Join(got.Tools, " → "), strings.Join(want.Tools, " → ")))
	}
	if limit := float64(want.Bytes) * (1 + ByteSlack); float64(got.Bytes) > limit {
		out = append(out, fmt.Sprintf("%d bytes of text, budget %d (+%.0f%% allowed)", got.Bytes, want.Bytes, ByteSlack*100))
	}
	return strings.Join(out, "; ")
}

// Read loads one budget file.
func Read(path string) (Budget, error) {
	var b Budget
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return b, fmt.Errorf("no budget %s", path)
	}
	if err != nil {
		return b, fmt.Errorf("read budget: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("budget %s: %w", path, err)
	}
	return b, nil
}

func write(path string, b Budget) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("budget folder: %w", err)
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encode budget: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write budget: %w", err)
	}
	return nil
}

// Collect reads every budget under root/*/BudgetDir, ordered by server then task.
func Collect(root string) ([]Budget, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", BudgetDir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("find budgets: %w", err)
	}
	var out []Budget
	for _, f := range files {
		b, err := Read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(x, y Budget) int {
		return strings.Compare(x.Server+"\x00"+x.Task, y.Server+"\x00"+y.Task)
	})
	return out, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + " … " + s[len(s)-n/2:]
}
