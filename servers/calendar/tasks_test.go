package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/tasks/v1"
)

const (
	calendarScope = "https://www.googleapis.com/auth/calendar"
	tasksScope    = "https://www.googleapis.com/auth/tasks"
)

// newFakeTasks holds the fixtures: the default list "My Tasks" (id MDEx) with an open task and
// its subtask, a task made from an email, one completed in Google's app (hidden), one assigned
// from a Doc; and a "Groceries" list.
func newFakeTasks(t *testing.T) (*googlefake.Tasks, string) {
	f := googlefake.NewTasks(t)
	f.Now = func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }
	f.AddTask("MDEx", &tasks.Task{Id: "milk", Title: "Buy milk", Status: "needsAction", Due: "2026-03-05T00:00:00.000Z", Notes: "2 litres\nfrom the market"})
	f.AddTask("MDEx", &tasks.Task{Id: "oat", Title: "Oat milk", Status: "needsAction", Parent: "milk"})
	f.AddTask("MDEx", &tasks.Task{Id: "bob", Title: "Reply to Bob", Status: "needsAction", Due: "2026-03-09T00:00:00.000Z",
		Links: []*tasks.TaskLinks{{Type: "email", Description: "Lunch on Friday?", Link: "https://mail.google.com/mail/#all/alt"}}})
	f.AddTask("MDEx", &tasks.Task{Id: "mom", Title: "Call mom", Status: "completed", Hidden: true})
	f.AddTask("MDEx", &tasks.Task{Id: "doc", Title: "Review the plan", Status: "needsAction",
		AssignmentInfo: &tasks.AssignmentInfo{SurfaceType: "DOCUMENT", LinkToTask: "https://docs.google.com/document/d/doc1"}})
	groceries := f.AddList("Groceries")
	f.AddTask(groceries, &tasks.Task{Id: "eggs", Title: "Eggs", Status: "needsAction"})
	return f, groceries
}

// startTasks starts the calendar server signed in with scopes (calendar and tasks when none),
// pointed at a Calendar fake and the Tasks fake, offering every toolset.
func startTasks(t *testing.T, scopes []string, extra ...string) (*googlefake.Tasks, string, *mcp.ClientSession) {
	t.Helper()
	f, groceries := newFakeTasks(t)
	if scopes == nil {
		scopes = []string{calendarScope, tasksScope}
	}
	args := append(googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...),
		"--calendar-endpoint", googlefake.NewCalendar(t).URL+"/calendar/v3/", "--tasks-endpoint", f.URL+"/", "--toolsets", "all")
	return f, groceries, mcptest.Start(t, spec(), append(args, extra...)...).Connect(t, "")
}

func taskIDs(ts []taskInfo) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func TestTasksRead(t *testing.T) {
	t.Parallel()
	f, groceries, cs := startTasks(t, nil)
	lists, _ := mcptest.CallFor[listTaskListsOutput](t, cs, "list_task_lists", nil)
	if len(lists.Lists) != 2 || lists.Lists[0].ID != "MDEx" || lists.Lists[1].Title != "Groceries" {
		t.Fatalf("lists %+v", lists)
	}
	// Open tasks, subtasks under their parent, assigned ones too; completed ones are not asked for.
	out, res := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", nil)
	if got := taskIDs(out.Tasks); !slices.Equal(got, []string{"milk", "oat", "bob", "doc"}) || out.List.Title != "My Tasks" {
		t.Fatalf("open tasks %v", got)
	}
	text := mcptest.Text(res)
	for _, want := range []string{`Task list "My Tasks" (list id MDEx): 4 tasks.`, "- [ ] Buy milk, due 2026-03-05 (task id milk)", "  notes: 2 litres / from the market",
		"  - [ ] Oat milk (task id oat)", "assigned from DOCUMENT https://docs.google.com/document/d/doc1"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	q := f.Calls("GET", "/lists/MDEx/tasks")[0].Query
	if q.Get("showCompleted") != "false" || q.Get("showAssigned") != "true" || q.Get("maxResults") != "100" {
		t.Errorf("list query %v", q)
	}
	// Completed ones, hidden by Google's own app, come with include_completed.
	all, _ := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", map[string]any{"include_completed": true})
	if !slices.Contains(taskIDs(all.Tasks), "mom") {
		t.Errorf("include_completed: %v", taskIDs(all.Tasks))
	}
	// Due days are inclusive on both ends; Google's dueMax is exclusive.
	due, _ := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", map[string]any{"due_min": "2026-03-05", "due_max": "2026-03-09"})
	if got := taskIDs(due.Tasks); !slices.Equal(got, []string{"milk", "bob"}) {
		t.Errorf("due range %v", got)
	}
	calls := f.Calls("GET", "/lists/MDEx/tasks")
	if q := calls[len(calls)-1].Query; q.Get("dueMin") != "2026-03-05T00:00:00.000Z" || q.Get("dueMax") != "2026-03-10T00:00:00Z" {
		t.Errorf("due query %v", q)
	}
	// A list by title, any case; paging with the token in the text.
	g, _ := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", map[string]any{"list": "groceries"})
	if g.List.ID != groceries || len(g.Tasks) != 1 {
		t.Errorf("groceries %+v", g)
	}
	p1, res := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", map[string]any{"max_results": 2})
	if len(p1.Tasks) != 2 || p1.NextPageToken == "" || !strings.Contains(mcptest.Text(res), `page_token "`+p1.NextPageToken+`"`) {
		t.Fatalf("page 1 %+v", p1)
	}
	p2, _ := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", map[string]any{"max_results": 2, "page_token": p1.NextPageToken})
	if len(p2.Tasks) != 2 || p2.NextPageToken != "" {
		t.Errorf("page 2 %+v", p2)
	}
	// One task in full: notes and the email it came from.
	one, res := mcptest.CallFor[taskOutput](t, cs, "get_task", map[string]any{"task_id": "bob"})
	if len(one.Task.Links) != 1 || !strings.Contains(mcptest.Text(res), "link (email): Lunch on Friday? https://mail.google.com/mail/#all/alt") {
		t.Errorf("get_task %+v", one)
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_tasks", map[string]any{"list": "Chores"}, `no task list "Chores": give a list id or title from list_task_lists ("My Tasks", "Groceries")`},
		{"get_task", map[string]any{"task_id": "eggs"}, `task eggs not found in task list "My Tasks" (list id MDEx): list_tasks shows its tasks; a task in another list needs list`},
		{"list_tasks", map[string]any{"due_max": "next friday"}, `due "next friday": give a date, YYYY-MM-DD`},
	} {
		if msg := mcptest.CallError(t, cs, tt.tool, tt.args); !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%s %v: %s", tt.tool, tt.args, msg)
		}
	}
}

func TestTasksWrite(t *testing.T) {
	t.Parallel()
	f, groceries, cs := startTasks(t, nil)
	// A new task goes first, as in Google's apps; previous places it.
	first, res := mcptest.CallFor[taskOutput](t, cs, "create_task", map[string]any{"title": "Pay rent", "due": "2026-03-31", "notes": "to the landlord"})
	if first.Task.Due != "2026-03-31" || first.Task.ID == "" || !strings.Contains(mcptest.Text(res), "(task id "+first.Task.ID+")") {
		t.Fatalf("created %+v", first)
	}
	after, _ := mcptest.CallFor[taskOutput](t, cs, "create_task", map[string]any{"title": "Soy milk", "parent": "milk", "previous": "oat"})
	list, _ := mcptest.CallFor[listTasksOutput](t, cs, "list_tasks", nil)
	if got := taskIDs(list.Tasks); !slices.Equal(got, []string{first.Task.ID, "milk", "oat", after.Task.ID, "bob", "doc"}) {
		t.Errorf("order after creating %v", got)
	}
	if f.Calls("POST", "/lists/MDEx/tasks")[0].Body["due"] != "2026-03-31T00:00:00.000Z" {
		t.Errorf("due sent %v", f.Calls("POST", "/lists/MDEx/tasks")[0].Body)
	}
	// Only the fields given change; "" clears notes and due.
	upd, _ := mcptest.CallFor[taskOutput](t, cs, "update_task", map[string]any{"task_id": "milk", "title": "Buy milk and bread", "notes": "", "due": ""})
	if got := f.Task("MDEx", "milk"); upd.Task.Title != "Buy milk and bread" || got.Notes != "" || got.Due != "" || got.Status != "needsAction" {
		t.Errorf("updated %+v", got)
	}
	if body := string(f.Calls("PATCH", "/tasks/milk")[0].Raw); !strings.Contains(body, `"due":null`) || !strings.Contains(body, `"notes":""`) || strings.Contains(body, "status") {
		t.Errorf("patch body %s", body)
	}
	// Several done at once; one unknown id is reported, not fatal; undo reopens.
	done, res := mcptest.CallFor[tasksOutput](t, cs, "complete_task", map[string]any{"task_ids": []string{"milk", "nope", "bob"}})
	if len(done.Done) != 2 || len(done.Failed) != 1 || f.Task("MDEx", "bob").Completed == nil || !strings.Contains(mcptest.Text(res), "Not done: task id nope: task nope not found") {
		t.Errorf("complete %+v", done)
	}
	mcptest.CallFor[tasksOutput](t, cs, "complete_task", map[string]any{"task_ids": []string{"bob"}, "undo": true})
	if got := f.Task("MDEx", "bob"); got.Status != "needsAction" || got.Completed != nil {
		t.Errorf("reopened %+v", got)
	}
	// Move: nest, then to another list with its subtasks.
	mcptest.CallFor[taskOutput](t, cs, "move_task", map[string]any{"task_id": "bob", "parent": first.Task.ID})
	if f.Task("MDEx", "bob").Parent != first.Task.ID {
		t.Error("not nested")
	}
	moved, _ := mcptest.CallFor[taskOutput](t, cs, "move_task", map[string]any{"task_id": "milk", "to_list": "Groceries", "previous": "eggs"})
	if moved.List.ID != groceries || f.Task(groceries, "oat") == nil || f.Task(groceries, "milk").Position != "00000000000000000001" {
		t.Errorf("moved %+v", moved)
	}
	if msg := mcptest.CallError(t, cs, "move_task", map[string]any{"task_id": "doc", "parent": "nope"}); !strings.Contains(msg, "Google Tasks refused the place") {
		t.Errorf("bad parent: %s", msg)
	}
	// Delete takes the subtasks along.
	del, _ := mcptest.CallFor[tasksOutput](t, cs, "delete_task", map[string]any{"list": groceries, "task_ids": []string{"milk"}})
	if len(del.Done) != 1 || del.Done[0].Title != "Buy milk and bread" || !f.Task(groceries, "oat").Deleted {
		t.Errorf("delete %+v", del)
	}
	// Lists: create, rename, clear, delete; the default list stays.
	made, _ := mcptest.CallFor[taskListOutput](t, cs, "edit_task_list", map[string]any{"action": "create", "title": "Chores"})
	mcptest.CallFor[taskListOutput](t, cs, "edit_task_list", map[string]any{"action": "rename", "list": "chores", "title": "House"})
	mcptest.CallFor[taskListOutput](t, cs, "edit_task_list", map[string]any{"action": "clear_completed", "list": "My Tasks"})
	mcptest.CallFor[taskListOutput](t, cs, "edit_task_list", map[string]any{"action": "delete", "list": made.List.ID})
	if _, ok := f.Lists()[made.List.ID]; ok {
		t.Error("list not deleted")
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"edit_task_list", map[string]any{"action": "delete", "list": "My Tasks"}, `task list "My Tasks" (list id MDEx) is the default list, which Google Tasks does not delete`},
		{"edit_task_list", map[string]any{"action": "rename", "list": "Groceries"}, "action rename needs title"},
		{"create_task", map[string]any{"title": "x", "due": "2026-03-05T10:00"}, `due "2026-03-05T10:00": give a date, YYYY-MM-DD (Google Tasks keeps the day only, no time`},
		{"update_task", map[string]any{"task_id": "doc"}, "give what to change"},
	} {
		if msg := mcptest.CallError(t, cs, tt.tool, tt.args); !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%s %v: %s", tt.tool, tt.args, msg)
		}
	}
}

// TestTasksSignIn: without the tasks scope every tasks tool says which login adds it, keeping
// the services the sign-in has, and Google Tasks is not called; a read-only server works with
// tasks.readonly and offers only the reading tools.
func TestTasksSignIn(t *testing.T) {
	t.Parallel()
	f, _, cs := startTasks(t, []string{calendarScope, "https://www.googleapis.com/auth/drive"})
	for tool, args := range map[string]map[string]any{"list_task_lists": nil, "list_tasks": nil, "create_task": {"title": "x"}, "edit_task_list": {"action": "create", "title": "x"}} {
		msg := mcptest.CallError(t, cs, tool, args)
		if msg != "the Google sign-in of ada@example.com does not grant Google Tasks: run `calendar auth login --services calendar,drive,tasks` (the services it has, plus tasks) and call again" {
			t.Errorf("%s: %s", tool, msg)
		}
	}
	if f.Requests() != 0 {
		t.Errorf("%d calls reached Google Tasks", f.Requests())
	}
	_, _, ro := startTasks(t, []string{"https://www.googleapis.com/auth/calendar.readonly", "https://www.googleapis.com/auth/tasks.readonly"}, "--read-only")
	mcptest.CallFor[listTasksOutput](t, ro, "list_tasks", nil)
	names := googletest.ReadOnlyTools(t, ro)
	for _, want := range []string{"list_task_lists", "list_tasks", "get_task"} {
		if !slices.Contains(names, want) {
			t.Errorf("read-only tools %v lack %s", names, want)
		}
	}
	if slices.Contains(names, "create_task") {
		t.Error("create_task offered read-only")
	}
}
