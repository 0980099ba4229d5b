// Package googleserver is what every Google server (gmail, calendar, drive) does the same way on
// top of the shared sign-in: its Google flags, the authorized HTTP client with retries, the
// "google token" health check, and turning Google API errors into tool errors that say what to do.
package googleserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// Product is one Google API as a server uses it.
type Product struct {
	Server       string // the server id, which names its auth command: gmail
	Name         string // the API's name in messages: Google Drive
	EndpointFlag string // the flag that points the client elsewhere (tests use it): drive-endpoint
	Endpoint     string // the API's base URL
	// Background is set for a server that calls Google on its own (notes' sync), not per tool
	// call: its tools take no account argument and it uses the default account.
	Background bool
}

// service names the API in the upstream metrics: the endpoint flag without "-endpoint"
// (gmail, calendar, drive).
func (p Product) service() string { return strings.TrimSuffix(p.EndpointFlag, "-endpoint") }

// Flags are the flags every Google server takes.
type Flags struct {
	TokenFile  string
	ClientFile string
	Endpoint   string
	Concurrent int
}

// Register adds --google-token-file, --google-client-file, the product's endpoint flag and
// --max-concurrent to fs.
func (f *Flags) Register(fs *flag.FlagSet, p Product) {
	fs.StringVar(&f.TokenFile, "google-token-file", "", "the Google token file the Google servers share; other accounts' files are beside it, token-LABEL.json (default: /var/lib/mcp-servers/google/token.json when that folder exists, else ~/.local/state/mcp-servers/google/token.json)")
	fs.StringVar(&f.ClientFile, "google-client-file", "", "the Google OAuth client JSON, Desktop app type (default: $CREDENTIALS_DIRECTORY/google_client.json, else /etc/mcp-servers/credentials/google/client.json, else client.json beside the token file)")
	fs.StringVar(&f.Endpoint, p.EndpointFlag, p.Endpoint, "base URL of the "+p.Name+" API")
	fs.IntVar(&f.Concurrent, "max-concurrent", 5, p.Name+" API calls in flight at once for each account")
}

// Account is a server's authorized connection to one Google API, for every Google account
// signed in: a call uses the account its context names (the tool's account argument, or
// WithAccount), else the default account (token.json), else the first signed in.
type Account struct {
	HTTP     *http.Client // authorized as the request context's account, with bounded retries and the concurrency limit
	Endpoint string       // the API's base URL, ending in "/"
	ReadOnly bool         // the server runs with --read-only
	product  Product
	set      *accountSet // shared with the accounts For returns
}

// accountSet is the server's open sign-ins, one per account label.
type accountSet struct {
	server   string      // names the login command: gmail
	files    oauth.Files // the default account's token file, and the OAuth client
	readOnly bool
	conc     int
	watch    *oauth.Watch // the token folder; nil when it cannot be watched (then every call looks)

	mu      sync.Mutex
	labels  map[string]*signin // opened on first use
	list    []string           // the signed-in accounts as of listGen
	listGen uint64             // the watch generation list is current for; 0 for none
	looks   int                // how often the folder was listed (tests)
}

// signin is one account's token source and its authorized transport.
type signin struct {
	src *oauth.Source
	rt  http.RoundTripper
}

type accountKey struct{}

// WithAccount returns ctx naming the signed-in account (its label; "default" for token.json)
// that calls made with it use.
func WithAccount(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, accountKey{}, label)
}

// ArgName is the argument every Google tool takes to choose the account.
const ArgName = "account"

// Open validates the flags and builds the account without using the network. A missing or bad
// OAuth client is logged and reported by every tool, so the server still starts. It adds the
// optional account argument to every tool registered after it and a "google token" health
// check per signed-in account to s; for a Background product only the check of the account it
// uses (the default).
func Open(s *kit.Server, f *Flags, p Product) (*Account, error) {
	switch {
	case f.Concurrent < 1 || f.Concurrent > 50:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 50", f.Concurrent)
	case !strings.HasPrefix(f.Endpoint, "http://") && !strings.HasPrefix(f.Endpoint, "https://"):
		return nil, fmt.Errorf("--%s %q: give an http(s) URL", p.EndpointFlag, f.Endpoint)
	}
	cfg := s.Config()
	files := oauth.Google.Locate(p.Server, oauth.Files{Token: f.TokenFile, Client: f.ClientFile}, cfg.StateDir, cfg.Getenv)
	a := &Account{
		Endpoint: strings.TrimSuffix(f.Endpoint, "/") + "/",
		ReadOnly: cfg.ReadOnly,
		product:  p,
		set:      &accountSet{server: p.Server, files: files, readOnly: cfg.ReadOnly, conc: f.Concurrent, labels: map[string]*signin{}},
	}
	// The sign-ins are looked up once per change of the token folder, which `auth login` (another
	// process) writes; a folder that cannot be watched (not made yet) is looked at on every call.
	if w, err := oauth.WatchDir(filepath.Dir(files.Token)); err != nil {
		s.Logger().Debug("token folder not watched; sign-ins are looked up on every call", "error", err.Error())
	} else {
		a.set.watch = w
		s.OnClose(func() { _ = w.Close() })
	}
	if si := a.set.open(oauth.DefaultAccount); si.src.ClientErr() != nil {
		s.Logger().Warn("Google OAuth client not loaded; tools will say so", "error", si.src.ClientErr().Error())
	}
	// The owner's console signs accounts in and out through the admin surface; the token
	// stays in the shared folder, written the way `auth login` writes it.
	signIns := oauth.NewSignIns(oauth.Google, p.Server, files, "", nil).Handler()
	s.HandleAdmin(admin.PathAccounts, signIns)
	s.HandleAdmin(admin.PathAccounts+"/", signIns)
	a.HTTP = &http.Client{Transport: s.Metrics().Upstream(p.service(), roundTripper(a.roundTrip))} // mcp_upstream_* metrics
	// A Background product uses one account, the default: its check alone.
	if p.Background {
		s.AddHealthCheck("google token", a.Health)
		return a, nil
	}
	s.AddCommonArg(kit.CommonArg{
		Name:         ArgName,
		Schema:       &jsonschema.Schema{Type: "string", Pattern: oauth.LabelPattern, Description: "Google account label; omit for the default"},
		Show:         a.shownArg,
		Instructions: "With more than one Google account signed in, every tool takes account: the label of one of them; omit it for the default account.",
		Bind:         a.bind,
	})
	s.AddHealthChecks("google token", a.HealthChecks)
	s.Background(func(ctx context.Context) { a.relistOnSignIn(ctx, s) })
	return a, nil
}

// For is the same sign-ins naming another Google API in its errors (the drive server's
// Sheets and Docs calls, made with their generated clients over the same HTTP client).
// Upstream metrics still count its calls under the account's own service.
func (a *Account) For(p Product) *Account {
	b := *a
	b.product = p
	return &b
}

// roundTripper adapts a function to http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// roundTrip sends the request as the account its context names; a failed answer names the
// account in a header for the error it becomes (AsAPIError).
func (a *Account) roundTrip(req *http.Request) (*http.Response, error) {
	label := a.Label(req.Context())
	resp, err := a.set.open(label).rt.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		resp.Header.Set(accountHeader, label)
	}
	return resp, err
}

// open returns the account's token source and transport, opening them on first use.
func (ss *accountSet) open(label string) *signin {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if si, ok := ss.labels[label]; ok {
		return si
	}
	fix := ss.server + " auth login"
	if label != oauth.DefaultAccount {
		fix += " --account " + label
	}
	if ss.readOnly {
		fix += " --read-only"
	}
	files := oauth.Files{Token: oauth.AccountFile(ss.files.Token, label), Client: ss.files.Client}
	src := oauth.NewSource(oauth.Google, oauth.SourceOptions{Files: files, Fix: fix, Service: ss.server, ReadOnly: ss.readOnly, Watch: ss.watch})
	si := &signin{src: src, rt: src.HTTPClient(ss.conc, nil).Transport}
	ss.labels[label] = si
	return si
}

// Label is the account calls with ctx use: the one it names, else the default account when it
// is signed in, else the first signed in (by label), else the default (whose missing sign-in
// the calls then report).
func (a *Account) Label(ctx context.Context) string {
	if l, ok := ctx.Value(accountKey{}).(string); ok && l != "" {
		return l
	}
	if a.set == nil { // an account not built by Open (a client over a test's transport)
		return oauth.DefaultAccount
	}
	if list, err := a.set.signedIn(); err == nil && len(list) > 0 {
		return list[0] // "default" when token.json exists
	}
	return oauth.DefaultAccount
}

// Accounts lists the signed-in accounts' labels: "default" first when token.json exists.
func (a *Account) Accounts() ([]string, error) {
	list, err := a.set.signedIn()
	return slices.Clone(list), err
}

// signedIn lists the signed-in accounts, looking at the token folder only when it changed since
// the last look (every time when it is not watched). The result is shared: do not modify it.
func (ss *accountSet) signedIn() ([]string, error) {
	gen := ss.watch.Gen() // taken before the look: a change during it moves gen, and the next call looks again
	ss.mu.Lock()
	if gen != 0 && gen == ss.listGen {
		list := ss.list
		ss.mu.Unlock()
		return list, nil
	}
	ss.looks++
	ss.mu.Unlock()
	list, err := oauth.Accounts(ss.files.Token)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	ss.list, ss.listGen = list, gen
	ss.mu.Unlock()
	return list, nil
}

// bind checks the tool's account argument against the accounts signed in now.
func (a *Account) bind(ctx context.Context, v any) (context.Context, error) {
	label, _ := v.(string)
	list, err := a.Accounts()
	if err != nil {
		return ctx, kit.Errorf(kit.CodeUnavailable, "%v", err)
	}
	if !slices.Contains(list, label) {
		signed := "none"
		if len(list) > 0 {
			signed = strings.Join(list, ", ")
		}
		login := a.set.server + " auth login --account " + label
		if label == oauth.DefaultAccount {
			login = a.set.server + " auth login"
		}
		return ctx, kit.Errorf(kit.CodeInvalidInput, "no Google account %q is signed in (signed in: %s); give one of those, or omit account for the default; to add it run `%s`", label, signed, login)
	}
	return WithAccount(ctx, label), nil
}

// Status is the sign-in state of the account ctx names (see Label), without calling Google.
func (a *Account) Status(ctx context.Context) oauth.Status {
	return a.set.open(a.Label(ctx)).src.Status()
}

// Health reports the sign-in of the account ctx names: missing or expiring warn (the server is
// up, tools say how to sign in), expired or revoked fail.
func (a *Account) Health(ctx context.Context) health.Result {
	return result(a.Status(ctx))
}

func result(st oauth.Status) health.Result {
	switch st.State {
	case oauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case oauth.StateExpiring, oauth.StateMissing:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// HealthChecks reports every signed-in account: "google token" for the default account
// (also when it is signed out, unless another account is signed in) and "google token (LABEL)"
// for the others. An account that cannot be used fails only when no account can be; while
// another works it warns, so that the server stays ready for the accounts that do.
func (a *Account) HealthChecks(context.Context) map[string]health.Result {
	list, err := a.Accounts()
	if err != nil {
		return map[string]health.Result{"google token": {Status: health.Fail, Detail: err.Error()}}
	}
	if len(list) == 0 {
		list = []string{oauth.DefaultAccount}
	}
	out := make(map[string]health.Result, len(list))
	usable := false
	for _, label := range list {
		st := a.set.open(label).src.Status()
		usable = usable || st.Usable()
		out[checkName(label)] = result(st)
	}
	if usable {
		for name, r := range out {
			if r.Status == health.Fail {
				r.Status = health.Warn
				out[name] = r
			}
		}
	}
	return out
}

func checkName(label string) string {
	if label == oauth.DefaultAccount {
		return "google token"
	}
	return "google token (" + label + ")"
}

// Fail turns an error from a Google call into the tool error the model sees; what names the
// object for "not found" ("message 18c2…").
func (a *Account) Fail(err error, what string) error {
	name := a.product.Name
	var se *oauth.SignInError
	var ke *kit.Error
	ge, isAPI := AsAPIError(err)
	switch {
	case errors.As(err, &ke):
		return err
	case errors.As(err, &se):
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return kit.Errorf(kit.CodeTimeout, "%s did not answer in time; try again", name)
	case isAPI:
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		lower := strings.ToLower(msg)
		switch {
		case ge.Code == http.StatusNotFound || ge.Code == http.StatusGone:
			return kit.Errorf(kit.CodeNotFound, "%s not found", what)
		case ge.Code == http.StatusBadRequest:
			return kit.Errorf(kit.CodeInvalidInput, "%s refused the request: %s", name, msg)
		case ge.Code == http.StatusForbidden && (strings.Contains(lower, "insufficient") || strings.Contains(msg, "scope")):
			login := a.product.Server + " auth login"
			if ge.Account != "" && ge.Account != oauth.DefaultAccount {
				login += " --account " + ge.Account
			}
			return kit.Errorf(kit.CodeUnavailable, "the Google sign-in does not allow this (granted read-only?): run `%s` without --read-only", login)
		case ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusForbidden && strings.Contains(lower, "rate"):
			return kit.Errorf(kit.CodeLimit, "%s is rate-limiting this account (still after retries): wait a minute and try again", name)
		case ge.Code >= 500:
			return kit.Errorf(kit.CodeUnavailable, "%s failed (%d %s) after retries; try again later", name, ge.Code, msg)
		}
		return kit.Errorf(kit.CodeUnavailable, "%s answered %d: %s", name, ge.Code, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "%s call failed: %v", name, err)
}
