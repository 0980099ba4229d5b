package kit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// TestHelpListsCommands: --help ends with every subcommand's own usage, so `gmail --help`
// names `gmail auth login|status|logout`.
func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	spec := testSpec(nil)
	spec.Name = "gmail"
	spec.Commands = map[string]kit.Command{"auth": oauth.Google.Command("gmail", nil)}
	var stdout, stderr bytes.Buffer
	if code := kit.Run(t.Context(), spec, []string{"--help"}, func(string) string { return "" }, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	help := stderr.String()
	flags, cmds, ok := strings.Cut(help, "\nCommands:\n")
	if !ok || !strings.Contains(flags, "--port") {
		t.Fatalf("help lacks the flags and then a Commands section:\n%s", help)
	}
	for _, want := range []string{
		"  usage: gmail auth login|status|logout [flags]\n",
		"    gmail auth login    sign in to Google",
		"    gmail auth status   show the sign-in",
		"    gmail auth logout   revoke the grant at Google",
	} {
		if !strings.Contains(cmds, want) {
			t.Errorf("Commands section lacks %q:\n%s", want, cmds)
		}
	}

	// A server without subcommands has no Commands section.
	stderr.Reset()
	kit.Run(t.Context(), testSpec(nil), []string{"--help"}, func(string) string { return "" }, &stdout, &stderr)
	if strings.Contains(stderr.String(), "Commands:") {
		t.Errorf("help without subcommands shows a Commands section:\n%s", stderr.String())
	}
}
