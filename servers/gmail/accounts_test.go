package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestAccountArgument: with a second account signed in, a tool called with account goes to
// Gmail with that account's token, and without it with the default's; an unknown account is
// refused naming those signed in; every tool lists the argument, with the signed-in labels.
func TestAccountArgument(t *testing.T) {
	t.Parallel()
	f := newFakeGmail(t)
	f.Accept("work-token")
	args := signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour))
	googletest.AddAccount(t, args, "work", "ada@work.example", "work-token", time.Now().Add(time.Hour), time.Time{},
		"https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic")
	h := mcptest.Start(t, spec(), args...)
	cs := h.Connect(t, "")

	for _, tl := range mcptest.Tools(t, cs) {
		if !strings.Contains(string(mustJSON(t, tl.InputSchema)), `"account":{"description":"omit for default","enum":["default","work"],"type":"string"}`) {
			t.Errorf("%s lacks the account argument: %s", tl.Name, mustJSON(t, tl.InputSchema))
		}
	}
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "every tool takes account") {
		t.Errorf("instructions do not explain account: %q", got)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "in:inbox"}, "Bearer " + googlefake.Token},
		{map[string]any{"query": "in:inbox", "account": "work"}, "Bearer work-token"},
		{map[string]any{"query": "in:inbox", "account": "default"}, "Bearer " + googlefake.Token},
	} {
		before := f.Requests()
		mcptest.CallFor[searchOutput](t, cs, "search_messages", tc.args)
		calls := f.Calls("GET", "/messages")
		if f.Requests() == before || calls[len(calls)-1].Auth != tc.want {
			t.Errorf("search %v went with %q, want %q", tc.args, calls[len(calls)-1].Auth, tc.want)
		}
	}
	p, _ := mcptest.CallFor[profileOutput](t, cs, "get_gmail_profile", map[string]any{"account": "work"})
	if !strings.HasPrefix(p.SignIn, "ok: ada@work.example") {
		t.Errorf("profile of work: %+v", p)
	}
	msg := mcptest.CallError(t, cs, "get_gmail_profile", map[string]any{"account": "home"})
	if !strings.Contains(msg, `no Google account "home" is signed in (signed in: default, work)`) || !strings.Contains(msg, "`gmail auth login --account home`") {
		t.Errorf("unknown account: %s", msg)
	}
	if msg := mcptest.CallError(t, cs, "get_gmail_profile", map[string]any{"account": "Work"}); !strings.Contains(msg, `invalid arguments: account "Work"`) {
		t.Errorf("bad label: %s", msg)
	}
}

// TestAccountArgumentOneAccount: with one account signed in no tool lists account, and a client
// that sends it all the same is answered: with that account, or told which one is signed in.
func TestAccountArgumentOneAccount(t *testing.T) {
	t.Parallel()
	f := newFakeGmail(t)
	args := signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour))
	h := mcptest.Start(t, spec(), args...)
	cs := h.Connect(t, "")
	for _, tl := range mcptest.Tools(t, cs) {
		if strings.Contains(string(mustJSON(t, tl.InputSchema)), `"account"`) {
			t.Errorf("%s lists account with one account signed in: %s", tl.Name, mustJSON(t, tl.InputSchema))
		}
	}
	mcptest.CallFor[searchOutput](t, cs, "search_messages", map[string]any{"query": "in:inbox", "account": "default"})
	if calls := f.Calls("GET", "/messages"); len(calls) == 0 || calls[len(calls)-1].Auth != "Bearer "+googlefake.Token {
		t.Errorf("search with account default went with %+v", calls)
	}
	msg := mcptest.CallError(t, cs, "get_gmail_profile", map[string]any{"account": "work"})
	if !strings.Contains(msg, `no Google account "work" is signed in (signed in: default)`) {
		t.Errorf("unknown account: %s", msg)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
