package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// Paths of the console.
const (
	consolePath            = "/console"
	consoleSwitchesPath    = "/console/switches"
	consoleActivityPath    = "/console/activity"
	consoleDevicesPath     = "/console/devices"
	consoleChartsPath      = "/console/charts"
	consoleRevokePath      = "/console/devices/revoke"
	consoleFleetAPIPath    = "/console/api/fleet"
	consoleActivityAPIPath = "/console/api/activity"
	consoleSignInPath      = "/console/signin"
	consoleSignInBeginPath = "/console/signin/begin"
	consoleSignInEndPath   = "/console/signin/finish"
	consoleSignOutPath     = "/console/signout"
)

// consoleFresh is how recent the passkey sign-in of a session must be for the console to
// change anything: an older session may look, and is sent to sign in again to act.
const consoleFresh = 10 * time.Minute

// consoleCeremonyCookie binds a console sign-in's passkey ceremony to the browser that opened it.
const consoleCeremonyCookie = "mcp-console"

// consoleUI serves the console's pages over the ui's passkeys and sessions.
type consoleUI struct {
	*ui
	c      *console
	logins *ceremonies
	origin string // the issuer's origin: a form posted from any other is refused
	now    func() time.Time
}

// owner is the console session of a request: the passkey that signed in, when, and the CSRF
// token of its forms.
type owner struct {
	Passkey string
	Started time.Time
	CSRF    string
	Fresh   bool // signed in within consoleFresh: may change things
}

// csrfFor is the CSRF token of a session's forms: a hash of the session cookie, which only the
// owner's browser holds (HttpOnly, this origin only), so another site cannot know it.
func csrfFor(cookie string) string {
	sum := sha256.Sum256([]byte("console-csrf\x00" + cookie))
	return hex.EncodeToString(sum[:16])
}

// session returns the request's console session; errNotFound when the browser has none.
func (cu *consoleUI) session(r *http.Request) (*owner, error) {
	cookie := cu.cookie(r, sessionCookie)
	pk, started, err := cu.sessions.started(r.Context(), cookie)
	if err != nil {
		return nil, err
	}
	return &owner{Passkey: pk, Started: started, CSRF: csrfFor(cookie), Fresh: cu.now().Sub(started) < consoleFresh}, nil
}

// page admits a request to a page that only shows something: a browser without a session is
// sent to sign in; JSON routes answer 401 instead.
func (cu *consoleUI) page(h func(http.ResponseWriter, *http.Request, *owner), jsonRoute bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			cu.refuse(w, r, http.StatusMethodNotAllowed, "use GET", jsonRoute)
			return
		}
		o, err := cu.session(r)
		switch {
		case err == nil:
			h(w, r, o)
		case !errors.Is(err, errNotFound):
			cu.refuse(w, r, http.StatusInternalServerError, "the sessions cannot be read; see the server log", jsonRoute)
		case jsonRoute:
			jsonError(w, http.StatusUnauthorized, "sign in to the console with your passkey first: "+consoleSignInPath)
		default:
			http.Redirect(w, r, consoleSignInPath+"?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		}
	})
}

// action admits a request that changes something: POST, the session's CSRF token, the page's
// own origin when the browser names one, and (needFresh) a passkey sign-in within
// consoleFresh. Anything else is refused before the handler runs.
func (cu *consoleUI) action(h func(http.ResponseWriter, *http.Request, *owner), needFresh bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			cu.refuse(w, r, http.StatusMethodNotAllowed, "use POST", false)
			return
		}
		o, err := cu.session(r)
		if err != nil {
			cu.refuse(w, r, http.StatusForbidden, "sign in to the console with your passkey first", false)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && origin != cu.origin {
			cu.refuse(w, r, http.StatusForbidden, "this form was sent from another site", false)
			return
		}
		if err := r.ParseForm(); err != nil || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(o.CSRF)) != 1 {
			cu.refuse(w, r, http.StatusForbidden, "the form is stale (CSRF token missing or wrong): reload the page", false)
			return
		}
		if needFresh && !o.Fresh {
			cu.render(w, http.StatusForbidden, pageData{Kind: "message", Title: "Sign in again",
				Message: "Changing anything needs a passkey sign-in within the last " + consoleFresh.String() + ". Sign in again at " + consoleSignInPath + ", then repeat the change."})
			return
		}
		h(w, r, o)
	})
}

func (cu *consoleUI) refuse(w http.ResponseWriter, r *http.Request, status int, msg string, jsonRoute bool) {
	if jsonRoute {
		jsonError(w, status, msg)
		return
	}
	cu.message(w, status, "Not allowed", msg)
}

// signIn shows the console's passkey sign-in page and binds a ceremony to this browser.
func (cu *consoleUI) signIn(w http.ResponseWriter, r *http.Request) {
	owner, err := cu.passkeys.owner(r.Context())
	if err != nil {
		cu.message(w, http.StatusInternalServerError, "Error", "The passkeys cannot be read; see the server log.")
		return
	}
	if len(owner.creds) == 0 {
		cu.message(w, http.StatusOK, "No passkey yet", "No passkey is enrolled. On the host, run `auth enroll`, open "+enrolPath+" on this site and enter the code; then open "+consolePath+" again.")
		return
	}
	b := randomToken(24)
	c := &ceremony{csrf: randomToken(18), expires: cu.now().Add(ceremonyLifetime)}
	cu.logins.put(hashToken(b), c)
	cu.setCookie(w, consoleCeremonyCookie, b)
	cu.render(w, http.StatusOK, pageData{Kind: "console-signin", Title: "Sign in to the console", CSRF: c.csrf})
}

// signInCeremony is the browser's console sign-in ceremony, checked against the page's CSRF token.
func (cu *consoleUI) signInCeremony(r *http.Request) (string, *ceremony, error) {
	return cu.logins.checked(r, cu.cookie(r, consoleCeremonyCookie), "sign-in")
}

// signInBegin starts a discoverable passkey assertion for the console.
func (cu *consoleUI) signInBegin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	_, c, err := cu.signInCeremony(r)
	if err != nil {
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	opts, session, err := cu.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot start the passkey sign-in")
		return
	}
	c.session = session
	writeJSON(w, opts)
}

// signInFinish checks the assertion and starts a session (a new one: the sign-in time is what
// makes it fresh).
func (cu *consoleUI) signInFinish(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	key, c, err := cu.signInCeremony(r)
	if err == nil && c.session == nil {
		err = errors.New("start the sign-in first")
	}
	if err != nil {
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	cu.logins.drop(key)
	pk, status, err := cu.assertion(w, r, c.session)
	if err != nil {
		jsonError(w, status, err.Error())
		return
	}
	if err := cu.sessions.end(r.Context(), cu.cookie(r, sessionCookie)); err != nil {
		cu.log.Warn("previous session not ended", "error", err.Error())
	}
	v, err := cu.sessions.create(r.Context(), pk)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot start the session")
		return
	}
	cu.setCookieFor(w, sessionCookie, v, sessionLifetime)
	cu.c.audit(r.Context(), pk, "sign-in", "signed in to the console")
	writeJSON(w, map[string]string{"next": consolePath})
}

// signOut ends the session.
func (cu *consoleUI) signOut(w http.ResponseWriter, r *http.Request, o *owner) {
	if err := cu.sessions.end(r.Context(), cu.cookie(r, sessionCookie)); err != nil {
		cu.message(w, http.StatusInternalServerError, "Error", "The session could not be ended; see the server log.")
		return
	}
	cu.c.audit(r.Context(), o.Passkey, "sign-out", "signed out of the console")
	http.Redirect(w, r, consoleSignInPath, http.StatusSeeOther)
}

// routes adds the console's routes to mux; limit rate-limits the sign-in and every change.
func (cu *consoleUI) routes(mux *http.ServeMux, limit func(http.Handler) http.Handler) {
	mux.Handle(consolePath, cu.page(cu.fleetPage, false))
	mux.Handle(consolePath+"/", http.NotFoundHandler())
	mux.Handle("GET "+consoleSwitchesPath, cu.page(cu.switchesPage, false))
	mux.Handle("POST "+consoleSwitchesPath, limit(cu.action(cu.setSwitch, true)))
	mux.Handle(consoleActivityPath, cu.page(cu.activityPage, false))
	mux.Handle(consoleDevicesPath, cu.page(cu.devicesPage, false))
	mux.Handle(consoleChartsPath, cu.page(cu.chartsPage, false))
	mux.Handle(consoleRevokePath, limit(cu.action(cu.revokeDevice, true)))
	mux.Handle(consoleAccountsPath, cu.page(cu.accountsPage, false))
	mux.Handle(consoleAccountStart, limit(cu.action(cu.startSignIn, true)))
	mux.Handle(consoleAccountFinish, limit(cu.action(cu.finishSignIn, true)))
	mux.Handle(consoleAccountSignOut, limit(cu.action(cu.signOutAccount, true)))
	mux.Handle(consoleAccountsAPIPath, cu.page(cu.accountsJSON, true))
	mux.Handle(consoleFleetAPIPath, cu.page(cu.fleetJSON, true))
	mux.Handle(consoleActivityAPIPath, cu.page(cu.activityJSON, true))
	mux.Handle(consoleClientsPath, cu.page(cu.clientsPage, false))
	mux.Handle(consoleClientsDownloadPath, cu.page(cu.clientsDownload, true))
	mux.Handle(consoleClientsAPIPath, cu.page(cu.clientsJSON, true))
	mux.Handle(consoleSignInPath, limit(http.HandlerFunc(cu.signIn)))
	mux.Handle(consoleSignInBeginPath, limit(http.HandlerFunc(cu.signInBegin)))
	mux.Handle(consoleSignInEndPath, limit(http.HandlerFunc(cu.signInFinish)))
	mux.Handle(consoleSignOutPath, cu.action(cu.signOut, false))
}

// timeout bounds what one page waits for the servers.
func timeout(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 10*time.Second)
}
