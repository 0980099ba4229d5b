package main

import (
	"strings"
	"testing"
)

// TestFormInputsTake fills every kind of input on a real page the way a user would, submits
// the form and reads what the server received; values that cannot take are errors that name
// the field, and a value the page reformats comes back as a note.
func TestFormInputsTake(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/inputs.html"})
	r := func(prefix string) string { return ref(t, snap, prefix) }
	for _, want := range []string{`date "Day" [`, `time "Arrival" [`, `datetime "Reminder" [`, `month "Billing month" [`,
		`week "Week" [`, `color "Napkin colour" [`, `slider "Guests" [`, `combobox "Seating" [`, `listbox "Diets" [`, `textbox "Notes" [`} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot lacks %q", want)
		}
	}

	fill := func(fields ...map[string]any) string {
		t.Helper()
		return callTool(t, cs, "browser_fill_form", map[string]any{"fields": fields})
	}
	f := func(ref, value string) map[string]any { return map[string]any{"ref": ref, "value": value} }
	out := fill(f(r(`date "Day"`), "Dec 24, 2026"), f(r(`time "Arrival"`), "7:30 PM"), f(r(`datetime "Reminder"`), "2026-12-23 09:00"),
		f(r(`month "Billing month"`), "January 2027"), f(r(`week "Week"`), "2026-12-24"), f(r(`color "Napkin colour"`), "#C0F"),
		f(r(`slider "Guests"`), "6"), f(r(`combobox "Seating"`), "Terrace"), f(r(`listbox "Diets"`), "Vegan"), f(r(`listbox "Diets"`), "gf"),
		f(r(`spinbutton "Children"`), "2"), f(r(`textbox "Phone"`), "5551234567"), f(r(`textbox "Notes"`), "Window seat, please"),
		f(r(`date "Controlled date"`), "2026-12-25"))
	if !strings.Contains(out, `(textbox "Phone") now reads "(555) 123-4567" (the page changed what was typed).`) {
		t.Errorf("a reformatted value should come back as a note:\n%s", out)
	}
	if !strings.Contains(out, "React saw 2026-12-25") {
		t.Errorf("a framework that tracks the value should see the change:\n%s", out)
	}
	snap = callTool(t, cs, "browser_snapshot", map[string]any{})
	for _, want := range []string{`date "Day" [e1]: 2026-12-24`, `time "Arrival" [e2]: 19:30`, `datetime "Reminder" [e3]: 2026-12-23T09:00`,
		`month "Billing month" [e4]: 2027-01`, `week "Week" [e5]: 2026-W52`, `color "Napkin colour" [e6]: #cc00ff`, `slider "Guests" [e7]: 6`,
		`textbox "Notes" [`} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot lacks %q:\n%s", want, snap)
		}
	}
	got := callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `button "Book"`)})
	for _, want := range []string{"day = 2026-12-24", "arrival = 19:30", "reminder = 2026-12-23T09:00", "billing = 2027-01", "week = 2026-W52",
		"colour = #cc00ff", "guests = 6", "seating = out", "diets = Vegan|gf", "children = 2", "phone = (555) 123-4567",
		"notes = Window seat, please", "controlled = 2026-12-25"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server did not receive %q:\n%s", want, got)
		}
	}

	// browser_type sets the same inputs, and what cannot take is an error naming the field.
	snap = callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/inputs.html"})
	callTool(t, cs, "browser_type", map[string]any{"ref": r(`date "Day"`), "text": "2026-02-14"})
	if got := callTool(t, cs, "browser_snapshot", map[string]any{"find": "Day"}); !strings.Contains(got, `date "Day" [`) || !strings.Contains(got, ": 2026-02-14") {
		t.Errorf("browser_type should set a date:\n%s", got)
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"browser_type", map[string]any{"ref": r(`slider "Guests"`), "text": "20"}, `(slider "Guests"): 20 is not a value of this slider (min 1, max 12, step 1); it moved to 12`},
		{"browser_type", map[string]any{"ref": r(`date "Day"`), "text": "24/12/2026"}, `(date "Day"): "24/12/2026" is not a date: give YYYY-MM-DD`},
		{"browser_type", map[string]any{"ref": r(`spinbutton "Children"`), "text": "two"}, `(spinbutton "Children"): the number field did not take the value typed`},
		{"browser_type", map[string]any{"ref": r(`textbox "Code"`), "text": "123456"}, `(textbox "Code"): the field keeps at most 4 characters; it took only the first 4`},
		{"browser_type", map[string]any{"ref": r(`date "Pinned date"`), "text": "2026-06-01"}, `(date "Pinned date"): the date input did not take 2026-06-01; it holds "2026-01-01"`},
		{"browser_type", map[string]any{"ref": r(`color "Napkin colour"`), "text": "teal"}, `is not a colour: give #rrggbb`},
		{"browser_type", map[string]any{"ref": r(`date "Day"`), "text": "x", "append": true}, `append adds text to a text field; this is a date field`},
		{"browser_fill_form", map[string]any{"fields": []map[string]any{f(r(`time "Arrival"`), "18:00"), f(r(`combobox "Seating"`), "Roof")}},
			`(combobox "Seating"): no option matches; options: Inside | Terrace | Bar (already set: ` + r(`time "Arrival"`) + `; nothing was submitted)`},
	} {
		got := callToolErr(t, cs, tt.tool, tt.args)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: got %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
