package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// login shows the passkey sign-in page for an authorization request, binding it to this browser.
func (u *ui) login(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	a, err := u.store.authRequest(r.Context(), "id", id)
	if err != nil {
		u.message(w, http.StatusBadRequest, "Sign-in expired", "This sign-in has expired or is unknown: start again from the app.")
		return
	}
	owner, err := u.passkeys.owner(r.Context())
	if err != nil {
		u.message(w, http.StatusInternalServerError, "Error", "The passkeys cannot be read; see the server log.")
		return
	}
	if len(owner.creds) == 0 {
		u.message(w, http.StatusOK, "No passkey yet", "No passkey is enrolled. On the host, run `auth enroll`, open "+enrolPath+" on this site and enter the code; then start again from the app.")
		return
	}
	if a.Subject != "" {
		http.Redirect(w, r, consentPath+"?id="+url.QueryEscape(id), http.StatusSeeOther)
		return
	}
	// Each visit binds the request to this browser anew: only the browser that signs in can consent.
	b := randomToken(24)
	a.Binding = hashToken(b)
	a.CSRF = randomToken(18)
	if err := u.store.saveAuthRequest(r.Context(), a); err != nil {
		u.message(w, http.StatusInternalServerError, "Error", "The sign-in cannot be stored; see the server log.")
		return
	}
	u.setCookie(w, "mcp-auth", b)
	u.render(w, http.StatusOK, pageData{Kind: "login", Title: "Sign in", ID: id, CSRF: a.CSRF})
}

// jsonError answers a script's call.
func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// loginBegin starts a passkey assertion. It is a discoverable one: the options name no
// credential (no allowCredentials), and the browser offers whichever passkey of this site it
// holds, so starting a sign-in shows nobody the owner's credential ids.
func (u *ui) loginBegin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	id := r.URL.Query().Get("id")
	a, err := u.pending(r, id, r.Header.Get("X-CSRF-Token"))
	if err != nil {
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	owner, err := u.passkeys.owner(r.Context())
	if err != nil || len(owner.creds) == 0 {
		jsonError(w, http.StatusForbidden, "no passkey is enrolled: run `auth enroll` on the host")
		return
	}
	opts, session, err := u.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot start the passkey sign-in")
		return
	}
	u.logins.put(a.ID, &ceremony{csrf: a.CSRF, session: session, expires: time.Now().Add(ceremonyLifetime)})
	writeJSON(w, opts)
}

// errClonedPasskey is the sign-in's answer to a passkey whose signature counter went backwards.
var errClonedPasskey = errors.New("this passkey's signature counter went backwards, so it may have been copied: " +
	"it is refused from now on. On the host, remove it (`auth passkeys list`, `auth passkeys remove ID`) and enrol another (`auth enroll`)")

// loginFinish checks the assertion and marks the request signed in, with the passkey that
// did it; the browser gets a session cookie (see sessions). A passkey whose signature counter
// did not advance (the library's clone warning) is refused, now and at every later try, until
// the owner removes it.
func (u *ui) loginFinish(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	id := r.URL.Query().Get("id")
	a, err := u.pending(r, id, r.Header.Get("X-CSRF-Token"))
	if err != nil {
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	c, ok := u.logins.get(a.ID)
	if !ok {
		jsonError(w, http.StatusBadRequest, "the passkey request expired: reload the page")
		return
	}
	u.logins.drop(a.ID)
	pk, status, err := u.assertion(w, r, c.session)
	if err != nil {
		jsonError(w, status, err.Error())
		return
	}
	a.Subject, a.AuthTime, a.Passkey = ownerSubject, u.store.db.now(), pk
	if err := u.store.saveAuthRequest(r.Context(), a); err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot store the sign-in")
		return
	}
	if err := u.sessions.end(r.Context(), u.cookie(r, sessionCookie)); err != nil {
		u.log.Warn("previous session not ended", "error", err.Error())
	}
	if v, err := u.sessions.create(r.Context(), pk); err != nil {
		u.log.Warn("session not started", "error", err.Error())
	} else {
		u.setCookieFor(w, sessionCookie, v, sessionLifetime)
	}
	writeJSON(w, map[string]string{"next": consentPath + "?id=" + url.QueryEscape(id)})
}

// assertion checks a passkey sign-in's answer against its ceremony and returns the passkey's
// id (base64url), or the status and error to answer. A passkey whose signature counter did not
// advance (the library's clone warning) is refused.
func (u *ui) assertion(w http.ResponseWriter, r *http.Request, session *webauthn.SessionData) (string, int, error) {
	owner, err := u.passkeys.owner(r.Context())
	if err != nil {
		return "", http.StatusInternalServerError, errors.New("cannot read the passkeys")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxMetadataBytes)
	_, cred, err := u.wa.FinishPasskeyLogin(func(_, userHandle []byte) (webauthn.User, error) {
		if subtle.ConstantTimeCompare(userHandle, owner.handle) != 1 {
			return nil, errors.New("the passkey belongs to another user of this site")
		}
		return owner, nil
	}, *session, r)
	if err != nil {
		u.log.Warn("passkey sign-in refused", "error", err.Error())
		return "", http.StatusForbidden, errors.New("the passkey was not accepted")
	}
	// The counter is recorded either way: a clone warning stays on the passkey.
	if err := u.passkeys.used(r.Context(), cred); err != nil {
		u.log.Warn("passkey use not recorded", "error", err.Error())
	}
	pk := passkeyID(cred.ID)
	if cred.Authenticator.CloneWarning {
		u.log.Warn("passkey refused: its signature counter went backwards", "passkey", pk, "counter", cred.Authenticator.SignCount)
		return "", http.StatusForbidden, errClonedPasskey
	}
	return pk, 0, nil
}

// enrol shows the enrolment page and binds a ceremony to this browser.
func (u *ui) enrol(w http.ResponseWriter, r *http.Request) {
	b := randomToken(24)
	c := &ceremony{csrf: randomToken(18), expires: time.Now().Add(ceremonyLifetime)}
	u.enrols.put(hashToken(b), c)
	u.setCookie(w, "mcp-enrol", b)
	u.render(w, http.StatusOK, pageData{Kind: "enroll", Title: "Enrol a passkey", CSRF: c.csrf})
}

func (u *ui) enrolCeremony(r *http.Request) (string, *ceremony, error) {
	return u.enrols.checked(r, u.cookie(r, "mcp-enrol"), "enrolment")
}

// enrolBegin checks the code and starts a passkey registration.
func (u *ui) enrolBegin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	_, c, err := u.enrolCeremony(r)
	if err != nil {
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	var body struct {
		Code string `json:"code"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || !u.passkeys.codeValid(r.Context(), body.Code) {
		jsonError(w, http.StatusForbidden, "the code is wrong, used or expired: run `auth enroll` on the host for a new one")
		return
	}
	owner, err := u.passkeys.owner(r.Context())
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot read the passkeys")
		return
	}
	descs := make([]protocol.CredentialDescriptor, 0, len(owner.creds))
	for i := range owner.creds {
		descs = append(descs, owner.creds[i].Descriptor())
	}
	opts, session, err := u.wa.BeginRegistration(owner, webauthn.WithExclusions(descs))
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot start the passkey registration")
		return
	}
	c.code, c.session = body.Code, session
	writeJSON(w, opts)
}

// enrolFinish checks the new passkey, consumes the code and stores the passkey.
func (u *ui) enrolFinish(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	key, c, err := u.enrolCeremony(r)
	if err != nil || c.session == nil {
		if err == nil {
			err = errors.New("enter the code first")
		}
		jsonError(w, http.StatusForbidden, err.Error())
		return
	}
	u.enrols.drop(key)
	owner, err := u.passkeys.owner(r.Context())
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot read the passkeys")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxMetadataBytes)
	cred, err := u.wa.FinishRegistration(owner, *c.session, r)
	if err != nil {
		u.log.Warn("passkey enrolment refused", "error", err.Error())
		jsonError(w, http.StatusBadRequest, "the passkey was not accepted: reload and try again")
		return
	}
	if !u.passkeys.useCode(r.Context(), c.code) {
		jsonError(w, http.StatusForbidden, "the code was used or expired meanwhile: run `auth enroll` for a new one")
		return
	}
	if err := u.passkeys.add(r.Context(), cred); err != nil {
		jsonError(w, http.StatusInternalServerError, "cannot store the passkey")
		return
	}
	u.log.Info("passkey enrolled")
	writeJSON(w, map[string]string{"done": "Passkey enrolled. Go back to the app and sign in."})
}
