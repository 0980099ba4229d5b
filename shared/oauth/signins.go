package oauth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/jck411/mcp-servers/shared/admin"
)

// Limits of the sign-ins a server keeps open for the console.
const (
	signInLifetime = 15 * time.Minute // a started sign-in must be finished within this
	maxOpenSignIns = 8                // the oldest is dropped when more are started
)

// SignIns runs a server's sign-ins for the owner's console, through its admin surface: start
// (the consent URL, with the PKCE verifier and state kept here), finish (the redirected address
// the owner pastes: the code is exchanged here and the token saved the way `auth login` saves
// it), sign-out and the accounts' state. Tokens never leave the server.
type SignIns struct {
	p       *Provider
	server  string
	files   Files // the default account's token file, beside which the others live, and the client
	api     string
	hc      *http.Client // for the provider; nil: http.DefaultClient
	now     func() time.Time
	mu      sync.Mutex
	pending map[string]*pendingSignIn // by state
}

// pendingSignIn is a started sign-in: what the finish needs, never sent anywhere.
type pendingSignIn struct {
	label    string
	conf     oauth2.Config
	scopes   []string
	verifier string
	expires  time.Time
}

// NewSignIns is the console's sign-ins for server, whose default account's token file and
// client are files; api names the provider's API for Provider.Account ("" for p.APIURL); hc
// carries the calls to the provider (nil: http.DefaultClient).
func NewSignIns(p *Provider, server string, files Files, api string, hc *http.Client) *SignIns {
	return &SignIns{p: p, server: server, files: files, api: cmp.Or(api, p.APIURL), hc: hc, now: time.Now, pending: map[string]*pendingSignIn{}}
}

// redirect is the loopback address the provider sends the browser to after consent. Nothing
// listens there: the page fails to load, and the owner pastes its address into the console.
func (s *SignIns) redirect() string {
	port := s.p.DefaultPort
	if port == 0 {
		port = pastePort
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
}

// pastePort is the redirect's port for a provider that takes any loopback port (Google's
// Desktop app clients).
const pastePort = 8085

// label turns the console's label into a file's: "" and default are the default account.
func (s *SignIns) label(l string) (string, error) {
	if l == "" || l == DefaultAccount {
		return DefaultAccount, nil
	}
	if !s.p.MultiAccount {
		return "", fmt.Errorf("%s has one account here: leave the label empty", s.p.Name)
	}
	return l, CheckLabel(l)
}

// Accounts reports the accounts signed in now.
func (s *SignIns) Accounts() (admin.Accounts, error) {
	out := admin.Accounts{Provider: s.p.ID, ProviderName: s.p.Name, Service: s.server, Services: s.p.serviceNames(),
		Shared: s.p.Shared, MultiAccount: s.p.MultiAccount, ShowDialog: s.p.ShowDialog != "", Redirect: s.redirect(), Accounts: []admin.Account{}}
	if _, err := s.p.loadClient(s.files.Client); err != nil {
		out.ClientError = err.Error()
	}
	labels, err := Accounts(s.files.Token)
	if err != nil {
		return out, err
	}
	for _, label := range labels {
		src := NewSource(s.p, SourceOptions{Files: Files{Token: AccountFile(s.files.Token, label), Client: s.files.Client},
			Fix: "the console's Accounts page (or " + s.server + " auth login)", ReadOnly: true, HTTPClient: s.hc})
		st := src.Status()
		a := admin.Account{Label: label, State: st.State, Account: st.Account, Services: s.p.servicesOf(st.Scopes),
			SignedIn: st.SignedIn, Ends: st.RefreshExpiry, Message: st.Message}
		a.ReadOnly = len(a.Services) > 0 && !slices.ContainsFunc(a.Services, func(sv string) bool { return s.p.covers(st.Scopes, sv, false) })
		out.Accounts = append(out.Accounts, a)
	}
	return out, nil
}

// Start opens a sign-in and returns its consent URL.
func (s *SignIns) Start(req admin.SignInStart) (admin.SignInStarted, error) {
	label, err := s.label(req.Label)
	if err != nil {
		return admin.SignInStarted{}, err
	}
	client, err := s.p.loadClient(s.files.Client)
	if err != nil {
		return admin.SignInStarted{}, err
	}
	services := slices.Clone(req.Services)
	if len(services) == 0 {
		services = []string{s.server}
		if cur, err := ReadRecord(AccountFile(s.files.Token, label)); err == nil {
			services = append(services, s.p.servicesOf(cur.Scopes)...)
		}
	}
	slices.Sort(services)
	services = slices.Compact(services)
	scopes, err := s.p.scopesFor(services, req.ReadOnly)
	if err != nil {
		return admin.SignInStarted{}, err
	}
	conf := *client
	conf.Scopes, conf.RedirectURL = scopes, s.redirect()
	verifier, state := oauth2.GenerateVerifier(), randomState()
	opts := append(slices.Clone(s.p.AuthParams), oauth2.S256ChallengeOption(verifier))
	if req.Dialog && s.p.ShowDialog != "" {
		opts = append(opts, oauth2.SetAuthURLParam(s.p.ShowDialog, "true"))
	}
	now := s.now()
	ps := &pendingSignIn{label: label, conf: conf, scopes: scopes, verifier: verifier, expires: now.Add(signInLifetime)}
	s.mu.Lock()
	s.prune(now)
	s.pending[state] = ps
	s.mu.Unlock()
	return admin.SignInStarted{Provider: s.p.Name, ConsentURL: conf.AuthCodeURL(state, opts...), Redirect: conf.RedirectURL, Label: label, Services: services, Expires: ps.expires}, nil
}

// prune drops the expired sign-ins, and the oldest while there are too many. Call it locked.
func (s *SignIns) prune(now time.Time) {
	for k, ps := range s.pending {
		if now.After(ps.expires) {
			delete(s.pending, k)
		}
	}
	for len(s.pending) >= maxOpenSignIns {
		oldest := ""
		for k, ps := range s.pending {
			if oldest == "" || ps.expires.Before(s.pending[oldest].expires) {
				oldest = k
			}
		}
		delete(s.pending, oldest)
	}
}

// ErrPasted is a pasted address that finishes no sign-in; its message says what to paste.
var ErrPasted = errors.New("not the redirected address")

// Finish takes the address the browser was sent to after consent (or its query), exchanges
// the code of the sign-in it belongs to and saves the token. A sign-in finishes once. Errors
// never quote the address: it holds the code.
func (s *SignIns) Finish(ctx context.Context, pasted string) (admin.SignedIn, error) {
	raw := strings.TrimSpace(pasted)
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[i+1:]
	}
	q, err := url.ParseQuery(raw)
	if err != nil || (q.Get("code") == "" && q.Get("error") == "") {
		return admin.SignedIn{}, fmt.Errorf("%w: paste the whole address the browser shows after consent (it starts %s?)", ErrPasted, s.redirect())
	}
	s.mu.Lock()
	s.prune(s.now())
	ps, ok := s.pending[q.Get("state")]
	delete(s.pending, q.Get("state"))
	s.mu.Unlock()
	if !ok {
		return admin.SignedIn{}, fmt.Errorf("%w: it belongs to no open sign-in of this server (finished already, older than %s, or started elsewhere): start the sign-in again", ErrPasted, signInLifetime)
	}
	if e := q.Get("error"); e != "" {
		return admin.SignedIn{}, fmt.Errorf("sign-in refused by %s: %s", s.p.Name, e)
	}
	if q.Get("code") == "" {
		return admin.SignedIn{}, fmt.Errorf("%w: it has no code", ErrPasted)
	}
	if s.hc != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, s.hc)
	}
	tok, err := ps.conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(ps.verifier))
	if err != nil {
		return admin.SignedIn{}, fmt.Errorf("exchange the authorization code with %s: %w", s.p.Name, exchangeError(err))
	}
	rec, err := s.p.newRecord(ctx, s.hc, s.api, &ps.conf, ps.scopes, tok, s.now())
	if err != nil {
		return admin.SignedIn{}, err
	}
	if err := SaveRecord(AccountFile(s.files.Token, ps.label), rec); err != nil {
		return admin.SignedIn{}, fmt.Errorf("save the token: %w", err)
	}
	return admin.SignedIn{Label: ps.label, Account: rec.Account, Ends: s.p.ends(rec)}, nil
}

// exchangeError keeps the provider's error code and words, without the request it answered.
func exchangeError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("%s %s", re.ErrorCode, re.ErrorDescription)
		}
		return fmt.Errorf("HTTP %d", re.Response.StatusCode)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// SignOut revokes the account's grant where the provider can and deletes its token file; an
// account not signed in is not an error. A revocation that fails keeps the file.
func (s *SignIns) SignOut(ctx context.Context, l string) error {
	label, err := s.label(l)
	if err != nil {
		return err
	}
	path := AccountFile(s.files.Token, label)
	rec, err := ReadRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && s.p.RevokeURL != "" {
		if err := s.p.revoke(ctx, s.hc, rec.RefreshToken); err != nil {
			return fmt.Errorf("%w (the token file is kept)", err)
		}
	}
	return secretFile{Path: path}.Remove()
}
