// Command browser is the fleet's browser MCP server (port 9011): a headless Chromium driven
// through chromedp, read through compact accessibility snapshots with stable refs, acted on by
// ref, with every request the browser makes checked against a private-network guard.
package main

import (
	"flag"
	"os"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

func main() { os.Exit(kit.Main(spec())) }

// spec describes the browser server. Its flags are captured in an options value that only
// this spec sees, so tests build exactly the server the binary runs.
func spec() kit.Spec { return specFor(nil) }

// specFor is spec that hands the manager to ready once the server has set up (for tests).
func specFor(ready func(*manager)) kit.Spec {
	opts := &options{}
	return kit.Spec{
		Name:         "browser",
		Title:        "Browser",
		Port:         9011,
		Instructions: "Browse the web in a headless Chromium; tabs persist between calls.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "session", Meaning: "a name for a separate browser with its own logins and tabs; omit for the default", Short: "a separate browser's name"},
		},
		Flags: opts.register,
		Setup: func(s *kit.Server) error {
			if opts.oldAllowHosts != "" {
				s.Logger().Warn("--allow-hosts (MCP_ALLOW_HOSTS) is deprecated: use --allow-private-hosts (MCP_ALLOW_PRIVATE_HOSTS); --allowed-hosts is another flag, the Host headers the server accepts")
			}
			if err := opts.finish(s.Config().StateDir, s.Config().Getenv); err != nil {
				return &kit.ConfigError{Err: err}
			}
			f, err := openFolders(opts)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			m := newManager(opts, f, s.Logger())
			if ready != nil {
				ready(m)
			}
			s.AddHealthCheck("chromium", m.browser.health)
			s.OnClose(m.close)
			addTools(s, m, opts)
			return nil
		},
	}
}

// register adds the server's flags; finish validates them after parsing.
func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.chromiumPath, "chromium-path", "", "Chromium binary (default: chromium-headless-shell, else chromium)")
	fs.StringVar(&o.downloadsDir, "downloads-dir", "", "where downloads and PDFs are saved (default <state-dir>/downloads)")
	fs.StringVar(&o.uploadDir, "upload-dir", "", "the only directory files may be uploaded from (default <state-dir>/uploads)")
	fs.BoolVar(&o.evaluate, "evaluate", true, "offer browser_evaluate (runs JavaScript in pages); turn off when exposed remotely")
	fs.BoolVar(&o.sitePerProcess, "site-per-process", false, "run every site in its own renderer, as desktop Chrome does (cross-site iframes out of process)")
	fs.IntVar(&o.maxTabs, "max-tabs", 16, "most tabs open at once, over all sessions")
	fs.IntVar(&o.maxMemoryMB, "max-memory-mb", 2048, "Chromium memory (RSS of all its processes) above which idle sessions are closed and new tabs refused")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 15*time.Minute, "close a session after this long unused; stop Chromium when none is left")
	fs.BoolVar(&o.allowPrivate, "allow-private-networks", false, "let the browser reach every address, not only global unicast ones (private, loopback, link-local, ...)")
	fs.StringVar(&o.allowHostsRaw, "allow-private-hosts", "", "comma list of CIDRs, IPs and host names the browser may reach even when private")
	fs.StringVar(&o.secretsFile, "secrets-file", "", `the owner's secrets, typed by name and never shown: JSON {"NAME": {"value": "...", "origins": ["https://..."]}}, mode 0600 (default: $CREDENTIALS_DIRECTORY/browser-secrets when present)`)
	fs.StringVar(&o.oldAllowHosts, "allow-hosts", "", "deprecated spelling of --allow-private-hosts (not the kit's --allowed-hosts, which lists Host headers to accept)")
}
