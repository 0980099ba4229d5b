package googlefake

import (
	"fmt"
	"slices"

	"google.golang.org/api/tasks/v1"
)

// Where tasks sit in the Tasks fake: each list keeps, per parent, its subtasks' ids in position
// order, and the positions Google answers are renumbered from that order after every change.

// checkPlace is the 400 message for a parent or previous task that is not in the list (or is
// hidden or deleted), or a previous task that is not a sibling under parent; "" when fine.
func (f *Tasks) checkPlace(list, parent, previous string) string {
	if parent != "" {
		p := f.find(list, parent)
		if p == nil || p.Deleted || p.Hidden || p.AssignmentInfo != nil {
			return "Invalid Value"
		}
	}
	if previous != "" && !slices.Contains(f.order[list+"/"+parent], previous) {
		return "Invalid Value"
	}
	return ""
}

// store adds t to the list and places it after previous among the siblings under parent.
func (f *Tasks) store(list string, t *tasks.Task, parent, previous string) {
	t.Parent, t.Updated = parent, f.stamp()
	t.SelfLink = "https://www.googleapis.com/tasks/v1/lists/" + list + "/tasks/" + t.Id
	t.WebViewLink = "https://tasks.google.com/task/" + t.Id
	if t.Status == "completed" && t.Completed == nil {
		done := f.stamp()
		t.Completed = &done
	}
	f.items[list] = append(f.items[list], t)
	f.place(list, t, previous)
}

// place puts t right after previous ("" first) among its siblings and renumbers their
// positions.
func (f *Tasks) place(list string, t *tasks.Task, previous string) {
	key := list + "/" + t.Parent
	ids := f.order[key]
	at := slices.Index(ids, previous) + 1
	f.order[key] = slices.Insert(ids, at, t.Id)
	f.renumber(list, key)
}

// unplace takes t out of its siblings' order.
func (f *Tasks) unplace(list string, t *tasks.Task) {
	key := list + "/" + t.Parent
	f.order[key] = slices.DeleteFunc(f.order[key], func(id string) bool { return id == t.Id })
	f.renumber(list, key)
}

func (f *Tasks) renumber(list, key string) {
	for i, id := range f.order[key] {
		if t := f.find(list, id); t != nil {
			t.Position = fmt.Sprintf("%020d", i)
		}
	}
}

// lastOf is the last sibling under parent, "" when there is none.
func (f *Tasks) lastOf(list, parent string) string {
	ids := f.order[list+"/"+parent]
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

// under reports whether the task id is ancestor itself or sits below it.
func (f *Tasks) under(list, id, ancestor string) bool {
	for id != "" {
		if id == ancestor {
			return true
		}
		t := f.find(list, id)
		if t == nil {
			return false
		}
		id = t.Parent
	}
	return false
}
