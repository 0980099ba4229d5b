package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
)

// Paths of the accounts page: the Google and Spotify sign-ins of the servers.
const (
	consoleAccountsPath    = "/console/accounts"
	consoleAccountStart    = "/console/accounts/start"
	consoleAccountFinish   = "/console/accounts/finish"
	consoleAccountSignOut  = "/console/accounts/signout"
	consoleAccountsAPIPath = "/console/api/accounts"
)

// consoleEndsSoon is how near the end of a sign-in the accounts page warns, besides the
// provider's own "expiring" state.
const consoleEndsSoon = 14 * 24 * time.Hour

// signInGroup is one provider's sign-ins as the accounts page shows them: Google's once for
// all the servers that share its folder, Spotify's per server. Via is the server the console
// asks to sign in and out; the token never leaves it.
type signInGroup struct {
	signIns
	Via     string   `json:"via"`
	Servers []string `json:"servers"` // the servers that use these sign-ins
	Default []string `json:"default_services"`
}

// signIns is admin.Accounts under a name that leaves its Accounts field promoted.
type signIns = admin.Accounts

// accounts asks every server for its sign-ins and groups them by provider. A server without
// sign-ins (404) is left out; one the console cannot ask is named with the reason.
func (c *console) accounts(ctx context.Context) ([]signInGroup, map[string]string) {
	got := make([]*admin.Accounts, len(c.servers))
	failed := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, s := range c.servers {
		wg.Go(func() {
			a, err := s.client.Accounts(ctx)
			var ae *admin.Error
			switch {
			case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
			case err != nil:
				mu.Lock()
				failed[s.Name] = reachError(err)
				mu.Unlock()
			default:
				got[i] = &a
			}
		})
	}
	wg.Wait()
	var out []signInGroup
	for i, a := range got {
		if a == nil {
			continue
		}
		name := c.servers[i].Name
		j := slices.IndexFunc(out, func(g signInGroup) bool { return g.Provider == a.Provider && a.Shared })
		if j < 0 {
			out = append(out, signInGroup{signIns: *a, Via: name})
			j = len(out) - 1
		}
		out[j].Servers = append(out[j].Servers, name)
		if !slices.Contains(out[j].Default, a.Service) {
			out[j].Default = append(out[j].Default, a.Service)
		}
	}
	return out, failed
}

// server returns the managed server named name.
func (c *console) server(name string) (consoleServer, bool) {
	i := slices.IndexFunc(c.servers, func(s consoleServer) bool { return s.Name == name })
	if i < 0 {
		return consoleServer{}, false
	}
	return c.servers[i], true
}

// startedSignIn is a sign-in the owner started: where to give consent and where to paste.
type startedSignIn struct {
	Server string
	admin.SignInStarted
}

// accountsPage shows every sign-in with its state and the forms to sign in and out.
func (cu *consoleUI) accountsPage(w http.ResponseWriter, r *http.Request, o *owner) {
	cu.showAccounts(w, r, o, http.StatusOK, nil, "")
}

// showAccounts renders the accounts page, with a sign-in just started or an error to show.
func (cu *consoleUI) showAccounts(w http.ResponseWriter, r *http.Request, o *owner, status int, started *startedSignIn, msg string) {
	ctx, cancel := timeout(r)
	defer cancel()
	groups, failed := cu.c.accounts(ctx)
	cu.show(w, status, consoleData{Page: "accounts", Title: "Accounts", Owner: o, SignIns: groups, Unreachable: failed,
		Started: started, Error: msg, EndsSoon: cu.now().Add(consoleEndsSoon)})
}

// accountsJSON answers the accounts page's content for scripts.
func (cu *consoleUI) accountsJSON(w http.ResponseWriter, r *http.Request, _ *owner) {
	ctx, cancel := timeout(r)
	defer cancel()
	groups, failed := cu.c.accounts(ctx)
	if groups == nil {
		groups = []signInGroup{}
	}
	writeJSON(w, map[string]any{"providers": groups, "unreachable": failed})
}

// formServer is the managed server a sign-in form names, or a page that says it is not one.
func (cu *consoleUI) formServer(w http.ResponseWriter, r *http.Request) (consoleServer, bool) {
	s, ok := cu.c.server(r.PostForm.Get("server"))
	if !ok {
		cu.message(w, http.StatusBadRequest, "Not changed", fmt.Sprintf("server %q is not one the console manages.", r.PostForm.Get("server")))
	}
	return s, ok
}

// startSignIn asks a server to start a sign-in and shows where to give consent and where to
// paste the address the browser lands on.
func (cu *consoleUI) startSignIn(w http.ResponseWriter, r *http.Request, o *owner) {
	s, ok := cu.formServer(w, r)
	if !ok {
		return
	}
	req := admin.SignInStart{Label: strings.TrimSpace(r.PostForm.Get("label")), Services: r.PostForm["service"],
		ReadOnly: r.PostForm.Get("read_only") != "", Dialog: r.PostForm.Get("show_dialog") != ""}
	ctx, cancel := timeout(r)
	defer cancel()
	started, err := s.client.StartSignIn(ctx, req)
	if err != nil {
		cu.showAccounts(w, r, o, http.StatusBadRequest, nil, "The sign-in did not start: "+s.Name+" "+reachError(err))
		return
	}
	cu.c.audit(r.Context(), o.Passkey, "account sign-in", fmt.Sprintf("started for %s account %s (%s) on %s", started.Provider, started.Label, strings.Join(started.Services, ","), s.Name))
	cu.showAccounts(w, r, o, http.StatusOK, &startedSignIn{Server: s.Name, SignInStarted: started}, "")
}

// finishSignIn hands the pasted address to the server that started the sign-in. The address
// holds the code: it is never shown again or recorded.
func (cu *consoleUI) finishSignIn(w http.ResponseWriter, r *http.Request, o *owner) {
	s, ok := cu.formServer(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	done, err := s.client.FinishSignIn(ctx, admin.SignInFinish{Redirect: r.PostForm.Get("redirect")})
	if err != nil {
		cu.c.audit(r.Context(), o.Passkey, "account sign-in", "not finished on "+s.Name)
		retry := &startedSignIn{Server: s.Name}
		cu.showAccounts(w, r, o, http.StatusBadRequest, retry, "The sign-in did not finish: "+s.Name+" "+reachError(err))
		return
	}
	cu.c.audit(r.Context(), o.Passkey, "account sign-in", fmt.Sprintf("finished: account %s (%s) on %s", done.Label, cmp.Or(done.Account, "name unknown"), s.Name))
	http.Redirect(w, r, consoleAccountsPath, http.StatusSeeOther)
}

// signOutAccount asks a server to sign an account out: the provider's grant is revoked where
// it can be, and the token file deleted.
func (cu *consoleUI) signOutAccount(w http.ResponseWriter, r *http.Request, o *owner) {
	s, ok := cu.formServer(w, r)
	if !ok {
		return
	}
	label := r.PostForm.Get("label")
	ctx, cancel := context.WithTimeout(r.Context(), 40*time.Second)
	defer cancel()
	if _, err := s.client.SignOut(ctx, admin.SignOut{Label: label}); err != nil {
		cu.showAccounts(w, r, o, http.StatusBadRequest, nil, "Not signed out: "+s.Name+" "+reachError(err))
		return
	}
	cu.c.audit(r.Context(), o.Passkey, "account sign-out", "account "+label+" on "+s.Name)
	http.Redirect(w, r, consoleAccountsPath, http.StatusSeeOther)
}
