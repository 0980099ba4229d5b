// Command auth is the fleet's OAuth 2.1 authorization server (port 9002): it signs in its one
// owner with a passkey and issues each MCP client short-lived JWT access tokens for one server
// of the fleet, which every server checks with --oauth-issuer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/sdnotify"
	"github.com/jck411/mcp-servers/shared/secretfile"
)

// defaultPort is the auth server's place in the fleet's port table.
const defaultPort = 9002

// Default rate limits, per endpoint: a person signing in a few devices in a minute stays well
// inside them.
const (
	defaultRatePerIP  = 30
	defaultRateGlobal = 300
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole command with its surroundings passed in: 0 done, 1 failed, 2 bad usage.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := commands[args[0]]; ok {
			return cmd.run(ctx, args[1:], getenv, stdout, stderr)
		}
		if args[0] == health.CheckCommand { // a container's health check: the image has no curl
			return health.RunCheck(ctx, "auth", defaultPort, args[1:], getenv, stdout, stderr)
		}
	}
	opts, err := parseServe(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, commandsHelp())
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "auth: %v\nRun auth --help for the flags.\n", err)
		return 2
	}
	if opts.version {
		fmt.Fprintf(stdout, "auth %s\n", buildinfo.String())
		return 0
	}
	return serve(ctx, opts, getenv, stderr)
}

// serveOptions are the server's flags.
type serveOptions struct {
	settings
	host     string
	port     int
	logLevel slog.Level
	version  bool
}

// envFlags sets every flag not given on the command line from MCP_<NAME>.
func envFlags(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		env := config.EnvName(f.Name)
		if v := getenv(env); v != "" {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("invalid value %q for %s (--%s): %w", v, env, f.Name, err))
			}
		}
	})
	return errors.Join(errs...)
}

func usage(fs *flag.FlagSet, out io.Writer, head string) func() {
	return func() {
		fmt.Fprint(out, head)
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(out, "  --%s (%s)\n    \t%s", f.Name, config.EnvName(f.Name), f.Usage)
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(out, " (default %q)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
	}
}

// parseServe reads the server's flags, with MCP_* environment fallbacks.
func parseServe(args []string, getenv func(string) string, out io.Writer) (*serveOptions, error) {
	o := &serveOptions{}
	var resources, registration, level, stateDir, proxies, consoleServers, consoleToken, consoleLAN, doorServers string
	fs := flag.NewFlagSet("auth", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the caller prints an error once; the usage is for --help only
	fs.StringVar(&o.Issuer, "issuer", "", "public URL of this server, e.g. https://auth.example.com (required; http only on loopback)")
	fs.StringVar(&resources, "resources", "", "the fleet's MCP URLs tokens may be for, NAME=URL comma-separated, e.g. gmail=https://gmail.example.com/mcp (required)")
	fs.StringVar(&registration, "registration", "cimd,dcr", "client registration methods offered: cimd (client ID metadata documents), dcr (RFC 7591), both, or none")
	fs.StringVar(&stateDir, "state-dir", "", "directory of auth.db (default: $STATE_DIRECTORY, else ~/.local/state/mcp-servers/auth)")
	fs.StringVar(&o.host, "host", "127.0.0.1", "address to bind (the tunnel reaches it on loopback)")
	fs.IntVar(&o.port, "port", defaultPort, "TCP port to serve on")
	fs.DurationVar(&o.KeyLifetime, "key-lifetime", 30*24*time.Hour, "how long a signing key signs before a new one replaces it")
	fs.IntVar(&o.Limits.PerIP, "rate-limit", defaultRatePerIP, "requests a minute from one client address to each of the sign-in, consent, enrolment, authorize, token, revocation and registration endpoints (one sign-in uses one of each)")
	fs.IntVar(&o.Limits.Global, "rate-limit-global", defaultRateGlobal, "requests a minute to each of those endpoints from all clients together")
	fs.StringVar(&proxies, "trusted-proxies", "", "addresses (or CIDR prefixes) of the proxy whose CF-Connecting-IP header names the client, e.g. 127.0.0.1,::1 for cloudflared on this host; others' header is ignored")
	fs.StringVar(&consoleServers, "console-servers", "", "turns on the owner's console at /console: the servers it manages, NAME=URL comma-separated, each URL the server's own address as this host reaches it directly, e.g. gmail=http://127.0.0.1:9005 (docs/console.md)")
	fs.StringVar(&consoleToken, "console-token-file", "", "file holding the console token, whose SHA-256 each managed server is given as --admin-token-sha256 (needed with --console-servers)")
	fs.StringVar(&consoleLAN, "console-lan-url", "", "scheme and host LAN clients reach the managed servers at, e.g. http://192.168.1.110: the console's Clients page then offers LAN configurations too, each server at the port of its --console-servers URL")
	fs.StringVar(&doorServers, "front-door-servers", "", "turns on the front door at /mcp, one MCP URL for the fleet: the servers it routes to, NAME=URL comma-separated, each NAME in --resources and each URL the server's address as this host reaches it, e.g. calculator=http://127.0.0.1:9003 (docs/front-door.md)")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	printUsage := usage(fs, out, "Usage: auth [flags]\n       auth COMMAND --help\n\nServes the fleet's OAuth 2.1 authorization server. Every flag can also be set by the environment variable shown.\n\n")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: flags start with --, commands are %s", fs.Arg(0), commandNames())
	}
	if err := envFlags(fs, getenv); err != nil {
		return nil, err
	}
	if o.version {
		return o, nil
	}
	if err := o.logLevel.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", level)
	}
	if err := checkIssuer(o.Issuer); err != nil {
		return nil, err
	}
	o.Issuer = strings.TrimSuffix(o.Issuer, "/")
	f, err := parseResources(resources)
	if err != nil {
		return nil, err
	}
	o.Fleet = f
	for _, m := range config.SplitList(registration) {
		switch m {
		case "cimd":
			o.CIMD = true
		case "dcr":
			o.DCR = true
		case "none":
		default:
			return nil, fmt.Errorf("invalid --registration %q: use cimd, dcr, cimd,dcr or none", registration)
		}
	}
	if o.port < 1 || o.port > 65535 {
		return nil, fmt.Errorf("invalid --port %d: must be 1 to 65535", o.port)
	}
	if o.Limits.PerIP < 1 || o.Limits.Global < 1 {
		return nil, fmt.Errorf("invalid --rate-limit %d / --rate-limit-global %d: give at least 1 request a minute", o.Limits.PerIP, o.Limits.Global)
	}
	if o.Limits.Proxies, err = parseProxies(config.SplitList(proxies)); err != nil {
		return nil, err
	}
	if o.Console, err = consoleFlags(consoleServers, consoleToken); err != nil {
		return nil, err
	}
	if o.ConsoleLAN, err = parseLAN(consoleLAN); err != nil {
		return nil, err
	}
	if o.ConsoleLAN != "" && o.Console == nil {
		return nil, errors.New("--console-lan-url needs the console: give --console-servers and --console-token-file too")
	}
	if o.Door, err = parseDoorServers(doorServers, f); err != nil {
		return nil, err
	}
	o.StateDir = stateDirOr(stateDir, getenv)
	return o, nil
}

func stateDirOr(dir string, getenv func(string) string) string {
	if dir != "" {
		return dir
	}
	if d := getenv(config.EnvName("state-dir")); d != "" {
		return d
	}
	return config.DefaultStateDir("auth", getenv)
}

// checkIssuer accepts an https URL, or http on loopback, without query or fragment.
func checkIssuer(raw string) error {
	if raw == "" {
		return errors.New("--issuer is required: this server's public URL, e.g. https://auth.example.com")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("invalid --issuer %q: give an absolute URL such as https://auth.example.com", raw)
	case u.Scheme == "http" && !config.IsLoopback(u.Hostname()):
		return fmt.Errorf("invalid --issuer %q: use https; plain http only on loopback", raw)
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("invalid --issuer %q: use https", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil || (u.Path != "" && u.Path != "/"):
		return fmt.Errorf("invalid --issuer %q: give scheme://host[:port] only", raw)
	case net.ParseIP(strings.Trim(u.Hostname(), "[]")) != nil:
		return fmt.Errorf("invalid --issuer %q: give a host name, not an IP address (passkeys are bound to a domain), e.g. http://localhost:%d for a local test", raw, defaultPort)
	}
	return nil
}

// consoleFlags reads --console-servers and --console-token-file: both or neither.
func consoleFlags(servers, tokenFile string) ([]consoleServer, error) {
	switch {
	case servers == "" && tokenFile == "":
		return nil, nil
	case servers == "" || tokenFile == "":
		return nil, errors.New("--console-servers and --console-token-file go together: give both to turn the console on, or neither")
	}
	// secretfile checks it as every server checks its tokens: only its owner (and, for a
	// systemd credential, the unit's own group) may read it, nobody else may write its folder.
	b, err := secretfile.Read(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("invalid --console-token-file: %w (make one: head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE)", err)
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 32 || strings.ContainsAny(token, " \t\r\n") {
		return nil, fmt.Errorf("invalid --console-token-file %s: it holds %d characters; give one line of at least 32 random characters (head -c 32 /dev/urandom | base64)", tokenFile, len(token))
	}
	return parseConsoleServers(servers, token)
}

// serve runs the server until ctx ends.
func serve(ctx context.Context, o *serveOptions, getenv func(string) string, stderr io.Writer) int {
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: o.logLevel})).With("server", "auth")
	// The OAuth library logs through the default logger: its warnings and errors belong in ours,
	// its info lines (a "registered route" for each endpoint at every start) only at debug.
	libLevel := max(o.logLevel, slog.LevelWarn)
	if o.logLevel <= slog.LevelDebug {
		libLevel = o.logLevel
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: libLevel})).With("server", "auth"))
	o.Logger = log
	a, err := newApp(o.settings)
	if err != nil {
		fmt.Fprintf(stderr, "auth: %v\n", err)
		return 1
	}
	defer a.Close()
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "auth: cannot listen on %s: %v (is another instance running? choose another --port)\n", addr, err)
		return 1
	}
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go a.janitor(ctx)
	if a.console != nil {
		go a.console.sampler(ctx)
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "issuer", o.Issuer, "resources", strings.Join(o.Fleet.names, ","),
		"cimd", o.CIMD, "dcr", o.DCR, "console_servers", len(o.Console), "front_door_servers", len(o.Door), "version", buildinfo.String())
	notify := getenv("NOTIFY_SOCKET")
	if err := sdnotify.Notify(notify, sdnotify.Ready); err != nil {
		log.Warn("systemd readiness not reported", "error", err.Error())
	}
	select {
	case err := <-errc:
		log.Error("server stopped", "error", err.Error())
		return 1
	case <-ctx.Done():
	}
	_ = sdnotify.Notify(notify, sdnotify.Stopping)
	const grace = 10 * time.Second
	log.Info("shutting down", "grace", grace.String()) // the fleet's shutdown line (shared/kit)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "error", err.Error())
	}
	return 0
}

// janitor deletes expired state every ten minutes.
func (a *app) janitor(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		if err := a.db.gc(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Warn("clean-up failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
