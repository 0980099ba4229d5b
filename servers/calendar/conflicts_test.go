package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/calendar/v3"
)

func conflictIDs(cs []conflict) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// TestConflicts: create_event and update_event report the busy events the new time overlaps
// (the dentist 15:00–16:00 on 4 March, the design review 11:00–12:00 on 6 March, the weekly
// stand-up), still writing unless refuse_conflicts; what does not block time is no conflict.
func TestConflicts(t *testing.T) {
	t.Parallel()
	const third = "standup_20260316T080000Z"
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		want      []string // conflict ids
		wantErr   string
		wantWrite bool
		noCheck   bool // no events.list for conflicts
	}{
		{name: "overlapping the dentist", tool: "create_event", args: map[string]any{"summary": "Call", "start": "2026-03-04T15:30", "end": "2026-03-04T16:30"},
			want: []string{"dentist"}, wantWrite: true},
		{name: "right after the dentist", tool: "create_event", args: map[string]any{"summary": "Call", "start": "2026-03-04T16:00", "end": "2026-03-04T17:00"},
			wantWrite: true},
		{name: "refused over the dentist", tool: "create_event", args: map[string]any{"summary": "Call", "start": "2026-03-04T14:00", "end": "2026-03-04T15:01", "refuse_conflicts": true},
			wantErr: "it overlaps 2026-03-04T15:00:00+01:00 – 2026-03-04T16:00:00+01:00 Dentist [id dentist]"},
		{name: "shown as free is not checked", tool: "create_event", args: map[string]any{"summary": "Reminder", "start": "2026-03-04T15:00", "end": "2026-03-04T16:00", "show_as_free": true, "refuse_conflicts": true},
			wantWrite: true, noCheck: true},
		{name: "an all-day event overlaps another all-day event", tool: "create_event", args: map[string]any{"summary": "Off", "start": "2026-03-05"},
			want: []string{"holiday"}, wantWrite: true},
		{name: "the next day does not overlap it, whatever UTC says", tool: "create_event", args: map[string]any{"summary": "Off", "start": "2026-03-06"},
			want: []string{"review"}, wantWrite: true},
		{name: "a status event blocks time too", tool: "create_event", args: map[string]any{"summary": "Away", "start": "2026-03-06T10:00", "end": "2026-03-06T18:00", "event_type": "outOfOffice"},
			want: []string{"review"}, wantWrite: true},
		{name: "a working location never conflicts", tool: "create_event", args: map[string]any{"summary": "Office", "start": "2026-03-06", "event_type": "workingLocation", "working_location": "office"},
			wantWrite: true, noCheck: true},
		{name: "moving the dentist onto the review", tool: "update_event", args: map[string]any{"event_id": "dentist", "start": "2026-03-06T11:30", "end": "2026-03-06T12:30"},
			want: []string{"review"}, wantWrite: true},
		{name: "moving the dentist within its own time", tool: "update_event", args: map[string]any{"event_id": "dentist", "start": "2026-03-04T15:30", "end": "2026-03-04T16:00"},
			wantWrite: true},
		{name: "refused move onto the review", tool: "update_event", args: map[string]any{"event_id": "dentist", "start": "2026-03-06T11:30", "end": "2026-03-06T12:30", "refuse_conflicts": true},
			wantErr: "Design review [id review]"},
		{name: "a stand-up moved within its series", tool: "update_event", args: map[string]any{"event_id": third, "scope": "all", "start": "2026-03-16T09:05", "end": "2026-03-16T09:20"},
			wantWrite: true},
		{name: "a stand-up moved onto the launch sync's hour elsewhere is fine", tool: "update_event", args: map[string]any{"event_id": third, "start": "2026-03-16T14:00", "end": "2026-03-16T14:15"},
			wantWrite: true},
		{name: "made busy again over the review", tool: "update_event", args: map[string]any{"event_id": "lunch", "show_as_free": false},
			want: []string{"review"}, wantWrite: true},
		{name: "a title change is not checked", tool: "update_event", args: map[string]any{"event_id": "dentist", "summary": "Dentist (Dr. Lee)"},
			wantWrite: true, noCheck: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, cs := startWith(t, func(f *googlefake.Calendar) {
				f.Events["ada@example.com"]["lunch"] = &calendar.Event{Id: "lunch", Summary: "Long lunch", Transparency: "transparent",
					Start: &calendar.EventDateTime{DateTime: berlin("2026-03-06T11:45")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-06T13:00")}}
			})
			checks := func() int {
				n := 0
				for _, r := range f.Calls("GET", "/events") {
					if r.Query.Get("singleEvents") == "true" {
						n++
					}
				}
				return n
			}
			writes := func() int { return len(f.Calls("POST", "/events")) + len(f.Calls("PATCH", "")) }
			if tc.wantErr != "" {
				msg := mcptest.CallError(t, cs, tc.tool, tc.args)
				if !strings.Contains(msg, tc.wantErr) || !strings.Contains(msg, "find_free_slots") {
					t.Errorf("error %q, want %q", msg, tc.wantErr)
				}
				if writes() != 0 {
					t.Errorf("written despite refuse_conflicts")
				}
				return
			}
			out, res := mcptest.CallFor[writeOutput](t, cs, tc.tool, tc.args)
			if got := conflictIDs(out.Conflicts); !slices.Equal(got, tc.want) {
				t.Errorf("conflicts %v, want %v", got, tc.want)
			}
			if text := mcptest.Text(res); len(tc.want) > 0 != strings.Contains(text, "Warning: it overlaps") {
				t.Errorf("text %q", text)
			}
			if (writes() == 1) != tc.wantWrite {
				t.Errorf("%d writes", writes())
			}
			if tc.noCheck != (checks() == 0) {
				t.Errorf("%d conflict lookups", checks())
			}
		})
	}
}

// TestGuestsAttachmentsTransparency: optional attendees, show as free, Drive attachments (sent
// with supportsAttachments, else Google drops them) and guest permissions, on create and update.
func TestGuestsAttachmentsTransparency(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	out, res := mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{
		"summary": "Planning", "start": "2026-04-01T10:00", "end": "2026-04-01T11:00",
		"attendees": []string{"bob@example.com"}, "optional_attendees": []string{"cy@example.com"}, "show_as_free": true,
		"attachments":       []string{"https://docs.google.com/document/d/doc123/edit", "https://drive.google.com/file/d/f456/view"},
		"guests_can_modify": true, "guests_can_invite_others": false})
	req := f.Calls("POST", "/events")[0]
	b := req.Body
	if req.Query.Get("supportsAttachments") != "true" || len(b["attachments"].([]any)) != 2 || b["attachments"].([]any)[0].(map[string]any)["fileUrl"] != "https://docs.google.com/document/d/doc123/edit" {
		t.Errorf("attachments sent: %v %v", req.Query, b["attachments"])
	}
	if b["transparency"] != "transparent" || b["guestsCanModify"] != true || b["guestsCanInviteOthers"] != false {
		t.Errorf("body %v", b)
	}
	if _, sent := b["guestsCanSeeOtherGuests"]; sent {
		t.Errorf("guestsCanSeeOtherGuests sent without being asked: %v", b)
	}
	att := b["attendees"].([]any)
	if len(att) != 2 || att[0].(map[string]any)["optional"] != nil || att[1].(map[string]any)["email"] != "cy@example.com" || att[1].(map[string]any)["optional"] != true {
		t.Errorf("attendees %v", att)
	}
	if len(out.Attachments) != 2 || out.Attachments[1] != (fileLink{Title: "file view", URL: "https://drive.google.com/file/d/f456/view"}) ||
		!out.ShowAsFree || !out.GuestsCanModify || !slices.Equal(out.GuestsCannot, []string{"invite_others"}) || !out.Attendees[1].Optional {
		t.Errorf("out %+v", out.eventInfo)
	}
	if !strings.Contains(mcptest.Text(res), "(shown as free)") {
		t.Errorf("text %q", mcptest.Text(res))
	}
	if msg := mcptest.CallError(t, cs, "create_event", map[string]any{"summary": "x", "start": "2026-04-01", "attachments": []string{"https://example.com/a.pdf"}}); !strings.Contains(msg, "not a Google Drive link") {
		t.Errorf("bad attachment: %q", msg)
	}

	// Update: optional attendees alone keep the required ones; guest permissions and
	// transparency are sent as given, false included.
	_, _ = mcptest.CallFor[eventOutput](t, cs, "update_event", map[string]any{"event_id": "review", "optional_attendees": []string{"dee@example.com"},
		"show_as_free": true, "guests_can_see_other_guests": false, "guests_can_modify": false})
	p := f.Calls("PATCH", "/events/review")[0].Body
	var emails []string
	for _, a := range p["attendees"].([]any) {
		m := a.(map[string]any)
		emails = append(emails, m["email"].(string)+map[bool]string{true: "?", false: ""}[m["optional"] == true])
	}
	if !slices.Equal(emails, []string{"bob@example.com", "ada@example.com", "dee@example.com?"}) {
		t.Errorf("attendees patched %v", emails)
	}
	if p["transparency"] != "transparent" || p["guestsCanSeeOtherGuests"] != false || p["guestsCanModify"] != false {
		t.Errorf("patch %v", p)
	}
	if _, sent := p["guestsCanInviteOthers"]; sent {
		t.Errorf("unasked field sent: %v", p)
	}
	// Attachments are replaced; [] removes them.
	for i, links := range [][]string{{"https://drive.google.com/file/d/f789/view"}, {}} {
		_, _ = mcptest.CallFor[writeOutput](t, cs, "update_event", map[string]any{"event_id": "dentist", "attachments": links})
		r := f.Calls("PATCH", "/events/dentist")[i]
		if got := r.Body["attachments"].([]any); len(got) != len(links) || r.Query.Get("supportsAttachments") != "true" {
			t.Errorf("attachments patched %v (%v)", got, r.Query)
		}
	}
	if msg := mcptest.CallError(t, cs, "update_event", map[string]any{"event_id": "dentist", "attachments": []string{"ftp://drive.google.com/x"}}); !strings.Contains(msg, "not a Google Drive link") {
		t.Errorf("bad attachment: %q", msg)
	}
	// With attendees too, both replace the list.
	_, _ = mcptest.CallFor[eventOutput](t, cs, "update_event", map[string]any{"event_id": "review", "attendees": []string{"bob@example.com"}, "optional_attendees": []string{}})
	if got := f.Calls("PATCH", "/events/review")[1].Body["attendees"].([]any); len(got) != 1 {
		t.Errorf("replaced attendees %v", got)
	}
}
