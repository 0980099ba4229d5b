package nextcall

import (
	"encoding/json"
	"slices"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestField(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "message_id": true, "thread_ids": true, "next_page_token": true, "page_token": true,
		"handle": true, "sha256": true, "expected_hash": true, "next_offset": true, "body_offset": true,
		"exit_code": true, "signal": true, "matched": true, "timed_out": true, "truncated": true,
		"diff_truncated": true, "more": true, "total": true, "total_chars": true, "messages_total": true,
		"count": true, "uri": true, "ref": true,
		"name": false, "content": false, "size": false, "modified": false, "idle": false, "identity": false,
		"handled": false, "countdown": false, "path": false,
	} {
		if got := Field(name); got != want {
			t.Errorf("Field(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		name string
		text string
		args string
		out  string
		skip map[string]string
		want []string
	}{
		{"all carried", "proc-1 exited with code 0 after 1.2 s; next_offset 120, more", "",
			`{"process":{"handle":"proc-1","exit_code":0},"next_offset":120,"more":true}`, nil, nil},
		{"a hash left out", "hello\n", "", `{"content":"hello\n","sha256":"abc123"}`, nil, []string{"sha256"}},
		{"a number inside a longer one is not carried", "read 1200 bytes", "", `{"next_offset":120}`, nil, []string{"next_offset"}},
		{"nor a decimal's digits", "took 1.5 s", "", `{"count":5}`, nil, []string{"count"}},
		{"a number at a sentence's end is", "found 5.", "", `{"count":5}`, nil, nil},
		{"a true flag by its name, spaced", "the wait timed out", "", `{"timed_out":true}`, nil, nil},
		{"a true flag missing", "the wait ended", "", `{"timed_out":true,"matched":false}`, nil, []string{"timed_out"}},
		{"false, null and empty need nothing", "", "", `{"truncated":false,"next_page_token":"","thread_id":null,"ids":[]}`, nil, nil},
		{"offset 0 is the start", "", "", `{"body_offset":0,"offset":0}`, nil, nil},
		{"ids inside a list, by index", "a: first\nc: third", "",
			`{"messages":[{"id":"a","subject":"first"},{"id":"b","subject":"second"}]}`, nil, []string{"messages[1].id"}},
		{"the arguments carry what the model sent", "3 permissions", `{"file_id":"doc1"}`, `{"file_id":"doc1","count":3}`, nil, nil},
		{"skipped paths are left out, indexes and all", "", "",
			`{"processes":[{"handle":"h","owner_id":"x"}]}`, map[string]string{"processes[].owner_id": "the caller's own"}, []string{"processes[0].handle"}},
		{"a list of ids needs every one", "a, b", "", `{"ids":["a","b","c"]}`, nil, []string{"ids"}},
	}
	for _, tt := range tests {
		got := Missing(tt.text, tt.args, decode(t, tt.out), tt.skip)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Missing = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name string
		text string
		out  string
		want string
	}{
		{"nothing missing", "exit 0", `{"exit_code":0,"stdout":""}`, "exit 0"},
		{"top-level and nested objects, as one JSON line", "line one\n",
			`{"content":"line one\n","sha256":"abc","process":{"handle":"p1","exit_code":-1,"signal":"killed"}}`,
			"line one\n" + `{"process":{"exit_code":-1,"handle":"p1","signal":"killed"},"sha256":"abc"}`},
		{"lists are the rendering's job", "two messages", `{"messages":[{"id":"a"},{"id":"b"}]}`, "two messages"},
		{"an empty text becomes the line", "", `{"next_page_token":"t2"}`, `{"next_page_token":"t2"}`},
	}
	for _, tt := range tests {
		if got := Complete(tt.text, "", decode(t, tt.out), nil); got != tt.want {
			t.Errorf("%s: Complete = %q, want %q", tt.name, got, tt.want)
		}
	}
	// What Complete appends, Missing no longer reports, lists aside.
	v := decode(t, `{"sha256":"abc","more":true,"total":12,"items":[{"id":"item-7"}]}`)
	if got := Missing(Complete("text", "", v, nil), "", v, nil); !slices.Equal(got, []string{"items[0].id"}) {
		t.Errorf("after Complete, Missing = %v, want only the list's id", got)
	}
}
