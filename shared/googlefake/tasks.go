package googlefake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/tasks/v1"
)

// Tasks is the Tasks API v1 over HTTP: task lists (list, get, insert, patch, delete) and tasks
// (list with its filters and show flags, get, insert at a position under a parent, patch,
// delete, move within and across lists, clear). It keeps Google's quirks: a due date keeps only
// its date (answered as midnight UTC); a new task goes first among its siblings unless previous
// names one; completing a task sets completed and reopening it clears it; clear hides the
// completed tasks; deleting a task deletes its subtasks; a move across lists takes the subtasks
// along; tasks.list answers in no particular order (creation order here), with showCompleted
// true and showHidden, showDeleted and showAssigned false unless asked; maxResults is 20 unless
// given, at most 100; "@default" names the first list, which cannot be deleted. Its endpoint is
// URL+"/".
type Tasks struct {
	*Server
	Now func() time.Time // the clock for updated and completed; time.Now when nil

	lists []*tasks.TaskList        // lists[0] is the default list
	items map[string][]*tasks.Task // list id → its tasks in creation order, deleted ones flagged
	order map[string][]string      // list id + "/" + parent id → sibling ids in position order
}

// NewTasks starts a Tasks fake holding one list, the default, titled "My Tasks" with id
// "MDEx"; it is closed when the test ends.
func NewTasks(t testing.TB) *Tasks {
	f := &Tasks{Server: newServer(t, "Tasks"), items: map[string][]*tasks.Task{}, order: map[string][]string{}}
	f.lists = []*tasks.TaskList{{Id: "MDEx", Title: "My Tasks", Kind: "tasks#taskList"}}
	const lists, list = "/tasks/v1/users/@me/lists", "/tasks/v1/lists/{tasklist}"
	f.handle("GET "+lists, f.listLists)
	f.handle("GET "+lists+"/{tasklist}", f.withList(func(w http.ResponseWriter, l *tasks.TaskList, _ *http.Request, _ Request) { WriteJSON(w, l) }))
	f.handle("POST "+lists, f.insertList)
	f.handle("PATCH "+lists+"/{tasklist}", f.withList(f.patchList))
	f.handle("DELETE "+lists+"/{tasklist}", f.withList(f.deleteList))
	f.handle("POST "+list+"/clear", f.withList(f.clear))
	f.handle("GET "+list+"/tasks", f.withList(f.listTasks))
	f.handle("POST "+list+"/tasks", f.withList(f.insert))
	f.handle("GET "+list+"/tasks/{task}", f.withTask(func(w http.ResponseWriter, _ *tasks.TaskList, t *tasks.Task, _ *http.Request, _ Request) {
		WriteJSON(w, t)
	}))
	f.handle("PATCH "+list+"/tasks/{task}", f.withTask(f.patch))
	f.handle("DELETE "+list+"/tasks/{task}", f.withTask(f.delete))
	f.handle("POST "+list+"/tasks/{task}/move", f.withTask(f.move))
	return f
}

// AddList adds a task list and returns its id.
func (f *Tasks) AddList(title string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &tasks.TaskList{Id: f.newID("L"), Title: title, Kind: "tasks#taskList", Updated: f.stamp()}
	f.lists = append(f.lists, l)
	return l.Id
}

// AddTask stores t in the list (last among its siblings, under t.Parent) as another device
// would, and returns its id.
func (f *Tasks) AddTask(list string, t *tasks.Task) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.Id == "" {
		t.Id = f.newID("T")
	}
	f.store(list, t, t.Parent, f.lastOf(list, t.Parent))
	return t.Id
}

// Task returns a copy of a stored task (deleted or hidden ones too), or nil.
func (f *Tasks) Task(list, id string) *tasks.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.find(list, id); t != nil {
		c := *t
		return &c
	}
	return nil
}

// Lists returns the ids and titles of the task lists, in order.
func (f *Tasks) Lists() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, l := range f.lists {
		out[l.Id] = l.Title
	}
	return out
}

// stamp is now in Google's format; the caller holds mu.
func (f *Tasks) stamp() string {
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	return now().UTC().Format("2006-01-02T15:04:05.000Z")
}

func (f *Tasks) list(id string) *tasks.TaskList {
	if id == "@default" {
		return f.lists[0]
	}
	for _, l := range f.lists {
		if l.Id == id {
			return l
		}
	}
	return nil
}

func (f *Tasks) find(list, id string) *tasks.Task {
	if l := f.list(list); l != nil {
		for _, t := range f.items[l.Id] {
			if t.Id == id {
				return t
			}
		}
	}
	return nil
}

// withList resolves {tasklist}, answering 404 for an unknown one.
func (f *Tasks) withList(h func(http.ResponseWriter, *tasks.TaskList, *http.Request, Request)) handler {
	return func(w http.ResponseWriter, r *http.Request, rq Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		l := f.list(r.PathValue("tasklist"))
		if l == nil {
			notFound(w, "Task list not found.")
			return
		}
		h(w, l, r, rq)
	}
}

// withTask resolves {tasklist} and {task} (deleted tasks are still found, as Google does).
func (f *Tasks) withTask(h func(http.ResponseWriter, *tasks.TaskList, *tasks.Task, *http.Request, Request)) handler {
	return f.withList(func(w http.ResponseWriter, l *tasks.TaskList, r *http.Request, rq Request) {
		t := f.find(l.Id, r.PathValue("task"))
		if t == nil {
			notFound(w, "Task not found.")
			return
		}
		h(w, l, t, r, rq)
	})
}

func (f *Tasks) listLists(w http.ResponseWriter, r *http.Request, _ Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	start, end, next := page(r.URL.Query(), "maxResults", 1000, len(f.lists))
	WriteJSON(w, &tasks.TaskLists{Kind: "tasks#taskLists", Items: f.lists[start:end], NextPageToken: next})
}

func (f *Tasks) insertList(w http.ResponseWriter, _ *http.Request, rq Request) {
	var l tasks.TaskList
	_ = rq.Decode(&l)
	if strings.TrimSpace(l.Title) == "" {
		WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &tasks.TaskList{Id: f.newID("L"), Title: l.Title, Kind: "tasks#taskList", Updated: f.stamp()}
	f.lists = append(f.lists, out)
	WriteJSON(w, out)
}

func (f *Tasks) patchList(w http.ResponseWriter, l *tasks.TaskList, _ *http.Request, rq Request) {
	if title, ok := rq.Body["title"].(string); ok {
		if strings.TrimSpace(title) == "" {
			WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
			return
		}
		l.Title, l.Updated = title, f.stamp()
	}
	WriteJSON(w, l)
}

func (f *Tasks) deleteList(w http.ResponseWriter, l *tasks.TaskList, _ *http.Request, _ Request) {
	if l == f.lists[0] {
		WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
		return
	}
	f.lists = slices.DeleteFunc(f.lists, func(x *tasks.TaskList) bool { return x == l })
	delete(f.items, l.Id)
	w.WriteHeader(http.StatusNoContent)
}

func (f *Tasks) clear(w http.ResponseWriter, l *tasks.TaskList, _ *http.Request, _ Request) {
	for _, t := range f.items[l.Id] {
		if t.Status == "completed" {
			t.Hidden = true
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (f *Tasks) listTasks(w http.ResponseWriter, l *tasks.TaskList, r *http.Request, _ Request) {
	q := r.URL.Query()
	flag := func(name string, def bool) bool {
		if v := q.Get(name); v != "" {
			b, _ := strconv.ParseBool(v)
			return b
		}
		return def
	}
	bound := func(name string) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339, q.Get(name))
		return t, err == nil
	}
	dueMin, hasMin := bound("dueMin")
	dueMax, hasMax := bound("dueMax")
	var hits []*tasks.Task
	for _, t := range f.items[l.Id] {
		due, dueErr := time.Parse(time.RFC3339, t.Due)
		switch {
		case t.Deleted && !flag("showDeleted", false), t.Hidden && !flag("showHidden", false),
			t.Status == "completed" && !flag("showCompleted", true), t.AssignmentInfo != nil && !flag("showAssigned", false),
			(hasMin || hasMax) && dueErr != nil, hasMin && due.Before(dueMin), hasMax && !due.Before(dueMax):
			continue
		}
		hits = append(hits, t)
	}
	size, _ := strconv.Atoi(q.Get("maxResults"))
	if size > 100 {
		q.Set("maxResults", "100")
	}
	start, end, next := page(q, "maxResults", 20, len(hits))
	WriteJSON(w, &tasks.Tasks{Kind: "tasks#tasks", Items: hits[start:end], NextPageToken: next})
}

func (f *Tasks) insert(w http.ResponseWriter, l *tasks.TaskList, r *http.Request, rq Request) {
	var t tasks.Task
	_ = rq.Decode(&t)
	parent, previous := r.URL.Query().Get("parent"), r.URL.Query().Get("previous")
	if msg := f.checkPlace(l.Id, parent, previous); msg != "" {
		WriteError(w, http.StatusBadRequest, msg, "invalid")
		return
	}
	if msg := normalize(&t); msg != "" {
		WriteError(w, http.StatusBadRequest, msg, "invalid")
		return
	}
	if t.Status == "" {
		t.Status = "needsAction"
	}
	t.Id, t.Parent, t.Kind = f.newID("T"), parent, "tasks#task"
	f.store(l.Id, &t, parent, previous)
	WriteJSON(w, &t)
}

// normalize applies Google's rules to a written task: the due date keeps only its date, a
// completed task gets its completion time. It returns a 400 message for a bad value.
func normalize(t *tasks.Task) string {
	if t.Due != "" {
		d, err := time.Parse(time.RFC3339, t.Due)
		if err != nil {
			return "Invalid value for: " + t.Due + " is not a valid RFC 3339 date-time"
		}
		t.Due = d.Format("2006-01-02") + "T00:00:00.000Z"
	}
	switch {
	case len(t.Title) > 1024, len(t.Notes) > 8192:
		return "Invalid Value"
	case t.Status != "" && t.Status != "needsAction" && t.Status != "completed":
		return "Invalid Value"
	}
	return ""
}

func (f *Tasks) patch(w http.ResponseWriter, _ *tasks.TaskList, t *tasks.Task, _ *http.Request, rq Request) {
	next := *t
	for key, v := range rq.Body {
		s, _ := v.(string)
		switch key {
		case "title":
			next.Title = s
		case "notes":
			next.Notes = s
		case "due":
			next.Due = s // null clears it
		case "status":
			next.Status = s
		}
	}
	if msg := normalize(&next); msg != "" {
		WriteError(w, http.StatusBadRequest, msg, "invalid")
		return
	}
	switch {
	case next.Status == "completed" && t.Status != "completed":
		done := f.stamp()
		next.Completed = &done
	case next.Status == "needsAction":
		next.Completed, next.Hidden = nil, false
	}
	next.Updated = f.stamp()
	*t = next
	WriteJSON(w, t)
}

func (f *Tasks) delete(w http.ResponseWriter, l *tasks.TaskList, t *tasks.Task, _ *http.Request, _ Request) {
	for _, c := range f.items[l.Id] {
		if f.under(l.Id, c.Id, t.Id) {
			c.Deleted = true
			f.unplace(l.Id, c)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (f *Tasks) move(w http.ResponseWriter, l *tasks.TaskList, t *tasks.Task, r *http.Request, _ Request) {
	q := r.URL.Query()
	dest := l
	if d := q.Get("destinationTasklist"); d != "" {
		if dest = f.list(d); dest == nil {
			notFound(w, "Task list not found.")
			return
		}
	}
	parent, previous := q.Get("parent"), q.Get("previous")
	if parent == t.Id || previous == t.Id {
		WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
		return
	}
	if msg := f.checkPlace(dest.Id, parent, previous); msg != "" {
		WriteError(w, http.StatusBadRequest, msg, "invalid")
		return
	}
	if parent != "" && (t.AssignmentInfo != nil || t.Hidden && t.Status == "completed" || f.under(dest.Id, parent, t.Id)) {
		// Assigned tasks and completed hidden ones cannot be nested; nor a task under its own subtask.
		WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
		return
	}
	f.unplace(l.Id, t)
	if dest != l {
		// The task and everything below it change lists, keeping their own order.
		var moving []*tasks.Task
		for _, c := range f.items[l.Id] {
			if f.under(l.Id, c.Id, t.Id) {
				moving = append(moving, c)
			}
		}
		for _, c := range moving {
			f.order[dest.Id+"/"+c.Id] = f.order[l.Id+"/"+c.Id]
			delete(f.order, l.Id+"/"+c.Id)
		}
		f.items[l.Id] = slices.DeleteFunc(f.items[l.Id], func(c *tasks.Task) bool { return slices.Contains(moving, c) })
		f.items[dest.Id] = append(f.items[dest.Id], moving...)
	}
	t.Parent, t.Updated = parent, f.stamp()
	f.place(dest.Id, t, previous)
	WriteJSON(w, t)
}
