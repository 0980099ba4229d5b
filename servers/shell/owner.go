package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ownerMayAllow are the blocklist's rules a person may waive for one command: each refuses a
// line that says plainly what it does (rm -r /, mkfs, reboot …). Rules that refuse what the
// checker cannot read (a computed command, text evaluated later, a script on stdin) are not
// among them, since the question could not show what would run; nor is anything under the
// allowlist, which the operator chose and the kernel keeps.
var ownerMayAllow = map[string]bool{
	policy.RuleRmRoot:         true,
	policy.RuleMkfs:           true,
	policy.RuleDDDevice:       true,
	policy.RuleWriteDevice:    true,
	policy.RuleShutdown:       true,
	policy.RuleChmodRoot:      true,
	policy.RuleWriteAuthFiles: true,
	policy.RulePipeToShell:    true,
}

// checkOrAsk is check for run_command: a line the blocklist refuses by one of ownerMayAllow's
// rules is put to the person using the client (never the model), who may let it run once.
// allowed reports that they did; a client that cannot ask gets the refusal as before.
func (sh *shell) checkOrAsk(ctx context.Context, req *mcp.CallToolRequest, line, dir string, input bool) (allowed bool, err error) {
	refused := sh.check(ctx, "run_command", line, dir, input)
	var r *policy.Refusal
	if refused == nil || sh.policy.Mode() != policy.Blocklist || !errors.As(refused, &r) || !ownerMayAllow[r.Rule] {
		return false, refused
	}
	question := fmt.Sprintf("The shell's blocklist refuses this command (rule %s: %s). Run it once anyway, in %s?\n\n%s", r.Rule, r.Detail, dir, line)
	answer, err := confirm.Ask(ctx, req, question)
	switch {
	case errors.Is(err, confirm.ErrDeclined):
		sh.log.Warn("command declined by the owner", "tool", "run_command", "caller", kit.Caller(ctx), "command", line, "cwd", dir, "policy", sh.policy.Decision(refused))
		return false, fmt.Errorf("%w (%w)", err, refused)
	case err != nil:
		return false, err // the question goes out; nothing ran
	case answer != confirm.Accepted:
		return false, refused
	}
	sh.log.Warn("command allowed once by the owner", "tool", "run_command", "caller", kit.Caller(ctx), "command", line, "cwd", dir, "policy", sh.policy.Decision(refused))
	return true, nil
}
