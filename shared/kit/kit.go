// Package kit is the server kit every MCP server in the fleet is built on: a server is a Spec
// (its id, port, toolsets and a Setup that registers its tools); the kit gives it the command
// line, the guarded HTTP surface (/mcp and its narrowed URLs, /healthz, /metrics), tool
// registration with timeouts, panic recovery, logs and metrics, stdio, graceful shutdown and
// systemd readiness. Its parts live beside it: inventory (toolsets, tools and what a request
// may see), schema (argument schemas and decoding), stdio and memory.
package kit

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/jck411/mcp-servers/shared/kit/memory"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/metrics"
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
	Toolsets     []Toolset // the server's toolsets, in the order they are listed; every Tool names one
	// SharedArgs are arguments many of the server's tools take with one meaning, explained once
	// in the instructions ("name: meaning.") instead of in every tool: tools/list shows them
	// with their Short description only. Each argument still has its own description in its
	// struct tag.
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
	spec     Spec
	cfg      *config.Config
	version  string
	log      *slog.Logger
	sdkLog   *slog.Logger // for the go-sdk, which is chatty at info
	mcp      *mcp.Server
	health   *health.Registry
	metrics  *metrics.Registry
	inv      *inventory.Inventory                  // every tool the server has, its toolset, and which the configuration offers
	tools    map[string]Tool                       // the offered tools, as registered
	outputs  map[reflect.Type]*jsonschema.Resolved // output schemas by type, inferred once and shared by the tools returning it (resident: never collected while idle)
	common   []commonArg                           // arguments every tool takes (AddCommonArg)
	setupErr []error                               // tools Setup could not register (inventory.Declare)
	closers  []func()
	tasks    []func(context.Context)
	notify   string               // $NOTIFY_SOCKET, when systemd supervises the server
	quiet    *memory.QuietRelease // the free heap back to the system after a burst
	// textCheck, when set (CheckTexts), hears of every text that lacks a next-call field.
	textCheck func(tool string, missing []string, text string)
	asker     *confirm.Asker  // signs the owner's confirmations (package confirm)
	features  features        // resource templates and prompts (AddResourceTemplate, AddPrompt)
	inflight  inflight        // calls over HTTP by caller and id, for notifications/cancelled
	life      context.Context // ends when the server stops: the calls still running end with it
	endLife   context.CancelCauseFunc

	registered    map[string]*registration // the offered tools as given to the go-sdk, for the switches
	sdkOff        map[string]bool          // offered tools taken out of the go-sdk's list by a switch
	switchMu      sync.Mutex               // orders writers of the switches (admin, the file watch)
	switchStamp   switches.Stamp           // the switches file as last read or written
	switchErr     error                    // why the switches file could not be read at start, if it could not
	switchUnknown []string                 // entries of the switches in force that name nothing of this server
	recent        *recentCalls             // the last calls, for the console's activity page
	adminRoutes   []adminRoute             // routes the server added to its admin surface (HandleAdmin)
	boot          string                   // a random id of this run of the process
	started       time.Time
}

// Toolset is a group of a server's tools that a user switches on or off together.
type Toolset = inventory.Toolset

// ToolsetID names a toolset; a server declares its toolsets' ids as constants and names one in
// every Tool.
type ToolsetID = inventory.ToolsetID

// ToolsetInfo is one toolset as --list-toolsets prints it.
type ToolsetInfo = inventory.ToolsetInfo

// Names in --toolsets and X-MCP-Toolsets that stand for several toolsets.
const (
	ToolsetAll     = inventory.All     // every toolset (also /mcp/x/all)
	ToolsetDefault = inventory.Default // every toolset that is not Optional
)

// New builds a server from its spec and configuration; logs go to logOut.
func New(spec Spec, cfg *config.Config, logOut io.Writer) (*Server, error) {
	inv, err := inventory.New(spec.Name, spec.Toolsets, inventory.Selection{
		ReadOnly: cfg.ReadOnly, Toolsets: cfg.Toolsets, Tools: cfg.Tools, Disabled: cfg.DisableTools,
	})
	if err != nil {
		return nil, err
	}
	version := buildinfo.String()
	log := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel})).With("server", spec.Name)
	// The go-sdk logs every session's connect and disconnect at info, which in stateless mode is
	// every request: its logger starts at warn.
	sdkLog := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: max(cfg.LogLevel, slog.LevelWarn)})).With("server", spec.Name)
	s := &Server{
		spec:    spec,
		cfg:     cfg,
		version: version,
		log:     log,
		sdkLog:  sdkLog,
		metrics: metrics.NewRegistry(spec.Name, version),
		inv:     inv,
		tools:   map[string]Tool{},
		outputs: map[reflect.Type]*jsonschema.Resolved{},
		quiet:   memory.NewQuietRelease(),
		asker:   confirm.NewAsker(),

		registered: map[string]*registration{},
		sdkOff:     map[string]bool{},
		recent:     newRecentCalls(recentCallsKept),
		boot:       rand.Text(),
		started:    time.Now(),
	}
	s.life, s.endLife = context.WithCancelCause(context.Background())
	s.health = health.NewRegistry(spec.Name, version, inv.OfferedCount)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: spec.Name, Title: spec.Title, Version: version}, &mcp.ServerOptions{
		Instructions:       spec.Instructions,
		Logger:             sdkLog,
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		// The tools capability also while a run-time switch has taken every tool out of the list;
		// logging as the go-sdk offers it by default (deprecated in the protocol, still asked for).
		Capabilities: &mcp.ServerCapabilities{
			Logging: &mcp.LoggingCapabilities{}, //nolint:staticcheck // the go-sdk's default, kept for the clients that set a log level
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.toolMiddleware, s.viewMiddleware) // the first runs first: refusals are logged and counted
	if spec.Setup != nil {
		if err := spec.Setup(s); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s setup: %w", spec.Name, err)
		}
	}
	if err := errors.Join(s.setupErr...); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if err := s.inv.CheckSelection(); err != nil {
		s.Close()
		return nil, &ConfigError{err}
	}
	s.loadSwitches()
	if cfg.AdminTokenHash != "" || !s.inv.Switches().IsZero() || s.switchErr != nil {
		s.health.Add("switches", s.switchesHealth)
	}
	s.Background(s.watchSwitches)
	return s, nil
}

// SharedArg is an argument many tools take with one meaning (Spec.SharedArgs).
type SharedArg struct {
	Name    string // the argument's JSON name, as a top-level property of the tools that take it
	Meaning string // what it means and where its values come from, for the instructions
	// Short is the few words every tool's schema shows for it ("Drive file id"), since many
	// clients drop the instructions; it may be left out only for a self-explaining name
	// (schema.SelfExplaining: page_size, reply_all) that no tool requires.
	Short string
}

// ConfigError is a configuration mistake found after parsing; the command exits 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// declare records a tool in the inventory and reports whether the configuration offers it; a
// tool the inventory refuses (twice, or without a declared toolset) fails New.
func (s *Server) declare(t Tool) bool {
	offered, err := s.inv.Declare(inventory.Entry{Name: t.Name, Toolset: t.Toolset, ReadOnly: t.ReadOnly})
	if err != nil {
		s.setupErr = append(s.setupErr, err)
		return false
	}
	s.metrics.DeclareTool(t.Name)
	if offered {
		s.tools[t.Name] = t
	}
	return offered
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

// StopCalls cancels the context of every tool call still running (cause ErrShutdown).
func (s *Server) StopCalls() { s.endLife(ErrShutdown) }

// Close cancels the calls still running and runs the cleanups.
func (s *Server) Close() {
	s.StopCalls()
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// ToolNames lists the offered tools, sorted.
func (s *Server) ToolNames() []string { return slices.Sorted(maps.Keys(s.tools)) }

// Toolsets lists the server's toolsets with the tools it has in each (offered or not), as
// --list-toolsets prints them.
func (s *Server) Toolsets() []ToolsetInfo { return s.inv.Toolsets() }

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
