// Package kit is the server kit every MCP server in the fleet is built on: configuration,
// the guarded HTTP stack (/mcp, /healthz, /metrics), tool registration with timeouts, panic
// recovery, logs and metrics, stdio, graceful shutdown and systemd readiness.
package kit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/metrics"
	"github.com/jck411/mcp-servers/shared/resource"
	"github.com/jck411/mcp-servers/shared/sdnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ShutdownGrace bounds how long in-flight calls may run after SIGTERM.
const ShutdownGrace = 15 * time.Second

// Spec is what a server is: its id, port, how to configure it and which tools it has.
type Spec struct {
	Name         string    // the server id, also its MCP Implementation.Name
	Title        string    // a human title
	Port         int       // the fixed default port
	Instructions string    // sent to clients at initialization, followed by the offered toolsets' own
	Toolsets     []Toolset // the server's inventory: every tool it registers is in one toolset
	// SharedArgs are arguments many of the server's tools take with one meaning, explained once
	// in the instructions ("name: meaning.") instead of in every tool: tools/list shows them
	// without a description. Each argument still has its own description in its struct tag.
	SharedArgs []SharedArg
	Flags      func(fs *flag.FlagSet) // the server's own flags, if any (env fallback applies)
	Setup      func(s *Server) error  // registers tools and health checks
	Commands   map[string]Command     // subcommands such as "auth"
}

// Command is a subcommand such as `gmail auth`: when the first argument names it, the kit runs it
// with the arguments after its name instead of serving, and `NAME --help` lists its own --help.
// getenv is the environment the kit was given: read settings through it, never os.Getenv.
type Command func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int

// Server is one configured MCP server.
type Server struct {
	spec      Spec
	cfg       *config.Config
	version   string
	log       *slog.Logger
	sdkLog    *slog.Logger // for the go-sdk, which is chatty at info
	mcp       *mcp.Server
	health    *health.Registry
	metrics   *metrics.Registry
	tools     map[string]Tool                       // offered tools
	outputs   map[reflect.Type]*jsonschema.Resolved // output schemas by type, inferred once and shared by the tools returning it (resident: never collected while idle)
	declared  map[string]bool                       // every tool the server has, offered or not
	toolsetOf map[string]string                     // each tool's toolset (Spec.Toolsets)
	common    []commonArg                           // arguments every tool takes (AddCommonArg)
	closers   []func()
	tasks     []func(context.Context)
	notify    string                                           // $NOTIFY_SOCKET, when systemd supervises the server
	quiet     *quietRelease                                    // the free heap back to the system after a burst (quiet.go)
	textCheck func(tool string, missing []string, text string) // CheckTexts
}

// New builds a server from its spec and configuration; logs go to logOut.
func New(spec Spec, cfg *config.Config, logOut io.Writer) (*Server, error) {
	toolsetOf, err := checkToolsets(spec.Toolsets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	version := buildinfo.String()
	log := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel})).With("server", spec.Name)
	// The go-sdk logs every session's connect and disconnect at info, which in stateless mode is
	// every request: its logger starts at warn.
	sdkLog := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: max(cfg.LogLevel, slog.LevelWarn)})).With("server", spec.Name)
	s := &Server{
		spec:      spec,
		cfg:       cfg,
		version:   version,
		log:       log,
		sdkLog:    sdkLog,
		metrics:   metrics.NewRegistry(spec.Name, version),
		tools:     map[string]Tool{},
		outputs:   map[reflect.Type]*jsonschema.Resolved{},
		declared:  map[string]bool{},
		toolsetOf: toolsetOf,
		quiet:     newQuietRelease(),
	}
	s.health = health.NewRegistry(spec.Name, version, func() int { return len(s.tools) })
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: spec.Name, Title: spec.Title, Version: version}, &mcp.ServerOptions{
		Instructions: spec.Instructions,
		Logger:       sdkLog,
	})
	s.mcp.AddReceivingMiddleware(s.toolMiddleware, s.refuseNotOffered) // the first runs first: refusals are logged and counted
	if spec.Setup != nil {
		if err := spec.Setup(s); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s setup: %w", spec.Name, err)
		}
	}
	if err := s.checkSelection(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// SharedArg is an argument many tools take with one meaning (Spec.SharedArgs).
type SharedArg struct {
	Name    string // the argument's JSON name, as a top-level property of the tools that take it
	Meaning string // what it means and where its values come from, for the instructions
}

// ConfigError is a configuration mistake found after parsing; the command exits 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// declare records a tool and reports whether the configuration offers it.
func (s *Server) declare(t Tool) bool {
	if s.declared[t.Name] {
		panic(fmt.Sprintf("kit: tool %q registered twice", t.Name))
	}
	s.declared[t.Name] = true
	s.metrics.DeclareTool(t.Name)
	switch {
	case s.cfg.ReadOnly && !t.ReadOnly:
		return false
	case !s.selected(t.Name):
		return false
	case slices.Contains(s.cfg.DisableTools, t.Name):
		return false
	}
	s.tools[t.Name] = t
	return true
}

// Config returns the server's configuration.
func (s *Server) Config() *config.Config { return s.cfg }

// Logger returns the server's structured logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Version returns the server's version.
func (s *Server) Version() string { return s.version }

// MCP returns the underlying go-sdk server, for resources and prompts.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// AddHealthCheck adds a dependency check to /healthz.
func (s *Server) AddHealthCheck(name string, fn health.CheckFunc) { s.health.Add(name, fn) }

// AddHealthChecks adds checks whose names can change at runtime (one per signed-in account) to
// /healthz, under key.
func (s *Server) AddHealthChecks(key string, fn health.SetFunc) { s.health.AddSet(key, fn) }

// Health returns the health report as /healthz serves it.
func (s *Server) Health(ctx context.Context) health.Report {
	return s.health.Report(ctx, 5*time.Second)
}

// Metrics returns the server's metrics registry.
func (s *Server) Metrics() *metrics.Registry { return s.metrics }

// OnClose registers cleanup to run when the server stops (last registered runs first).
func (s *Server) OnClose(fn func()) { s.closers = append(s.closers, fn) }

// Background registers work to run in its own goroutine while the server serves (not for
// --list-tools or --version): StartBackground starts it with a context that ends when the
// server closes, and Close waits for it to return before the other cleanups run.
func (s *Server) Background(fn func(ctx context.Context)) { s.tasks = append(s.tasks, fn) }

// StartBackground starts the work registered with Background; Main calls it before serving.
func (s *Server) StartBackground() {
	if len(s.tasks) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, fn := range s.tasks {
		wg.Go(func() { fn(ctx) })
	}
	s.tasks = nil
	s.OnClose(func() {
		cancel()
		wg.Wait()
	})
}

// Close runs the cleanups.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// ToolNames lists the offered tools, sorted.
func (s *Server) ToolNames() []string {
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ListTools returns the offered tools exactly as a client sees them, schemas included.
func (s *Server) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "list-tools", Version: s.version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, nil
}

// Handler is the whole HTTP surface, guards in order: body limit, Host/Origin, auth, MCP.
// /healthz answers everyone, with details only for a trusted request (see trusted); /metrics
// needs a token when tokens are configured and otherwise answers only local requests.
func (s *Server) Handler() (http.Handler, error) {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true, // guard.Hosts does this, allowing configured tunnel hosts
		MaxRequestBodyBytes:        s.cfg.MaxBodyBytes,
		Logger:                     s.sdkLog,
	})
	var tokens *guard.Tokens
	metricsRoute := s.localOnly(s.metrics.Handler())
	// protect puts the MCP endpoint at path (/mcp or a narrowed URL) behind the server's auth.
	protect := func(_ string, h http.Handler) http.Handler { return h }
	if s.cfg.AuthTokensFile != "" {
		var err error
		if tokens, err = guard.LoadTokens(s.cfg.AuthTokensFile); err != nil {
			return nil, err
		}
		tokens.Refused = s.metrics.Refused
		protect, metricsRoute = func(_ string, h http.Handler) http.Handler { return tokens.Middleware(h) }, tokens.Middleware(s.metrics.Handler())
	}
	mux := http.NewServeMux()
	if s.cfg.OAuthIssuer != "" {
		// OAuth access tokens for this server, and the static tokens beside them. Each narrowed
		// URL is a resource of its own (RFC 9728 path-derived metadata): a client that takes
		// only that URL discovers metadata naming it, and a token for it works there and at the
		// URLs that narrow it, never at a wider one; a token for /mcp works everywhere.
		res := resource.New(resource.Options{Issuer: s.cfg.OAuthIssuer, IssuerURL: s.cfg.OAuthIssuerURL, PublicURL: s.cfg.PublicURL, Server: s.spec.Name})
		var static resource.Static
		if tokens != nil {
			static = tokens
		}
		protect = func(path string, h http.Handler) http.Handler {
			at := res
			if path != "/mcp" {
				at = res.At(path)
				mux.Handle(at.MetadataPath(), at.MetadataHandler())
			}
			return at.Middleware(static, s.toolInfo, s.metrics.Refused, h)
		}
		mux.Handle(resource.MetadataPath, res.RootMetadataHandler())
		mux.Handle(resource.MetadataPath+"/mcp", res.MetadataHandler())
	}
	mcpRoute := protect("/mcp", s.narrowed("", false, mcpHandler))
	// The narrowed URLs for clients that take only a URL (/mcp/x/{toolset}[/readonly],
	// /mcp/readonly): the same endpoint, behind the same guards, offering less.
	for path, n := range s.pathRoutes() {
		mux.Handle(path, protect(path, s.narrowed(n.set, n.readOnly, mcpHandler)))
	}
	// A request may see /healthz's details when it surely comes from this machine (not through
	// the tunnel, which connects from loopback too) or carries a valid token. A wrong token
	// gets the summary, not a 401, so that probes keep working.
	trusted := func(r *http.Request) bool {
		if guard.IsLocal(r) {
			return true
		}
		if tokens == nil {
			return false
		}
		_, ok := tokens.FromRequest(r)
		return ok
	}
	mux.Handle("/mcp", mcpRoute) // without tokens only as config allows: loopback or --insecure-no-auth
	mux.Handle("/healthz", s.health.Handler(trusted))
	mux.Handle("/metrics", metricsRoute)
	mux.Handle("/", http.NotFoundHandler())
	hosts := guard.NewHosts(s.cfg.Host, s.cfg.AllowedHosts, s.cfg.AllowedOrigins)
	hosts.Refused = s.metrics.Refused
	guarded, public := hosts.Middleware(mux), hosts.HostMiddleware(mux)
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The OAuth metadata is public (CORS *): browser-based clients on any origin read it.
		if s.cfg.OAuthIssuer != "" && strings.HasPrefix(r.URL.Path, resource.MetadataPath) {
			public.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
	return s.quiet.track(guard.LimitBody(s.cfg.MaxBodyBytes, route)), nil
}

// toolInfo reports whether a tool is offered and whether it changes nothing.
func (s *Server) toolInfo(name string) (known, readOnly bool) {
	t, ok := s.tools[name]
	return ok, t.ReadOnly
}

// localOnly answers 403 to a request that is not surely from this machine (guard.IsLocal).
func (s *Server) localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !guard.IsLocal(r) {
			s.metrics.Refused(guard.ReasonNotLocal)
			http.Error(w, "Forbidden: without --auth-tokens-file this is served only to requests from this machine", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Serve answers HTTP on ln until ctx is done, then drains in-flight calls (bounded) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	h, err := s.Handler()
	if err != nil {
		return err
	}
	return s.serve(ctx, ln, h)
}

func (s *Server) serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		// No WriteTimeout: it would cut SSE responses; every tool has its own timeout.
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	qctx, stopQuiet := context.WithCancel(ctx)
	defer stopQuiet()
	go s.quiet.run(qctx, quietPeriod)
	s.log.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "version", s.version, "tools", len(s.tools),
		"auth", s.cfg.AuthTokensFile != "", "oauth_issuer", s.cfg.OAuthIssuer, "read_only", s.cfg.ReadOnly)
	if err := sdnotify.Notify(s.notify, sdnotify.Ready); err != nil {
		s.log.Warn("systemd readiness not reported", "error", err.Error())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	_ = sdnotify.Notify(s.notify, sdnotify.Stopping)
	s.log.Info("shutting down", "grace", ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// RunStdio serves MCP over stdin and stdout until ctx is done or stdin closes; requests read
// before stdin closed are answered first (see ServeIO).
func (s *Server) RunStdio(ctx context.Context) error {
	err := s.ServeIO(ctx, os.Stdin, os.Stdout)
	select {
	case <-ctx.Done():
		return nil // stopped by a signal: a clean exit
	default:
		return err
	}
}
