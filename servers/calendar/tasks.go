package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/api/tasks/v1"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Google Tasks, the calendar server's tasks toolset: task lists and their tasks through the
// generated tasks/v1 client on the same sign-in, which must grant the tasks scope (a service
// of its own in `auth login --services`).

// tasksProduct is the Tasks API as this server uses it.
var tasksProduct = googleserver.Product{Server: "calendar", Name: "Google Tasks", EndpointFlag: "tasks-endpoint", Endpoint: "https://tasks.googleapis.com/"}

// tasksService is the sign-in service whose scopes the tasks tools need.
const tasksService = "tasks"

// maxListedNotes is how much of a task's notes list_tasks shows; get_task shows them all.
const maxListedNotes = 300

type taskListInfo struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Updated string `json:"updated,omitempty"`
}

func (l taskListInfo) name() string { return fmt.Sprintf("%q (list id %s)", l.Title, l.ID) }

type taskLink struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Link        string `json:"link"`
}

type taskInfo struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Status    string     `json:"status" jsonschema:"needsAction or completed"`
	Due       string     `json:"due,omitempty" jsonschema:"the day, YYYY-MM-DD"`
	Notes     string     `json:"notes,omitempty"`
	Parent    string     `json:"parent,omitempty" jsonschema:"the task it is a subtask of"`
	Completed string     `json:"completed,omitempty"`
	Updated   string     `json:"updated,omitempty"`
	Assigned  string     `json:"assigned,omitempty" jsonschema:"where it was assigned to the user from (Docs, Chat)"`
	Links     []taskLink `json:"links,omitempty" jsonschema:"what it was made from, e.g. an email"`
	WebLink   string     `json:"web_link,omitempty"`
	position  string
}

func toTaskInfo(t *tasks.Task) taskInfo {
	out := taskInfo{ID: t.Id, Title: t.Title, Status: t.Status, Notes: t.Notes, Parent: t.Parent, Updated: t.Updated, WebLink: t.WebViewLink, position: t.Position}
	if len(t.Due) >= 10 {
		out.Due = t.Due[:10] // Google keeps the date only, as midnight UTC
	}
	if t.Completed != nil {
		out.Completed = *t.Completed
	}
	if a := t.AssignmentInfo; a != nil {
		out.Assigned = cmp.Or(a.SurfaceType, "another app")
		if a.LinkToTask != "" {
			out.Assigned += " " + a.LinkToTask
		}
	}
	for _, l := range t.Links {
		out.Links = append(out.Links, taskLink{Type: l.Type, Description: l.Description, Link: l.Link})
	}
	return out
}

// line renders a task in one line: a box, the title, the due day, the id.
func (t taskInfo) line() string {
	box := "[ ]"
	if t.Status == "completed" {
		box = "[x]"
	}
	s := box + " " + cmp.Or(t.Title, "(untitled)")
	if t.Due != "" {
		s += ", due " + t.Due
	}
	s += " (task id " + t.ID + ")"
	if t.Assigned != "" {
		s += ", assigned from " + t.Assigned
	}
	return s
}

// taskDue turns a due argument (a date) into Google's form, midnight UTC of that day; the
// Tasks API keeps no time of day, so a time is refused rather than silently dropped.
func taskDue(s string) (string, error) {
	d, err := time.Parse(dateLayout, strings.TrimSpace(s))
	if err != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "due %q: give a date, YYYY-MM-DD (Google Tasks keeps the day only, no time; get_current_time gives today)", s)
	}
	return d.Format(dateLayout) + "T00:00:00.000Z", nil
}

// taskList resolves a list argument after checking the sign-in grants Tasks: "" is the user's
// default list, else a list id or title (any case) from the user's lists.
func (c *cal) taskList(ctx context.Context, name string) (taskListInfo, error) {
	if err := c.tasksAcct.Require(ctx, tasksService); err != nil {
		return taskListInfo{}, err
	}
	if name == "" {
		l, err := c.ts.Tasklists.Get("@default").Context(ctx).Do()
		if err != nil {
			return taskListInfo{}, c.tasksAcct.Fail(err, "the default task list")
		}
		return taskListInfo{ID: l.Id, Title: l.Title, Updated: l.Updated}, nil
	}
	all, err := c.taskLists(ctx)
	if err != nil {
		return taskListInfo{}, err
	}
	var titles []string
	for _, l := range all {
		if l.ID == name {
			return l, nil
		}
		titles = append(titles, fmt.Sprintf("%q", l.Title))
	}
	var hits []taskListInfo
	for _, l := range all {
		if strings.EqualFold(strings.TrimSpace(l.Title), strings.TrimSpace(name)) {
			hits = append(hits, l)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return taskListInfo{}, kit.Errorf(kit.CodeNotFound, "no task list %q: give a list id or title from list_task_lists (%s)", name, strings.Join(titles, ", "))
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return taskListInfo{}, kit.Errorf(kit.CodeInvalidInput, "%d task lists are titled %q: give one of their ids (%s)", len(hits), name, strings.Join(ids, ", "))
}

// taskLists reads every page of the user's task lists.
func (c *cal) taskLists(ctx context.Context) ([]taskListInfo, error) {
	var out []taskListInfo
	err := c.ts.Tasklists.List().MaxResults(1000).Pages(ctx, func(p *tasks.TaskLists) error {
		for _, l := range p.Items {
			out = append(out, taskListInfo{ID: l.Id, Title: l.Title, Updated: l.Updated})
		}
		return nil
	})
	if err != nil {
		return nil, c.tasksAcct.Fail(err, "task lists")
	}
	return out, nil
}

// taskFail explains a failed call about a task in list.
func (c *cal) taskFail(err error, list taskListInfo, id string) error {
	if googleserver.IsStatus(err, http.StatusNotFound) {
		return kit.Errorf(kit.CodeNotFound, "task %s not found in task list %s: list_tasks shows its tasks; a task in another list needs list", id, list.name())
	}
	return c.tasksAcct.Fail(err, "task "+id)
}

// asBadRequest is the message of Google's 400 answer, if err is one.
func asBadRequest(err error) (string, bool) {
	ae, ok := googleserver.AsAPIError(err)
	if !ok || ae.Code != http.StatusBadRequest {
		return "", false
	}
	return ae.Message, true
}

type listTaskListsOutput struct {
	Lists []taskListInfo `json:"lists"`
}

func (o listTaskListsOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d task lists (the first is the default):", len(o.Lists))
	for _, l := range o.Lists {
		b.WriteString("\n- " + l.name())
	}
	return b.String()
}

type listTasksInput struct {
	List             string `json:"list,omitempty" jsonschema:"task list id or title"`
	IncludeCompleted bool   `json:"include_completed,omitempty" jsonschema:"also completed and hidden tasks"`
	DueMin           string `json:"due_min,omitempty" jsonschema:"due on or after, YYYY-MM-DD"`
	DueMax           string `json:"due_max,omitempty" jsonschema:"due on or before, YYYY-MM-DD"`
	MaxResults       int64  `json:"max_results,omitempty" schema:"minimum=1,maximum=100,default=100,bare=true"`
	PageToken        string `json:"page_token,omitempty" schema:"bare=true"`
}

type listTasksOutput struct {
	List          taskListInfo `json:"list"`
	Tasks         []taskInfo   `json:"tasks" jsonschema:"top-level tasks in order, each followed by its subtasks"`
	NextPageToken string       `json:"next_page_token,omitempty"`
}

func (o listTasksOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task list %s: %d tasks.", o.List.name(), len(o.Tasks))
	depth := map[string]int{} // of each task listed so far; subtasks follow their parent
	for _, t := range o.Tasks {
		indent := ""
		if t.Parent != "" {
			d, known := depth[t.Parent]
			if !known {
				t.Title += " (subtask of task id " + t.Parent + ")"
			}
			depth[t.ID] = d + 1
			indent = strings.Repeat("  ", d+1)
		} else {
			depth[t.ID] = 0
		}
		b.WriteString("\n" + indent + "- " + t.line())
		if notes := t.Notes; notes != "" {
			if r := []rune(notes); len(r) > maxListedNotes {
				notes = string(r[:maxListedNotes]) + "… (get_task shows all)"
			}
			b.WriteString("\n" + indent + "  notes: " + strings.ReplaceAll(notes, "\n", " / "))
		}
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "\nMore tasks: call again with page_token %q.", o.NextPageToken)
	}
	return b.String()
}

type getTaskInput struct {
	List   string `json:"list,omitempty" jsonschema:"task list id or title"`
	TaskID string `json:"task_id" jsonschema:"from list_tasks" schema:"minLength=1"`
}

type taskOutput struct {
	List   taskListInfo `json:"list"`
	Task   taskInfo     `json:"task"`
	Action string       `json:"action"`
}

func (o taskOutput) Text() string {
	t := o.Task
	s := fmt.Sprintf("%s in task list %s: %s", o.Action, o.List.name(), t.line())
	if t.Parent != "" {
		s += ", subtask of task id " + t.Parent
	}
	if t.Completed != "" {
		s += ", completed " + t.Completed
	}
	if t.Notes != "" {
		s += "\nnotes: " + t.Notes
	}
	for _, l := range t.Links {
		s += fmt.Sprintf("\nlink (%s): %s %s", l.Type, l.Description, l.Link)
	}
	if t.WebLink != "" {
		s += "\nopen: " + t.WebLink
	}
	return s
}

func addTaskTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "list_task_lists", Toolset: toolsetTasks, Title: "List task lists", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "List the user's task lists: id and title, the default first."}, c.listTaskLists)
	kit.AddTool(s, kit.Tool{Name: "list_tasks", Toolset: toolsetTasks, Title: "List tasks", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "List a task list's tasks (open ones by default), subtasks under parents, with ids, due days, notes."}, c.listTasks)
	kit.AddTool(s, kit.Tool{Name: "get_task", Toolset: toolsetTasks, Title: "Get a task", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "One task in full: notes, links (such as the email it came from), completion."}, c.getTask)
	addTaskEditTools(s, c)
}

func (c *cal) listTaskLists(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, listTaskListsOutput, error) {
	if err := c.tasksAcct.Require(ctx, tasksService); err != nil {
		return nil, listTaskListsOutput{}, err
	}
	all, err := c.taskLists(ctx)
	if err != nil {
		return nil, listTaskListsOutput{}, err
	}
	return nil, listTaskListsOutput{Lists: append([]taskListInfo{}, all...)}, nil
}

func (c *cal) listTasks(ctx context.Context, _ *mcp.CallToolRequest, in listTasksInput) (*mcp.CallToolResult, listTasksOutput, error) {
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, listTasksOutput{}, err
	}
	call := c.ts.Tasks.List(l.ID).MaxResults(in.MaxResults).ShowAssigned(true).Context(ctx)
	if in.IncludeCompleted {
		call.ShowCompleted(true).ShowHidden(true) // completed in Google's apps means hidden too
	} else {
		call.ShowCompleted(false)
	}
	if in.DueMin != "" {
		d, err := taskDue(in.DueMin)
		if err != nil {
			return nil, listTasksOutput{}, err
		}
		call.DueMin(d)
	}
	if in.DueMax != "" {
		d, err := taskDue(in.DueMax)
		if err != nil {
			return nil, listTasksOutput{}, err
		}
		next, _ := time.Parse(time.RFC3339, d)
		call.DueMax(next.AddDate(0, 0, 1).Format(time.RFC3339)) // Google's bound is exclusive; the day given is in
	}
	if in.PageToken != "" {
		call.PageToken(in.PageToken)
	}
	page, err := call.Do()
	if err != nil {
		return nil, listTasksOutput{}, c.tasksAcct.Fail(err, "task list "+l.name())
	}
	return nil, listTasksOutput{List: l, Tasks: ordered(page.Items), NextPageToken: page.NextPageToken}, nil
}

// ordered puts tasks in the order Google's apps show them (Google answers in no particular
// order): top-level tasks by position, each followed by its subtasks by position, depth
// first; subtasks whose parent is not among them come last.
func ordered(items []*tasks.Task) []taskInfo {
	kids := map[string][]taskInfo{}
	ids := map[string]bool{}
	for _, t := range items {
		ids[t.Id] = true
	}
	for _, t := range items {
		parent := t.Parent
		if parent != "" && !ids[parent] {
			parent = "?" // an orphan on this page
		}
		kids[parent] = append(kids[parent], toTaskInfo(t))
	}
	out := []taskInfo{}
	var walk func(parent string)
	walk = func(parent string) {
		list := kids[parent]
		slices.SortStableFunc(list, func(a, b taskInfo) int { return cmp.Compare(a.position, b.position) })
		for _, t := range list {
			out = append(out, t)
			walk(t.ID)
		}
	}
	walk("")
	walk("?")
	return out
}

func (c *cal) getTask(ctx context.Context, _ *mcp.CallToolRequest, in getTaskInput) (*mcp.CallToolResult, taskOutput, error) {
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, taskOutput{}, err
	}
	t, err := c.ts.Tasks.Get(l.ID, in.TaskID).Context(ctx).Do()
	if err != nil {
		return nil, taskOutput{}, c.taskFail(err, l, in.TaskID)
	}
	return nil, taskOutput{List: l, Task: toTaskInfo(t), Action: "Task"}, nil
}
