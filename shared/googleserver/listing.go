package googleserver

import (
	"context"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/jck411/mcp-servers/shared/kit"
)

// relistEvery is how often the server looks whether the signed-in accounts changed, to list
// or drop the account argument; between changes a look is one atomic load (the folder watch).
const relistEvery = 2 * time.Second

// shownArg is the account argument as tools/list shows it: left out while at most one account
// is signed in, since every call then uses that one (a call that gives it is still answered),
// and from the second on a choice of the signed-in labels, the first the one used without it.
func (a *Account) shownArg() *jsonschema.Schema {
	list, err := a.Accounts()
	if err != nil || len(list) < 2 {
		return nil
	}
	labels := make([]any, len(list))
	for i, l := range list {
		labels[i] = l
	}
	return &jsonschema.Schema{Type: "string", Enum: labels, Description: "omit for " + list[0]}
}

// relistOnSignIn lists the tools again whenever the signed-in accounts change (`auth login
// --account`, run by another process, or a token file removed), so that tools/list offers the
// account argument with the labels signed in now, and tells the sessions that listen.
func (a *Account) relistOnSignIn(ctx context.Context, s *kit.Server) {
	t := time.NewTicker(relistEvery)
	defer t.Stop()
	var last []string // none yet: the first look lists again if the accounts changed since Open
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		list, err := a.Accounts()
		if err != nil || slices.Equal(list, last) {
			continue
		}
		last = list
		if s.RelistTools() {
			s.Logger().Info("tools listed again for the signed-in Google accounts", "accounts", list)
		}
	}
}
