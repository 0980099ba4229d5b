package googleserver

import (
	"context"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// Require refuses, without calling Google, a call that needs service's scopes (a sign-in
// service beyond the server's own: calendar's tasks, gmail's contacts) when the account's
// sign-in does not grant them, naming the login that adds them and keeps every service the
// sign-in has. A sign-in that cannot be used at all is left to the call, which reports it as
// every tool does.
func (a *Account) Require(ctx context.Context, service string) error {
	st := a.Status(ctx)
	if !st.Usable() || oauth.Google.Grants(st.Scopes, service, a.ReadOnly) {
		return nil
	}
	services := append(oauth.Google.ServicesOf(st.Scopes), a.product.Server, service)
	slices.Sort(services)
	login := a.product.Server + " auth login"
	if label := a.Label(ctx); label != oauth.DefaultAccount {
		login += " --account " + label
	}
	login += " --services " + strings.Join(slices.Compact(services), ",")
	if a.ReadOnly {
		login += " --read-only"
	}
	who := st.Account
	if who == "" {
		who = "this account"
	}
	return kit.Errorf(kit.CodeUnavailable, "the Google sign-in of %s does not grant %s: run `%s` (the services it has, plus %s) and call again", who, a.product.Name, login, service)
}
