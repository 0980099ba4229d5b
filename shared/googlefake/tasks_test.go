package googlefake

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"google.golang.org/api/option"
	"google.golang.org/api/tasks/v1"
)

func tasksClient(t *testing.T) (*Tasks, *tasks.Service) {
	t.Helper()
	f := NewTasks(t)
	f.Now = func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }
	svc, err := tasks.NewService(t.Context(), option.WithHTTPClient(Client()), option.WithEndpoint(f.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	return f, svc
}

func titles(ts []*tasks.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Title)
	}
	return out
}

// TestTasksWithGeneratedClient drives the fake with the generated tasks/v1 client through
// Google's quirks: new tasks first, due dates without time, completion stamps, clear, list
// defaults, subtasks deleted and moved with their parent, the default list.
func TestTasksWithGeneratedClient(t *testing.T) {
	t.Parallel()
	f, svc := tasksClient(t)
	ctx := t.Context()
	a, err := svc.Tasks.Insert("@default", &tasks.Task{Title: "A", Due: "2026-03-05T17:45:00-08:00"}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if a.Due != "2026-03-05T00:00:00.000Z" || a.Status != "needsAction" || a.Position != "00000000000000000000" {
		t.Errorf("inserted %+v", a)
	}
	b, _ := svc.Tasks.Insert("MDEx", &tasks.Task{Title: "B"}).Context(ctx).Do() // first: before A
	c, _ := svc.Tasks.Insert("MDEx", &tasks.Task{Title: "C"}).Previous(a.Id).Context(ctx).Do()
	sub, _ := svc.Tasks.Insert("MDEx", &tasks.Task{Title: "A.1"}).Parent(a.Id).Context(ctx).Do()
	if got := f.Task("MDEx", a.Id); got.Position != "00000000000000000001" || f.Task("MDEx", b.Id).Position != "00000000000000000000" || c.Position != "00000000000000000002" || sub.Parent != a.Id {
		t.Errorf("positions: a %s b %s c %s", got.Position, f.Task("MDEx", b.Id).Position, c.Position)
	}
	if _, err := svc.Tasks.Insert("MDEx", &tasks.Task{Title: "x"}).Previous("nope").Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("an unknown previous task was accepted")
	}
	// Complete, list by default (completed shown, hidden not), clear, reopen.
	done, _ := svc.Tasks.Patch("MDEx", b.Id, &tasks.Task{Status: "completed"}).Context(ctx).Do()
	if done.Completed == nil || *done.Completed != "2026-03-02T09:00:00.000Z" {
		t.Errorf("completed %+v", done)
	}
	all, _ := svc.Tasks.List("MDEx").Context(ctx).Do()
	open, _ := svc.Tasks.List("MDEx").ShowCompleted(false).Context(ctx).Do()
	if !slices.Equal(titles(all.Items), []string{"A", "B", "C", "A.1"}) || !slices.Equal(titles(open.Items), []string{"A", "C", "A.1"}) {
		t.Errorf("list %v, open %v", titles(all.Items), titles(open.Items))
	}
	_ = svc.Tasks.Clear("MDEx").Context(ctx).Do()
	if after, _ := svc.Tasks.List("MDEx").Context(ctx).Do(); slices.Contains(titles(after.Items), "B") || !f.Task("MDEx", b.Id).Hidden {
		t.Error("clear did not hide the completed task")
	}
	reopened, _ := svc.Tasks.Patch("MDEx", b.Id, &tasks.Task{Status: "needsAction"}).Context(ctx).Do()
	if reopened.Completed != nil || reopened.Hidden {
		t.Errorf("reopened %+v", reopened)
	}
	// Due filters: dueMax is exclusive; a task without a due date is out of any due filter.
	due, _ := svc.Tasks.List("MDEx").DueMin("2026-03-05T00:00:00Z").DueMax("2026-03-06T00:00:00Z").Context(ctx).Do()
	none, _ := svc.Tasks.List("MDEx").DueMax("2026-03-05T00:00:00Z").Context(ctx).Do()
	if !slices.Equal(titles(due.Items), []string{"A"}) || len(none.Items) != 0 {
		t.Errorf("due filters: %v, %v", titles(due.Items), titles(none.Items))
	}
	// A move to another list takes the subtasks along.
	other := f.AddList("Groceries")
	moved, err := svc.Tasks.Move("MDEx", a.Id).DestinationTasklist(other).Context(ctx).Do()
	if err != nil || moved.Parent != "" || f.Task(other, sub.Id) == nil || f.Task("MDEx", sub.Id) != nil {
		t.Fatalf("move across lists: %+v, %v", moved, err)
	}
	if _, err := svc.Tasks.Move(other, a.Id).Parent(sub.Id).Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("a task moved under its own subtask")
	}
	// Deleting a parent deletes its subtasks; they are found again only with showDeleted.
	if err := svc.Tasks.Delete(other, a.Id).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	left, _ := svc.Tasks.List(other).Context(ctx).Do()
	gone, _ := svc.Tasks.List(other).ShowDeleted(true).Context(ctx).Do()
	if len(left.Items) != 0 || len(gone.Items) != 2 || !f.Task(other, sub.Id).Deleted {
		t.Errorf("after delete: %v, with deleted %v", titles(left.Items), titles(gone.Items))
	}
	// The default list: by alias, and not deletable.
	def, _ := svc.Tasklists.Get("@default").Context(ctx).Do()
	if def.Id != "MDEx" || def.Title != "My Tasks" {
		t.Errorf("default list %+v", def)
	}
	if err := svc.Tasklists.Delete("@default").Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("the default list was deleted")
	}
	if _, err := svc.Tasks.Get("nope", "x").Context(ctx).Do(); apiError(t, err).Code != http.StatusNotFound {
		t.Error("an unknown list was found")
	}
}

// TestTasksPaging: maxResults defaults to 20 and is capped at 100, with page tokens.
func TestTasksPaging(t *testing.T) {
	t.Parallel()
	f, svc := tasksClient(t)
	for range 130 {
		f.AddTask("MDEx", &tasks.Task{Title: "t", Status: "needsAction"})
	}
	first, _ := svc.Tasks.List("@default").Context(t.Context()).Do()
	big, _ := svc.Tasks.List("@default").MaxResults(500).Context(t.Context()).Do()
	rest, _ := svc.Tasks.List("@default").MaxResults(500).PageToken(big.NextPageToken).Context(t.Context()).Do()
	if len(first.Items) != 20 || len(big.Items) != 100 || len(rest.Items) != 30 || rest.NextPageToken != "" {
		t.Errorf("pages %d, %d, %d", len(first.Items), len(big.Items), len(rest.Items))
	}
}
