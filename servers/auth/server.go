package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
	"golang.org/x/time/rate"

	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/metrics"
)

// settings configure the authorization server.
type settings struct {
	Issuer      string        // public URL, e.g. https://auth.example.com
	Fleet       *fleet        // the MCP servers tokens may be for
	CIMD, DCR   bool          // registration methods
	StateDir    string        // holds auth.db
	KeyLifetime time.Duration // how long a signing key signs
	RatePerMin  int           // requests a minute per client IP on sign-in, enrol, token, register
	Logger      *slog.Logger
	CIMDClient  *http.Client // fetches metadata documents; nil means public addresses only
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
	if s.RatePerMin <= 0 {
		s.RatePerMin = 30
	}
	d, err := openDB(s.StateDir, s.Now)
	if err != nil {
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
	clients := &clientStore{db: a.db, fetch: a.CIMDClient, cimd: a.CIMD,
		loginURL: func(id string) string { return issuer + loginPath + "?id=" + url.QueryEscape(id) }}
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
	u := &ui{store: a.store, passkeys: a.passkeys, wa: wa, provider: provider, secure: iss.Scheme == "https",
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

	limit := newLimiter(a.RatePerMin, a.metrics.Refused)
	mux := http.NewServeMux()
	meta := srv.metadataHandler(issuer)
	mux.Handle("/.well-known/oauth-authorization-server", meta)
	mux.Handle("/.well-known/openid-configuration", meta)
	mux.Handle("/authorize", limit.wrap(oauth))
	mux.Handle("/authorize/", oauth) // the callback after consent
	mux.Handle("/token", limit.wrap(oauth))
	mux.Handle("/revoke", limit.wrap(oauth))
	mux.Handle("/keys", oauth)
	if a.DCR {
		mux.Handle(registrationPath, limit.wrap(corsOpen(clients.registrationHandler())))
	}
	mux.Handle(loginPath, limit.wrap(http.HandlerFunc(u.login)))
	mux.Handle(loginBeginPath, limit.wrap(http.HandlerFunc(u.loginBegin)))
	mux.Handle(loginFinishPath, limit.wrap(http.HandlerFunc(u.loginFinish)))
	mux.Handle(consentPath, limit.wrap(http.HandlerFunc(u.consent)))
	mux.Handle(enrolPath, limit.wrap(http.HandlerFunc(u.enrol)))
	mux.Handle(enrolBeginPath, limit.wrap(http.HandlerFunc(u.enrolBegin)))
	mux.Handle(enrolFinishPath, limit.wrap(http.HandlerFunc(u.enrolFinish)))
	mux.HandleFunc(scriptPath, u.script)
	mux.Handle("/healthz", a.health.Handler(guard.IsLocal))
	mux.Handle("/metrics", localOnly(a.metrics.Handler()))
	mux.Handle("/", http.NotFoundHandler())
	a.handler = guard.LimitBody(1<<20, mux)
	return nil
}

// corsOpen lets browser-based clients register (RFC 7591 from a web app).
func corsOpen(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "POST")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
			w.WriteHeader(http.StatusNoContent)
			return
		}
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

// limiter is a per-client-IP token bucket: perMin requests a minute, bursts of as many.
type limiter struct {
	mu      sync.Mutex
	perMin  int
	buckets map[string]*bucket
	refused func(reason string)
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perMin int, refused func(string)) *limiter {
	return &limiter{perMin: perMin, buckets: map[string]*bucket{}, refused: refused}
}

// clientIP is the caller's address: through the tunnel (a loopback peer) the address
// Cloudflare saw, else the peer.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		if cf := r.Header.Get("Cf-Connecting-Ip"); cf != "" && net.ParseIP(cf) != nil {
			return cf
		}
	}
	return host
}

func (l *limiter) allow(ip string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if len(l.buckets) > 10000 {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > time.Minute {
				delete(l.buckets, k)
			}
		}
	}
	b, ok := l.buckets[ip]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMin)/60), l.perMin)}
		l.buckets[ip] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (l *limiter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := l.allow(clientIP(r)); !ok {
			l.refused("rate_limited")
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			http.Error(w, "Too Many Requests: slow down and retry after the time in Retry-After", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
