package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// TestTypeScriptFrontDoor is a phone's assistant on the front door, played by the official
// TypeScript MCP SDK (testdata/tsclient/door.mjs): it signs in once (discovery from the door's
// 401, DCR, a passkey sign-in in Chromium with every server allowed), calls evaluate on the
// calculator, create_note on notes and run_command on the shell through the one URL; the owner
// switches evaluate off on the calculator (its admin endpoint, as the console does), and the
// door's tools/list drops it and a call to it fails. scripts/ts-client-test.sh installs the SDK
// and runs this test; without MCP_TS_CLIENT_DIR it is skipped.
func TestTypeScriptFrontDoor(t *testing.T) {
	dir := os.Getenv("MCP_TS_CLIENT_DIR")
	if dir == "" {
		t.Skip("MCP_TS_CLIENT_DIR is not set: scripts/ts-client-test.sh installs the TypeScript SDK and runs this test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient", "door.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "door.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	f := startDoorFleet(t)
	b := newBrowser(t)
	b.enrol(f.fleetEnv)
	door := f.Issuer + "/mcp"

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "door.mjs"), door, f.callbackURL)
	steps := runClient(ctx, t, cmd, func(s clientStep, reply io.Writer) {
		switch s.Step {
		case "authorize":
			code, err := authorizeInBrowser(f.fleetEnv, b, s.URL, door, nil)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(reply, code)
		case "switch":
			c := &admin.Client{Base: f.bases["calculator"], Token: doorAdminToken}
			if _, err := c.SetSwitches(ctx, switches.State{Format: switches.Format, Version: 1, Tools: []string{"evaluate"}}); err != nil {
				t.Fatalf("switch evaluate off: %v", err)
			}
			fmt.Fprintln(reply, "switched")
		}
	})

	if a := steps["authorize"]; len(a) != 1 {
		t.Errorf("sign-ins: %d, want 1", len(a))
	}
	if tk := steps["tokens"]; len(tk) != 1 || tk[0].Scope != "calculator:read calculator:write notes:read notes:write shell:read shell:write" {
		t.Errorf("tokens saved: %+v", tk)
	}
	listed := fmt.Sprint(steps["listed"][0].Result["tools"])
	for _, tool := range []string{"evaluate", "create_note", "run_command"} {
		if !strings.Contains(listed, tool) {
			t.Errorf("the door's list lacks %s: %s", tool, listed)
		}
	}
	want := map[string]func(map[string]any) bool{
		"evaluate":    func(r map[string]any) bool { return fmt.Sprint(r["result"]) == "42" },
		"create_note": func(r map[string]any) bool { return strings.Contains(fmt.Sprint(r), "phone/first") },
		"run_command": func(r map[string]any) bool { return strings.Contains(fmt.Sprint(r["stdout"]), "from-the-phone") },
	}
	calls := steps["call"]
	if len(calls) != 3 {
		t.Fatalf("calls: %+v", calls)
	}
	for _, c := range calls {
		if ok := want[c.Message]; ok == nil || !ok(c.Result) {
			t.Errorf("%s through the door: %v", c.Message, c.Result)
		}
	}
	after, _ := steps["after"][0].Result["tools"].([]any)
	if slices.ContainsFunc(after, func(v any) bool { return v == "evaluate" }) || !slices.ContainsFunc(after, func(v any) bool { return v == "create_note" }) {
		t.Errorf("the door's list after evaluate was switched off: %v", after)
	}
	if r := steps["refused"]; len(r) != 1 || r[0].Message == "" {
		t.Errorf("a call of the switched-off evaluate: %+v", r)
	}
	if len(steps["done"]) != 1 {
		t.Errorf("the client did not finish: %v", steps)
	}
}
