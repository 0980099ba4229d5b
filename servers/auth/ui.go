package main

import (
	"crypto/subtle"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Paths of the pages and their steps.
const (
	loginPath        = "/login"
	loginBeginPath   = "/login/begin"
	loginFinishPath  = "/login/finish"
	consentPath      = "/consent"
	enrolPath        = "/enroll"
	enrolBeginPath   = "/enroll/begin"
	enrolFinishPath  = "/enroll/finish"
	scriptPath       = "/static/passkey.js"
	registrationPath = "/register"
)

//go:embed static/passkey.js
var passkeyJS []byte

//go:embed templates/page.html
var pageHTML string

var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// pageData fills the one template; Kind picks the part shown.
type pageData struct {
	Kind    string // login, consent, enroll, message
	Title   string
	Message string
	ID      string
	CSRF    string
	// consent
	ClientName   string
	ClientSource string
	RedirectHost string
	Server       string
	Door         bool // the front door: one token for the servers whose scopes are ticked
	Resource     string
	Scopes       []scopeChoice
}

type scopeChoice struct {
	Scope, Label string
	Checked      bool
}

// ui serves the sign-in, consent and enrolment pages.
type ui struct {
	store    *storage
	passkeys *passkeys
	sessions *sessions
	wa       *webauthn.WebAuthn
	provider op.OpenIDProvider
	callback func(id string) string // the library's /authorize/callback?id=
	secure   bool                   // https issuer: Secure cookies with the __Host- prefix
	enrols   *ceremonies
	logins   *ceremonies
	log      *slog.Logger
}

func (u *ui) cookieName(base string) string {
	if u.secure {
		return "__Host-" + base
	}
	return base
}

// setCookie sets a page cookie that lasts as long as an authorization request.
func (u *ui) setCookie(w http.ResponseWriter, base, value string) {
	u.setCookieFor(w, base, value, authRequestLifetime)
}

// setCookieFor sets a cookie only this server's pages read: HttpOnly, SameSite=Lax (sent on the
// app's top-level redirect to /authorize), Secure with the __Host- prefix over https.
func (u *ui) setCookieFor(w http.ResponseWriter, base, value string, life time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: u.cookieName(base), Value: value, Path: "/", HttpOnly: true, Secure: u.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(life.Seconds())})
}

func (u *ui) cookie(r *http.Request, base string) string {
	c, err := r.Cookie(u.cookieName(base))
	if err != nil {
		return ""
	}
	return c.Value
}

// render writes a page with headers that keep it out of frames and caches.
func (u *ui) render(w http.ResponseWriter, status int, d pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; form-action 'self' http: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	if err := pageTmpl.Execute(w, d); err != nil {
		u.log.Warn("render page", "error", err.Error())
	}
}

func (u *ui) message(w http.ResponseWriter, status int, title, msg string) {
	u.render(w, status, pageData{Kind: "message", Title: title, Message: msg})
}

func (u *ui) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(passkeyJS)
}

// bound loads an authorization request and checks that this browser is the one that opened
// its sign-in page (the cookie set there); pages that only show something use it.
func (u *ui) bound(r *http.Request, id string) (*authRequest, error) {
	a, err := u.store.authRequest(r.Context(), "id", id)
	if err != nil {
		return nil, errors.New("this sign-in has expired or is unknown: start again from the app")
	}
	if a.Binding == "" || subtle.ConstantTimeCompare([]byte(hashToken(u.cookie(r, "mcp-auth"))), []byte(a.Binding)) != 1 {
		return nil, errors.New("this sign-in was started in another browser: start again from the app")
	}
	return a, nil
}

// pending is bound plus the page's CSRF token, which every step that changes something sends.
func (u *ui) pending(r *http.Request, id, csrf string) (*authRequest, error) {
	a, err := u.bound(r, id)
	if err != nil {
		return nil, err
	}
	if csrf == "" || subtle.ConstantTimeCompare([]byte(csrf), []byte(a.CSRF)) != 1 {
		return nil, errors.New("the form is stale (CSRF token missing or wrong): reload the page")
	}
	return a, nil
}

// boundCallback lets only the browser that signed in and consented reach the library's
// /authorize/callback, which redirects to the client with a code: a request id seen elsewhere
// (a log, a shoulder, a shared link) mints nothing.
func (u *ui) boundCallback(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := u.bound(r, r.URL.Query().Get("id")); err != nil {
			u.message(w, http.StatusForbidden, "Cannot continue", err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// consent shows what the client asks for; the owner may untick scopes.
func (u *ui) consent(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		u.consentPost(w, r)
		return
	}
	a, err := u.bound(r, r.URL.Query().Get("id"))
	if err != nil {
		u.message(w, http.StatusForbidden, "Cannot continue", err.Error())
		return
	}
	if a.Subject == "" {
		http.Redirect(w, r, loginPath+"?id="+url.QueryEscape(a.ID), http.StatusSeeOther)
		return
	}
	c, err := u.store.clients.get(r.Context(), a.ClientID)
	if err != nil {
		u.message(w, http.StatusBadRequest, "Unknown app", err.Error())
		return
	}
	server, _ := u.store.fleet.server(a.Resource)
	d := pageData{Kind: "consent", Title: "Allow access?", ID: a.ID, CSRF: a.CSRF, ClientName: visible(c.Name), Server: server, Resource: a.Resource,
		Door: u.store.fleet.isDoor(a.Resource)}
	if c.Kind == kindCIMD {
		d.ClientSource = "described by " + hostOf(c.ID)
	} else {
		d.ClientSource = "registered itself; the name is its own claim"
	}
	d.RedirectHost = visible(hostOf(a.RedirectURI))
	for _, s := range a.Scopes {
		label := "read: list and call the tools that change nothing"
		if strings.HasSuffix(s, ":write") {
			label = "write: call every tool, including those that change or send things"
		}
		d.Scopes = append(d.Scopes, scopeChoice{Scope: s, Label: label, Checked: true})
	}
	u.render(w, http.StatusOK, d)
}

// invisible are letters that render as nothing (Hangul fillers), beside the format and
// control characters unicode classes already name.
var invisible = []rune{0x115F, 0x1160, 0x3164, 0xFFA0}

// visible returns a client's self-chosen text with every character that could hide or
// reorder what the owner reads — controls, bidi overrides and isolates, zero-width and other
// format characters, separators other than the plain space, invisible letters, invalid UTF-8 —
// written as \uXXXX, so "Good App\u202Eexe.tab" shows as such rather than as "Good Appbat.exe".
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError: // invalid UTF-8, or U+FFFD itself
			b.WriteString(`\uFFFD`)
		case r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r) && !slices.Contains(invisible, r)):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}

func hostOf(raw string) string {
	p, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return p.Host
}

// consentForm is the consent page's answer.
type consentForm struct {
	ID     string
	CSRF   string
	Allow  bool
	Scopes []string
}

// parseConsent reads the consent form: id, csrf, action=allow|deny, and the scopes kept.
func parseConsent(form url.Values) (*consentForm, error) {
	f := &consentForm{ID: form.Get("id"), CSRF: form.Get("csrf")}
	if f.ID == "" || f.CSRF == "" {
		return nil, errors.New("the form is incomplete: reload the page")
	}
	switch form.Get("action") {
	case "allow":
		f.Allow = true
	case "deny":
	default:
		return nil, errors.New("choose Allow or Deny")
	}
	for _, s := range form["scope"] {
		if len(s) > 100 || strings.ContainsAny(s, " \t\r\n") {
			return nil, fmt.Errorf("scope %q is malformed", s)
		}
		if !slices.Contains(f.Scopes, s) {
			f.Scopes = append(f.Scopes, s)
		}
	}
	if len(f.Scopes) > 2*maxDoorServers {
		return nil, errors.New("too many scopes")
	}
	return f, nil
}

// narrow returns the asked scopes the owner kept; a scope not asked is an error.
func narrow(asked, kept []string) ([]string, error) {
	var out []string
	for _, s := range kept {
		if !slices.Contains(asked, s) {
			return nil, fmt.Errorf("scope %q was not asked for", s)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out, nil
}

// consentPost ends the request: Deny (or nothing kept) sends access_denied back to the app;
// Allow stores the kept scopes and hands over to the library, which redirects with a code.
func (u *ui) consentPost(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		u.message(w, http.StatusBadRequest, "Bad form", "The form could not be read: reload the page.")
		return
	}
	f, err := parseConsent(r.PostForm)
	if err != nil {
		u.message(w, http.StatusBadRequest, "Bad form", err.Error())
		return
	}
	a, err := u.pending(r, f.ID, f.CSRF)
	if err != nil {
		u.message(w, http.StatusForbidden, "Cannot continue", err.Error())
		return
	}
	if a.Subject == "" {
		u.message(w, http.StatusForbidden, "Not signed in", "Sign in with your passkey first.")
		return
	}
	kept, err := narrow(a.Scopes, f.Scopes)
	if err != nil {
		u.message(w, http.StatusBadRequest, "Bad form", err.Error())
		return
	}
	if !f.Allow || len(kept) == 0 {
		_ = u.store.DeleteAuthRequest(r.Context(), a.ID)
		op.AuthRequestError(w, r, a, oidc.ErrAccessDenied().WithDescription("the owner denied access"), u.provider)
		return
	}
	a.Scopes, a.Consented = kept, true
	if err := u.store.saveAuthRequest(r.Context(), a); err != nil {
		u.message(w, http.StatusInternalServerError, "Error", "The consent cannot be stored; see the server log.")
		return
	}
	http.Redirect(w, r, u.callback(a.ID), http.StatusSeeOther)
}
