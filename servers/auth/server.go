package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"

	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/metrics"
	"github.com/jck411/mcp-servers/shared/resource"
)

// settings configure the authorization server.
type settings struct {
	Issuer      string        // public URL, e.g. https://auth.example.com
	Fleet       *fleet        // the MCP servers tokens may be for
	CIMD, DCR   bool          // registration methods
	StateDir    string        // holds auth.db
	KeyLifetime time.Duration // how long a signing key signs
	Limits      limits        // rate limits of sign-in, enrolment, token, revocation and registration
	Logger      *slog.Logger
	CIMDClient  *http.Client    // fetches metadata documents; nil means public addresses only
	Console     []consoleServer // the servers the owner's console manages; none leaves /console off
	ConsoleLAN  string          // scheme and host LAN clients reach the servers at, for the console's client configurations
	Door        []doorServer    // the servers the front door (/mcp) routes to; none leaves it off
	Now         func() time.Time
}

// app is the running authorization server.
type app struct {
	settings
	db       *db
	store    *storage
	passkeys *passkeys
	handler  http.Handler
	health   *health.Registry
	metrics  *metrics.Registry
	console  *console // nil without --console-servers
}

// newApp opens the state and builds the HTTP surface.
func newApp(s settings) (*app, error) {
	iss, err := url.Parse(s.Issuer)
	if err != nil || iss.Host == "" {
		return nil, fmt.Errorf("invalid --issuer %q: give the server's public URL, e.g. https://auth.example.com", s.Issuer)
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.KeyLifetime < time.Hour {
		return nil, fmt.Errorf("invalid --key-lifetime %s: give at least 1h", s.KeyLifetime)
	}
	if s.Limits.PerIP <= 0 {
		s.Limits.PerIP = defaultRatePerIP
	}
	if s.Limits.Global <= 0 {
		s.Limits.Global = defaultRateGlobal
	}
	d, err := openDB(s.StateDir, s.Now)
	if err != nil {
		return nil, err
	}
	// Host commands (auth enroll) print URLs under the issuer they cannot otherwise know.
	if err := d.setMeta(context.Background(), "issuer", strings.TrimSuffix(s.Issuer, "/")); err != nil {
		d.Close()
		return nil, err
	}
	a := &app{settings: s, db: d, passkeys: &passkeys{db: d}}
	if a.CIMDClient == nil {
		a.CIMDClient = newCIMDClient()
	}
	if err := a.build(iss); err != nil {
		d.Close()
		return nil, err
	}
	return a, nil
}

// Close releases the database.
func (a *app) Close() error { return a.db.Close() }

func (a *app) build(iss *url.URL) error {
	issuer := strings.TrimSuffix(a.Issuer, "/")
	clients := &clientStore{db: a.db, fetch: a.CIMDClient, cimd: a.CIMD, log: a.Logger, maxUnused: maxUnusedClients,
		loginURL: func(id string) string { return issuer + loginPath + "?id=" + url.QueryEscape(id) }}
	if len(a.Door) > 0 {
		a.Fleet.door = issuer + "/mcp"
		a.Fleet.doorNames = nil
		for _, s := range a.Door {
			a.Fleet.doorNames = append(a.Fleet.doorNames, s.Name)
		}
	}
	a.store = &storage{db: a.db, keys: newKeyring(a.db, a.KeyLifetime), clients: clients, fleet: a.Fleet}
	if _, err := a.store.keys.current(context.Background()); err != nil {
		return err
	}
	var key [32]byte
	_, _ = rand.Read(key[:]) // encrypts opaque tokens, which this server never issues
	cfg := &op.Config{
		CryptoKey:             key,
		CodeMethodS256:        true,
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedUILocales:    []language.Tag{language.English},
		SupportedScopes:       append(a.Fleet.scopes(), oidc.ScopeOfflineAccess),
	}
	opts := []op.Option{}
	if iss.Scheme == "http" {
		opts = append(opts, op.WithAllowInsecure()) // loopback only: the flag check refuses others
	}
	provider, err := op.NewProvider(cfg, a.store, op.StaticIssuer(issuer), opts...)
	if err != nil {
		return fmt.Errorf("oauth provider: %w", err)
	}
	endpoints := op.Endpoints{
		Authorization: op.NewEndpoint("authorize"),
		Token:         op.NewEndpoint("token"),
		Revocation:    op.NewEndpoint("revoke"),
		JwksURI:       op.NewEndpoint("keys"),
	}
	srv := &oauthServer{LegacyServer: op.NewLegacyServer(provider, endpoints), store: a.store, fleet: a.Fleet, cimd: a.CIMD, dcr: a.DCR}
	oauth := op.RegisterLegacyServer(srv, op.AuthorizeCallbackHandler(provider))

	wa, err := newWebAuthn(iss.Hostname(), iss.Scheme+"://"+iss.Host)
	if err != nil {
		return err
	}
	u := &ui{store: a.store, passkeys: a.passkeys, sessions: &sessions{db: a.db}, wa: wa, provider: provider, secure: iss.Scheme == "https",
		callback: func(id string) string {
			return srv.AuthCallbackURL()(op.ContextWithIssuer(context.Background(), issuer), id)
		},
		enrols: &ceremonies{m: map[string]*ceremony{}}, logins: &ceremonies{m: map[string]*ceremony{}}, log: a.Logger}

	version := buildinfo.String()
	a.health = health.NewRegistry("auth", version, func() int { return 0 })
	a.health.Add("database", func(ctx context.Context) health.Result {
		if err := a.db.sql.PingContext(ctx); err != nil {
			return health.Result{Status: health.Fail, Detail: err.Error()}
		}
		return health.Result{Status: health.OK}
	})
	a.health.Add("signing key", func(ctx context.Context) health.Result {
		k, err := a.store.keys.current(ctx)
		if err != nil {
			return health.Result{Status: health.Fail, Detail: err.Error()}
		}
		return health.Result{Status: health.OK, Detail: "kid " + k.id + ", signing since " + k.activeFrom.UTC().Format(time.RFC3339)}
	})
	a.health.Add("passkeys", func(ctx context.Context) health.Result {
		o, err := a.passkeys.owner(ctx)
		if err != nil {
			return health.Result{Status: health.Fail, Detail: err.Error()}
		}
		if len(o.creds) == 0 {
			return health.Result{Status: health.Warn, Detail: "no passkey enrolled: run `auth enroll`"}
		}
		return health.Result{Status: health.OK, Detail: strconv.Itoa(len(o.creds)) + " enrolled"}
	})
	a.metrics = metrics.NewRegistry("auth", version)

	// Each endpoint has its own budget, so one sign-in costs one request of each (authorize,
	// login page, begin, finish, consent page, consent answer, token): a few flows a minute
	// from one address fit easily, a guessing loop does not. The owner's requests have a
	// global share of their own (ownerRequest).
	limit := func(h http.Handler) http.Handler {
		return newLimiter(a.Limits, a.metrics.Refused, a.Now).forOwner(u.ownerRequest).wrap(h)
	}
	mux := http.NewServeMux()
	meta := srv.metadataHandler(issuer)
	// RFC 8414 only: this server issues no ID tokens, so it publishes no OpenID Connect
	// discovery document (/.well-known/openid-configuration is a 404, and clients fall back
	// from it to this one, as the MCP specification orders them).
	mux.Handle("/.well-known/oauth-authorization-server", meta)
	mux.Handle("/authorize", limit(oauth))
	mux.Handle("/authorize/callback", u.boundCallback(oauth)) // after consent: mints the code
	mux.Handle("/token", limit(noStore(basicChallenge(issuer, oauth))))
	mux.Handle("/revoke", limit(noStore(basicChallenge(issuer, oauth))))
	mux.Handle("/keys", oauth)
	if a.DCR {
		mux.Handle(registrationPath, limit(corsLoopback(noStore(clients.registrationHandler()))))
	}
	mux.Handle(loginPath, limit(http.HandlerFunc(u.login)))
	mux.Handle(loginBeginPath, limit(http.HandlerFunc(u.loginBegin)))
	mux.Handle(loginFinishPath, limit(http.HandlerFunc(u.loginFinish)))
	mux.Handle(consentPath, limit(http.HandlerFunc(u.consent)))
	mux.Handle(enrolPath, limit(http.HandlerFunc(u.enrol)))
	mux.Handle(enrolBeginPath, limit(http.HandlerFunc(u.enrolBegin)))
	mux.Handle(enrolFinishPath, limit(http.HandlerFunc(u.enrolFinish)))
	mux.HandleFunc(scriptPath, u.script)
	if len(a.Console) > 0 {
		a.console = &console{servers: a.Console, lan: a.ConsoleLAN, resources: a.Fleet, db: a.db, log: a.Logger}
		cu := &consoleUI{ui: u, c: a.console, logins: &ceremonies{m: map[string]*ceremony{}},
			origin: iss.Scheme + "://" + iss.Host, now: a.db.now}
		cu.routes(mux, limit)
	}
	if len(a.Door) > 0 {
		// The front door: one MCP URL for the servers a grant names (docs/front-door.md).
		d := &door{issuer: issuer, servers: a.Door, store: a.store, fleet: a.Fleet, lists: newToolLists(a.db.now),
			log: a.Logger, metrics: a.metrics, now: a.db.now}
		mux.Handle("/mcp", d)
		mux.Handle("/mcp/", d)
		mux.Handle(resource.MetadataPath+"/mcp", d.metadataHandler())
		mux.Handle(resource.MetadataPath+"/mcp/", d.metadataHandler())
	}
	mux.Handle("/healthz", a.health.Handler(guard.IsLocal))
	mux.Handle("/metrics", localOnly(a.metrics.Handler()))
	mux.Handle("/", http.NotFoundHandler())
	a.handler = guard.LimitBody(1<<20, "", mux)
	return nil
}

// corsLoopback lets a page served from this machine's loopback (the MCP Inspector, which runs
// in the browser at http://localhost:6274 and registers from there) read the registration
// answer; a page of any other origin gets no CORS headers, so its browser neither sends the
// JSON registration (which needs a preflight) nor shows it the answer.
func corsLoopback(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if !loopbackOrigin(origin) {
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent) // no Access-Control-*: the browser stops here
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether an Origin header names a page on this machine's loopback:
// http or https on 127.0.0.1, [::1] or localhost, any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil || !validPort(u.Port()) {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

// noStore marks every answer of next uncacheable, as RFC 6749 §5.1 requires of responses
// that carry tokens or credentials (the token endpoint, registration, revocation).
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		next.ServeHTTP(w, r)
	})
}

func localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !guard.IsLocal(r) {
			http.Error(w, "Forbidden: served only to requests from this machine", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
