package googleserver

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAccountArgListed: with one account signed in, tools/list leaves the account argument out;
// once a second account signs in from another process,
// the server lists it again as a choice of the signed-in labels, and drops it when the second
// account's token file goes.
func TestAccountArgListed(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	var f Flags
	cfg, err := config.Parse("drive", 9006, append(args, "--drive-endpoint", "http://127.0.0.1:1/"), func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	var acct *Account
	s, err := kit.New(kit.Spec{Name: "drive", Port: 9006, Setup: func(s *kit.Server) error {
		if acct, err = Open(s, &f, testProduct); err != nil {
			return err
		}
		kit.AddTool(s, kit.Tool{Name: "which_account", Description: "d", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct {
				Account string `json:"account"`
			}, error) {
				return nil, struct {
					Account string `json:"account"`
				}{acct.Label(ctx)}, nil
			})
		return nil
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.StartBackground()
	defer s.Close()
	listed := func() string {
		tools, err := s.ListTools(t.Context())
		if err != nil || len(tools) != 1 {
			t.Fatalf("tools %v, %v", tools, err)
		}
		b, _ := json.Marshal(tools[0].InputSchema)
		return string(b)
	}
	if got := listed(); strings.Contains(got, "account") {
		t.Errorf("one account signed in, listed %s", got)
	}

	googletest.AddAccount(t, args, "work", "ada@work.example", "work-token", hour, time.Time{}, driveScope)
	const want = `"account":{"description":"omit for default","enum":["default","work"],"type":"string"}`
	if n := len("," + want); n != 87 {
		t.Errorf("the listed argument costs %d bytes a tool; docs/google.md section 8 says 87: update it", n)
	}
	eventually(func() bool { return strings.Contains(listed(), want) })
	if got := listed(); !strings.Contains(got, want) {
		t.Errorf("two accounts signed in, listed %s; want %s", got, want)
	}

	if err := os.Remove(oauth.AccountFile(f.TokenFile, "work")); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool { return !strings.Contains(listed(), "account") })
	if got := listed(); strings.Contains(got, "account") {
		t.Errorf("the second account signed out, listed %s", got)
	}
}
