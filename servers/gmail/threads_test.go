package main

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestModifyThreads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		args          map[string]any
		wantCalls     []string // the thread calls Gmail saw, "POST <path suffix>"
		wantLabels    map[string][]string
		wantErr       string
		wantUnchanged bool
	}{
		{
			name:       "archive and mark read",
			args:       map[string]any{"ids": []string{"t3", "t-alt"}, "remove_labels": []string{"INBOX", "UNREAD"}},
			wantCalls:  []string{"/threads/t-alt/modify", "/threads/t3/modify"},
			wantLabels: map[string][]string{"th1": {}, "th3": {}, "alt": {}},
		},
		{
			name:       "label by name and star",
			args:       map[string]any{"ids": []string{"t3"}, "add_labels": []string{"receipts", "STARRED"}},
			wantCalls:  []string{"/threads/t3/modify"},
			wantLabels: map[string][]string{"th2": {"INBOX", "Label_7", "STARRED"}},
		},
		{
			name:       "trash uses threads.trash",
			args:       map[string]any{"ids": []string{"t3"}, "add_labels": []string{"TRASH"}},
			wantCalls:  []string{"/threads/t3/trash"},
			wantLabels: map[string][]string{"th1": {"TRASH"}},
		},
		{
			name:       "untrash and mark unread",
			args:       map[string]any{"ids": []string{"t-news"}, "remove_labels": []string{"TRASH"}, "add_labels": []string{"UNREAD"}},
			wantCalls:  []string{"/threads/t-news/untrash", "/threads/t-news/modify"},
			wantLabels: map[string][]string{"news": {"CATEGORY_PROMOTIONS", "UNREAD"}},
		},
		{
			name:    "a message id is not a thread id",
			args:    map[string]any{"ids": []string{"th2"}, "remove_labels": []string{"INBOX"}},
			wantErr: "thread th2 not found",
		},
		{
			name:    "partly done",
			args:    map[string]any{"ids": []string{"t3", "nope"}, "remove_labels": []string{"INBOX"}},
			wantErr: "thread nope not found (the other 1 threads were changed)",
		},
		{
			name:          "Gmail refuses an unknown label id",
			args:          map[string]any{"ids": []string{"t3"}, "add_labels": []string{"Label_99"}},
			wantErr:       "Gmail refused the request: Invalid label: Label_99",
			wantUnchanged: true,
		},
		{
			name:    "unknown label name",
			args:    map[string]any{"ids": []string{"t3"}, "add_labels": []string{"Holidays"}},
			wantErr: `label "Holidays" not found; edit_label (action create) makes it, list_labels shows the others`,
		},
		{
			name:          "over 100 threads",
			args:          map[string]any{"ids": manyThreads(101), "remove_labels": []string{"INBOX"}},
			wantErr:       "with threads, give at most 100 ids, not 101",
			wantUnchanged: true,
		},
		{
			name:    "nothing to do",
			args:    map[string]any{"ids": []string{"t3"}},
			wantErr: "give add_labels or remove_labels",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, cs, _ := start(t)
			args := maps.Clone(tt.args)
			args["threads"] = true
			res := mcptest.Call(t, cs, "modify_messages", args)
			if tt.wantErr != "" {
				if !res.IsError || mcptest.Text(res) != tt.wantErr {
					t.Fatalf("error %q, want %q", mcptest.Text(res), tt.wantErr)
				}
				if tt.wantUnchanged && !slices.Equal(f.Messages["th1"].LabelIds, []string{"INBOX"}) {
					t.Errorf("labels changed on a refused call: %v", f.Messages["th1"].LabelIds)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error %s", mcptest.Text(res))
			}
			var calls []string
			for _, c := range f.Calls("POST", "") {
				calls = append(calls, c.Path[len("/gmail/v1/users/me"):])
			}
			slices.Sort(calls)
			want := slices.Sorted(slices.Values(tt.wantCalls))
			if !slices.Equal(calls, want) {
				t.Errorf("calls %v, want %v", calls, want)
			}
			for id, labels := range tt.wantLabels {
				got := slices.Sorted(slices.Values(f.Messages[id].LabelIds))
				if !slices.Equal(got, labels) {
					t.Errorf("%s labels %v, want %v", id, got, labels)
				}
			}
		})
	}
}

// manyThreads returns n distinct thread ids.
func manyThreads(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("t%d", i)
	}
	return ids
}
