// Package config parses the command line every server shares, with an environment fallback for
// each flag, and validates it so that a bad value stops the server before it serves anything.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Transports the servers speak.
const (
	TransportHTTP  = "streamable-http"
	TransportStdio = "stdio"
)

// sha256Hex is a SHA-256 digest in hex, as sha256sum prints it.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// DefaultMaxBodyBytes bounds an HTTP request body unless --max-body-bytes says otherwise.
const DefaultMaxBodyBytes = 4 << 20

// ErrHelp is returned by Parse when --help was asked for; the usage text has been written.
var ErrHelp = flag.ErrHelp

// Config is the validated configuration of one server.
type Config struct {
	Name           string
	Host           string
	Port           int
	Transport      string
	ReadOnly       bool
	Toolsets       []string // --toolsets: the toolsets to offer; empty offers every one (unless Tools is set)
	Tools          []string // --tools (or the deprecated --enable-tools): single tools to offer besides Toolsets
	DisableTools   []string // --disable-tools (deprecated): tools to drop from what the others offer
	Deprecated     []string // one line for each deprecated flag given, saying what to use instead
	LogLevel       slog.Level
	AuthTokensFile string
	OAuthIssuer    string // the authorization server whose access tokens this server accepts
	OAuthIssuerURL string // where this host fetches the issuer's metadata and keys, if not at OAuthIssuer
	PublicURL      string // the server's base URL as clients reach it; its resource is PublicURL + "/mcp"
	AllowedHosts   []string
	AllowedOrigins []string
	InsecureNoAuth bool
	AdminTokenHash string // --admin-token-sha256: the SHA-256 (hex) of the console's token for /admin/; "" leaves /admin/ off
	StateDir       string
	MaxBodyBytes   int64
	ShowVersion    bool
	ListTools      bool
	ListToolsets   bool
	Getenv         func(string) string // the environment Parse read, for a server's own settings
}

// Addr is the host:port the HTTP listener binds.
func (c *Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// EnvName is the environment variable that stands in for a flag: --allowed-hosts → MCP_ALLOWED_HOSTS.
func EnvName(flagName string) string {
	return "MCP_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Parse reads args (without the program name) with environment fallbacks looked up by getenv.
// extra, when non-nil, registers a server's own flags on the same set before parsing; they get
// the same environment fallback. Usage and errors are written to out.
func Parse(name string, port int, args []string, getenv func(string) string, out io.Writer, extra func(*flag.FlagSet)) (*Config, error) {
	c := &Config{Name: name, Getenv: getenv}
	var (
		logLevel, toolsets, tools, enable, disable, hosts, origins string
		fs                                                         = flag.NewFlagSet(name, flag.ContinueOnError)
	)
	// The flag package would print an error and then the whole usage; the caller prints the
	// error once with a pointer to --help, and the usage is printed only for --help.
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Host, "host", "127.0.0.1", "address to bind; anything but loopback needs --auth-tokens-file or --insecure-no-auth")
	fs.IntVar(&c.Port, "port", port, "TCP port to serve on")
	fs.StringVar(&c.Transport, "transport", TransportHTTP, "streamable-http or stdio")
	fs.BoolVar(&c.ReadOnly, "read-only", false, "offer only the tools that change nothing")
	fs.StringVar(&toolsets, "toolsets", "", "comma-separated toolsets to offer (see --list-toolsets), \"default\" for those on by default, \"all\" for every one; default: default")
	fs.StringVar(&tools, "tools", "", "comma-separated single tools to offer besides --toolsets; alone, only these")
	fs.StringVar(&enable, "enable-tools", "", "deprecated: use --tools")
	fs.StringVar(&disable, "disable-tools", "", "deprecated: comma-separated tools to drop; list what to offer with --toolsets and --tools instead")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&c.AuthTokensFile, "auth-tokens-file", "", "file of bearer tokens, one label:token a line (default: $CREDENTIALS_DIRECTORY/auth-tokens when present)")
	fs.StringVar(&c.OAuthIssuer, "oauth-issuer", "", "URL of an OAuth 2.1 authorization server whose access tokens for this server are accepted (needs --public-url)")
	fs.StringVar(&c.OAuthIssuerURL, "oauth-issuer-internal-url", "", "where this host fetches the --oauth-issuer's metadata and keys when its public URL is out of reach from here, e.g. http://127.0.0.1:9002 for the auth server on this host, http://auth:9002 in a container network (tokens still name --oauth-issuer)")
	fs.StringVar(&c.PublicURL, "public-url", "", "this server's URL as clients reach it, e.g. https://gmail.example.com; OAuth tokens must name PUBLIC-URL/mcp as their audience")
	fs.StringVar(&hosts, "allowed-hosts", "", "comma-separated Host values to accept besides loopback and the bind address (tunnel hostnames, LAN IP)")
	fs.StringVar(&origins, "allowed-origins", "", "comma-separated Origin values to accept besides loopback, e.g. https://app.example.com")
	fs.BoolVar(&c.InsecureNoAuth, "insecure-no-auth", false, "answer every request without a credential, also on a non-loopback --host or an --allowed-hosts name")
	fs.StringVar(&c.AdminTokenHash, "admin-token-sha256", "", "SHA-256 (64 hex digits) of the owner's console token: turns on /admin/, where the console reads the server's state and sets its run-time switches (docs/console.md); not a secret")
	fs.StringVar(&c.StateDir, "state-dir", "", "directory for the server's state (default: $STATE_DIRECTORY, else ~/.local/state/mcp-servers/NAME)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", DefaultMaxBodyBytes, "largest HTTP request body accepted")
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	fs.BoolVar(&c.ListTools, "list-tools", false, "print the tools this configuration offers as JSON and exit")
	fs.BoolVar(&c.ListToolsets, "list-toolsets", false, "print the server's toolsets and their tools as JSON and exit")
	if extra != nil {
		extra(fs)
	}
	usage := func() {
		fmt.Fprintf(out, "Usage: %s [flags]\n\nServes MCP over streamable HTTP at http://HOST:PORT/mcp (or stdio).\nEvery flag can also be set by the environment variable shown.\n\n", name)
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(out, "  --%s (%s)\n    \t%s", f.Name, EnvName(f.Name), f.Usage)
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(out, " (default %q)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
	}
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: flags start with --, see --help", fs.Arg(0))
	}
	if err := applyEnv(fs, getenv); err != nil {
		return nil, err
	}

	var err error
	if c.LogLevel, err = parseLevel(logLevel); err != nil {
		return nil, err
	}
	c.Toolsets, c.Tools, c.DisableTools = SplitList(toolsets), SplitList(tools), SplitList(disable)
	if e := SplitList(enable); len(e) > 0 {
		c.Tools = append(c.Tools, e...)
		c.Deprecated = append(c.Deprecated, "--enable-tools is deprecated: use --tools (same list), or --toolsets to offer whole toolsets")
	}
	if len(c.DisableTools) > 0 {
		c.Deprecated = append(c.Deprecated, "--disable-tools is deprecated: list what to offer with --toolsets and --tools (see --list-toolsets)")
	}
	c.AllowedHosts, c.AllowedOrigins = SplitList(hosts), SplitList(origins)
	if c.AuthTokensFile == "" {
		if dir := getenv("CREDENTIALS_DIRECTORY"); dir != "" {
			if p := filepath.Join(dir, "auth-tokens"); fileExists(p) {
				c.AuthTokensFile = p
			}
		}
	}
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir(name, getenv)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// applyEnv sets every flag not given on the command line from its environment variable.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || f.Name == "version" || f.Name == "list-tools" || f.Name == "list-toolsets" {
			return
		}
		env := EnvName(f.Name)
		v := getenv(env)
		if v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("invalid value %q for %s (--%s): %w", v, env, f.Name, err))
		}
	})
	return errors.Join(errs...)
}

func (c *Config) validate() error {
	if c.Port < 1 || c.Port > 65535 {
		return fmt.Errorf("invalid --port %d: must be 1 to 65535", c.Port)
	}
	if c.Transport != TransportHTTP && c.Transport != TransportStdio {
		return fmt.Errorf("invalid --transport %q: use %s or %s", c.Transport, TransportHTTP, TransportStdio)
	}
	if c.Host == "" {
		return errors.New("invalid --host: empty; use 127.0.0.1 for loopback or an address of this machine")
	}
	if len(c.Tools) > 0 && len(c.DisableTools) > 0 {
		return errors.New("--tools (or --enable-tools) and --disable-tools cannot be used together: list the tools to keep, or the ones to drop")
	}
	if c.MaxBodyBytes < 1024 {
		return fmt.Errorf("invalid --max-body-bytes %d: must be at least 1024", c.MaxBodyBytes)
	}
	for _, h := range c.AllowedHosts {
		if strings.Contains(h, "/") || strings.ContainsAny(h, " \t") {
			return fmt.Errorf("invalid --allowed-hosts entry %q: give a host name or host:port, without scheme or path", h)
		}
	}
	for _, o := range c.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("invalid --allowed-origins entry %q: give scheme://host[:port], e.g. https://app.example.com", o)
		}
	}
	if err := c.validateOAuth(); err != nil {
		return err
	}
	c.AdminTokenHash = strings.ToLower(strings.TrimSpace(c.AdminTokenHash))
	if c.AdminTokenHash != "" && !sha256Hex.MatchString(c.AdminTokenHash) {
		return errors.New("invalid --admin-token-sha256: give the 64 hex digits of the console token's SHA-256 (as sha256sum prints it), never the token itself (the value is not shown, in case it was)")
	}
	return c.validateAuth()
}

// validateAuth refuses a configuration that admits requests from outside this machine without
// a credential scheme: a non-loopback --host, or an --allowed-hosts entry that is not loopback
// (a tunnel hostname, a LAN address), since requests for those come through a tunnel or the
// network, unless --insecure-no-auth says so knowingly.
func (c *Config) validateAuth() error {
	if c.Transport != TransportHTTP || c.AuthTokensFile != "" || c.OAuthIssuer != "" || c.InsecureNoAuth {
		return nil
	}
	const fix = "give --auth-tokens-file (label:token lines, see docs/configuration.md), --oauth-issuer with --public-url, or, knowingly, --insecure-no-auth"
	if !IsLoopback(c.Host) {
		return fmt.Errorf("refusing to serve on non-loopback address %s without authentication: %s", c.Host, fix)
	}
	for _, h := range c.AllowedHosts {
		name, _, err := net.SplitHostPort(h)
		if err != nil {
			name = h
		}
		if !IsLoopback(name) {
			return fmt.Errorf("refusing to accept Host %s (--allowed-hosts) without authentication: its requests come from outside this machine (a tunnel, the network) and would all be answered; %s", h, fix)
		}
	}
	return nil
}

// validateOAuth checks --oauth-issuer and --public-url: both or neither, each an https URL (http
// only on loopback, for tests and a local issuer) without query or fragment.
func (c *Config) validateOAuth() error {
	c.OAuthIssuer = strings.TrimSuffix(c.OAuthIssuer, "/")
	c.PublicURL = strings.TrimSuffix(c.PublicURL, "/")
	switch {
	case c.OAuthIssuer == "" && c.PublicURL == "":
		if c.OAuthIssuerURL != "" {
			return errors.New("--oauth-issuer-internal-url is only used with --oauth-issuer")
		}
		return nil
	case c.OAuthIssuer == "":
		return errors.New("--public-url is only used with --oauth-issuer: give both, or neither")
	case c.PublicURL == "":
		return errors.New("--oauth-issuer needs --public-url: the URL clients reach this server at (e.g. https://gmail.example.com), which access tokens must name as their audience")
	}
	for _, f := range []struct{ flag, v string }{{"--oauth-issuer", c.OAuthIssuer}, {"--public-url", c.PublicURL}} {
		if err := checkHTTPSURL(f.v); err != nil {
			return fmt.Errorf("invalid %s %q: %w", f.flag, f.v, err)
		}
	}
	c.OAuthIssuerURL = strings.TrimSuffix(c.OAuthIssuerURL, "/")
	if c.OAuthIssuerURL != "" {
		if err := checkInternalURL(c.OAuthIssuerURL); err != nil {
			return fmt.Errorf("invalid --oauth-issuer-internal-url %q: %w", c.OAuthIssuerURL, err)
		}
		if u, _ := url.Parse(c.OAuthIssuerURL); u.Path != "" {
			return fmt.Errorf("invalid --oauth-issuer-internal-url %q: give scheme://host[:port] only, e.g. http://127.0.0.1:9002", c.OAuthIssuerURL)
		}
	}
	return nil
}

// checkInternalURL accepts what checkHTTPSURL accepts, and plain http to a name only a container
// network resolves: a compose service or a same-namespace Kubernetes Service ("auth", one label),
// or a Kubernetes Service's name ("auth.mcp-servers.svc", "….svc.cluster.local"). Those reach the
// issuer over the network between the containers, which already carries the tunnel's requests
// to the servers in plain http; an IP address or a host on the LAN still needs https.
func checkInternalURL(raw string) error {
	u, err := url.Parse(raw)
	if err == nil && u.Scheme == "http" && containerNetworkName(u.Hostname()) {
		u.Scheme = "https"
		raw = u.String()
	}
	return checkHTTPSURL(raw)
}

// containerNetworkName reports whether host is a name of a container network (see checkInternalURL).
func containerNetworkName(host string) bool {
	if host == "" || net.ParseIP(host) != nil {
		return false
	}
	return !strings.Contains(host, ".") || strings.HasSuffix(host, ".svc") || strings.Contains(host, ".svc.")
}

// checkHTTPSURL accepts an absolute https URL, or http on a loopback host, without query,
// fragment or user info.
func checkHTTPSURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return err
	case u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return errors.New("give an absolute URL such as https://auth.example.com")
	case u.Scheme == "http" && !IsLoopback(u.Hostname()):
		return errors.New("use https: plain http is accepted only on loopback")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("give it without query, fragment or user info")
	}
	return nil
}

// IsLoopback reports whether host (without port) names the loopback interface.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(s)) {
		return l, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", s)
	}
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// SplitList splits a comma-separated flag value, trimming spaces and dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultStateDir is a server's state folder when --state-dir is not given: the first of
// $STATE_DIRECTORY (systemd), else $XDG_STATE_HOME/mcp-servers/NAME, else
// ~/.local/state/mcp-servers/NAME, else one under the temporary folder.
func DefaultStateDir(name string, getenv func(string) string) string {
	if d := getenv("STATE_DIRECTORY"); d != "" {
		// systemd may pass several, colon-separated; the first is this server's.
		return strings.Split(d, ":")[0]
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcp-servers", name)
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "mcp-servers", name)
	}
	return filepath.Join(os.TempDir(), "mcp-servers", name)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
