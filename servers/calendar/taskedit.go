package main

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/api/tasks/v1"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tasks toolset's writes: create, update, complete, move and delete tasks, and create,
// rename, clear and delete task lists.

const maxTaskBatch = 50

type createTaskInput struct {
	List     string `json:"list,omitempty" jsonschema:"task list id or title"`
	Title    string `json:"title" jsonschema:"task title" schema:"minLength=1,maxLength=1024"`
	Notes    string `json:"notes,omitempty" schema:"maxLength=8192,bare=true"`
	Due      string `json:"due,omitempty" jsonschema:"the day, YYYY-MM-DD (no time of day)"`
	Parent   string `json:"parent,omitempty" jsonschema:"task id to make it a subtask of"`
	Previous string `json:"previous,omitempty" jsonschema:"task id to put it after; default first"`
}

type updateTaskInput struct {
	List   string  `json:"list,omitempty" jsonschema:"task list id or title"`
	TaskID string  `json:"task_id" jsonschema:"from list_tasks" schema:"minLength=1"`
	Title  *string `json:"title,omitempty" jsonschema:"new title" schema:"minLength=1,maxLength=1024"`
	Notes  *string `json:"notes,omitempty" jsonschema:"new notes; empty clears them" schema:"maxLength=8192"`
	Due    *string `json:"due,omitempty" jsonschema:"new day, YYYY-MM-DD; empty clears it"`
	Status string  `json:"status,omitempty" schema:"enum=needsAction|completed,bare=true"`
}

type taskIDsInput struct {
	List    string   `json:"list,omitempty" jsonschema:"task list id or title"`
	TaskIDs []string `json:"task_ids" jsonschema:"from list_tasks" schema:"minItems=1,maxItems=50,minLength=1"`
}

type completeTasksInput struct {
	taskIDsInput
	Undo bool `json:"undo,omitempty" jsonschema:"mark them not done again"`
}

type moveTaskInput struct {
	List     string `json:"list,omitempty" jsonschema:"task list id or title"`
	TaskID   string `json:"task_id" jsonschema:"from list_tasks" schema:"minLength=1"`
	Parent   string `json:"parent,omitempty" jsonschema:"task id to nest it under; omit: top level"`
	Previous string `json:"previous,omitempty" jsonschema:"task id to put it after; omit for first"`
	ToList   string `json:"to_list,omitempty" jsonschema:"list id or title to move it to"`
}

type editTaskListInput struct {
	Action string `json:"action" jsonschema:"what to do" schema:"enum=create|rename|delete|clear_completed"`
	List   string `json:"list,omitempty" jsonschema:"task list id or title"`
	Title  string `json:"title,omitempty" jsonschema:"the new list's title (create, rename)" schema:"maxLength=1024"`
}

type tasksOutput struct {
	List   taskListInfo `json:"list"`
	Done   []taskInfo   `json:"done"`
	Failed []taskError  `json:"failed,omitempty"`
	Action string       `json:"action"`
}

type taskError struct {
	TaskID string `json:"task_id"`
	Error  string `json:"error"`
}

func (o tasksOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d of %d tasks in task list %s.", o.Action, len(o.Done), len(o.Done)+len(o.Failed), o.List.name())
	for _, t := range o.Done {
		b.WriteString("\n- " + t.line())
	}
	for _, f := range o.Failed {
		fmt.Fprintf(&b, "\nNot done: task id %s: %s", f.TaskID, f.Error)
	}
	return b.String()
}

type taskListOutput struct {
	List   taskListInfo `json:"list"`
	Action string       `json:"action"`
}

func (o taskListOutput) Text() string { return o.Action + ": task list " + o.List.name() + "." }

func addTaskEditTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "create_task", Toolset: toolsetTasks, Title: "Create a task", OpenWorld: true,
		Description: "Add a task to a task list, optionally with notes, a due day, or as a subtask."}, c.createTask)
	kit.AddTool(s, kit.Tool{Name: "update_task", Toolset: toolsetTasks, Title: "Update a task", Idempotent: true, OpenWorld: true,
		Description: "Change a task's title, notes, due day or status; only the fields given."}, c.updateTask)
	kit.AddTool(s, kit.Tool{Name: "complete_task", Toolset: toolsetTasks, Title: "Complete tasks", Idempotent: true, OpenWorld: true,
		Description: "Mark one or more tasks done (undo: not done)."}, c.completeTasks)
	kit.AddTool(s, kit.Tool{Name: "move_task", Toolset: toolsetTasks, Title: "Move a task", Idempotent: true, OpenWorld: true,
		Description: "Reorder a task, nest it under another, or move it to another list."}, c.moveTask)
	kit.AddTool(s, kit.Tool{Name: "delete_task", Toolset: toolsetTasks, Title: "Delete tasks", Destructive: true, Idempotent: true, OpenWorld: true,
		Description: "Delete one or more tasks, with their subtasks."}, c.deleteTasks)
	kit.AddTool(s, kit.Tool{Name: "edit_task_list", Toolset: toolsetTasks, Title: "Edit task lists", Destructive: true, OpenWorld: true,
		Description: "Create, rename or delete a task list, or clear its completed tasks."}, c.editTaskList)
}

func (c *cal) createTask(ctx context.Context, _ *mcp.CallToolRequest, in createTaskInput) (*mcp.CallToolResult, taskOutput, error) {
	t := &tasks.Task{Title: in.Title, Notes: in.Notes}
	if in.Due != "" {
		var err error
		if t.Due, err = taskDue(in.Due); err != nil {
			return nil, taskOutput{}, err
		}
	}
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, taskOutput{}, err
	}
	call := c.ts.Tasks.Insert(l.ID, t).Context(ctx)
	if in.Parent != "" {
		call.Parent(in.Parent)
	}
	if in.Previous != "" {
		call.Previous(in.Previous)
	}
	got, err := call.Do()
	if err != nil {
		return nil, taskOutput{}, c.placeFail(err, l, in.Parent, in.Previous)
	}
	return nil, taskOutput{List: l, Task: toTaskInfo(got), Action: "Created"}, nil
}

// placeFail explains a refused insert or move: Google answers 400 for a parent or previous task
// it cannot use.
func (c *cal) placeFail(err error, l taskListInfo, parent, previous string) error {
	if ae, ok := asBadRequest(err); ok && (parent != "" || previous != "") {
		return kit.Errorf(kit.CodeInvalidInput, "Google Tasks refused the place (%s): parent must be an open, visible task of task list %s and previous a task under the same parent there; list_tasks shows them", ae, l.name())
	}
	return c.tasksAcct.Fail(err, "task list "+l.name())
}

func (c *cal) updateTask(ctx context.Context, _ *mcp.CallToolRequest, in updateTaskInput) (*mcp.CallToolResult, taskOutput, error) {
	patch := &tasks.Task{Status: in.Status}
	if in.Title != nil {
		patch.Title = *in.Title
	}
	if in.Notes != nil {
		patch.Notes = *in.Notes
		patch.ForceSendFields = append(patch.ForceSendFields, "Notes")
	}
	switch {
	case in.Due == nil:
	case *in.Due == "":
		patch.NullFields = append(patch.NullFields, "Due")
	default:
		d, err := taskDue(*in.Due)
		if err != nil {
			return nil, taskOutput{}, err
		}
		patch.Due = d
	}
	if in.Title == nil && in.Notes == nil && in.Due == nil && in.Status == "" {
		return nil, taskOutput{}, kit.Errorf(kit.CodeInvalidInput, "give what to change: title, notes, due or status")
	}
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, taskOutput{}, err
	}
	got, err := c.ts.Tasks.Patch(l.ID, in.TaskID, patch).Context(ctx).Do()
	if err != nil {
		return nil, taskOutput{}, c.taskFail(err, l, in.TaskID)
	}
	return nil, taskOutput{List: l, Task: toTaskInfo(got), Action: "Updated"}, nil
}

func (c *cal) completeTasks(ctx context.Context, _ *mcp.CallToolRequest, in completeTasksInput) (*mcp.CallToolResult, tasksOutput, error) {
	status, action := "completed", "Completed"
	if in.Undo {
		status, action = "needsAction", "Reopened"
	}
	return c.eachTask(ctx, in.taskIDsInput, action, func(l taskListInfo, id string) (*tasks.Task, error) {
		return c.ts.Tasks.Patch(l.ID, id, &tasks.Task{Status: status}).Context(ctx).Do()
	})
}

func (c *cal) deleteTasks(ctx context.Context, _ *mcp.CallToolRequest, in taskIDsInput) (*mcp.CallToolResult, tasksOutput, error) {
	return c.eachTask(ctx, in, "Deleted (with their subtasks)", func(l taskListInfo, id string) (*tasks.Task, error) {
		t, err := c.ts.Tasks.Get(l.ID, id).Context(ctx).Do() // for the title it had
		if err != nil {
			return nil, err
		}
		return t, c.ts.Tasks.Delete(l.ID, id).Context(ctx).Do()
	})
}

// eachTask applies do to each task id in turn (one failure does not stop the rest) and reports
// what was done and what failed, and why.
func (c *cal) eachTask(ctx context.Context, in taskIDsInput, action string, do func(taskListInfo, string) (*tasks.Task, error)) (*mcp.CallToolResult, tasksOutput, error) {
	if len(in.TaskIDs) > maxTaskBatch {
		return nil, tasksOutput{}, kit.Errorf(kit.CodeInvalidInput, "give at most %d task ids", maxTaskBatch)
	}
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, tasksOutput{}, err
	}
	out := tasksOutput{List: l, Done: []taskInfo{}, Action: action}
	for _, id := range in.TaskIDs {
		if ctx.Err() != nil {
			return nil, out, c.tasksAcct.Fail(ctx.Err(), "tasks")
		}
		t, err := do(l, id)
		if err != nil {
			out.Failed = append(out.Failed, taskError{TaskID: id, Error: c.taskFail(err, l, id).Error()})
			continue
		}
		out.Done = append(out.Done, toTaskInfo(t))
	}
	return nil, out, nil
}

func (c *cal) moveTask(ctx context.Context, _ *mcp.CallToolRequest, in moveTaskInput) (*mcp.CallToolResult, taskOutput, error) {
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, taskOutput{}, err
	}
	dest := l
	call := c.ts.Tasks.Move(l.ID, in.TaskID).Context(ctx)
	if in.ToList != "" {
		if dest, err = c.taskList(ctx, in.ToList); err != nil {
			return nil, taskOutput{}, err
		}
		if dest.ID != l.ID {
			call.DestinationTasklist(dest.ID)
		}
	}
	if in.Parent != "" {
		call.Parent(in.Parent)
	}
	if in.Previous != "" {
		call.Previous(in.Previous)
	}
	got, err := call.Do()
	if err != nil {
		if _, bad := asBadRequest(err); bad && (in.Parent != "" || in.Previous != "") {
			return nil, taskOutput{}, c.placeFail(err, dest, in.Parent, in.Previous)
		}
		return nil, taskOutput{}, c.taskFail(err, l, in.TaskID)
	}
	return nil, taskOutput{List: dest, Task: toTaskInfo(got), Action: "Moved"}, nil
}

func (c *cal) editTaskList(ctx context.Context, _ *mcp.CallToolRequest, in editTaskListInput) (*mcp.CallToolResult, taskListOutput, error) {
	title := strings.TrimSpace(in.Title)
	switch {
	case (in.Action == "create" || in.Action == "rename") && title == "":
		return nil, taskListOutput{}, kit.Errorf(kit.CodeInvalidInput, "action %s needs title", in.Action)
	case in.Action == "create" && in.List != "":
		return nil, taskListOutput{}, kit.Errorf(kit.CodeInvalidInput, "action create takes title, not list")
	case in.Action != "create" && in.List == "":
		return nil, taskListOutput{}, kit.Errorf(kit.CodeInvalidInput, "action %s needs list: its id or title from list_task_lists", in.Action)
	case (in.Action == "delete" || in.Action == "clear_completed") && in.Title != "":
		return nil, taskListOutput{}, kit.Errorf(kit.CodeInvalidInput, "title is only for create and rename")
	}
	if in.Action == "create" {
		if err := c.tasksAcct.Require(ctx, tasksService); err != nil {
			return nil, taskListOutput{}, err
		}
		got, err := c.ts.Tasklists.Insert(&tasks.TaskList{Title: title}).Context(ctx).Do()
		if err != nil {
			return nil, taskListOutput{}, c.tasksAcct.Fail(err, "task lists")
		}
		return nil, taskListOutput{List: taskListInfo{ID: got.Id, Title: got.Title, Updated: got.Updated}, Action: "Created"}, nil
	}
	l, err := c.taskList(ctx, in.List)
	if err != nil {
		return nil, taskListOutput{}, err
	}
	switch in.Action {
	case "rename":
		got, err := c.ts.Tasklists.Patch(l.ID, &tasks.TaskList{Title: title}).Context(ctx).Do()
		if err != nil {
			return nil, taskListOutput{}, c.tasksAcct.Fail(err, "task list "+l.name())
		}
		return nil, taskListOutput{List: taskListInfo{ID: got.Id, Title: got.Title, Updated: got.Updated}, Action: "Renamed from " + fmt.Sprintf("%q", l.Title)}, nil
	case "clear_completed":
		if err := c.ts.Tasks.Clear(l.ID).Context(ctx).Do(); err != nil {
			return nil, taskListOutput{}, c.tasksAcct.Fail(err, "task list "+l.name())
		}
		return nil, taskListOutput{List: l, Action: "Hid the completed tasks (list_tasks with include_completed still shows them)"}, nil
	}
	def, err := c.ts.Tasklists.Get("@default").Context(ctx).Do()
	if err != nil {
		return nil, taskListOutput{}, c.tasksAcct.Fail(err, "the default task list")
	}
	if def.Id == l.ID {
		return nil, taskListOutput{}, kit.Errorf(kit.CodeInvalidInput, "task list %s is the default list, which Google Tasks does not delete; delete its tasks instead", l.name())
	}
	if err := c.ts.Tasklists.Delete(l.ID).Context(ctx).Do(); err != nil {
		return nil, taskListOutput{}, c.tasksAcct.Fail(err, "task list "+l.name())
	}
	return nil, taskListOutput{List: l, Action: "Deleted, with all its tasks"}, nil
}
