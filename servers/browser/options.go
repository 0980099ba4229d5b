package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/netguard"
)

// options are the server's own flags, validated.
type options struct {
	chromiumPath string
	downloadsDir string
	uploadDir    string
	evaluate     bool
	// sitePerProcess turns on strict site isolation, which the headless shell leaves off.
	sitePerProcess bool
	maxTabs        int
	maxMemoryMB    int
	idleTimeout    time.Duration
	allowPrivate   bool
	allowHostsRaw  string // --allow-private-hosts
	oldAllowHosts  string // --allow-hosts, its deprecated spelling

	secretsFile string // --secrets-file

	stateDir string
	policy   *netguard.Policy
	secrets  *secrets
}

// finish fills defaults under the state directory and validates every flag; getenv is the
// server's environment (for $CREDENTIALS_DIRECTORY).
func (o *options) finish(stateDir string, getenv func(string) string) error {
	o.stateDir = stateDir
	if o.downloadsDir == "" {
		o.downloadsDir = filepath.Join(stateDir, "downloads")
	}
	if o.uploadDir == "" {
		o.uploadDir = filepath.Join(stateDir, "uploads")
	}
	var err error
	if o.downloadsDir, err = filepath.Abs(o.downloadsDir); err != nil {
		return fmt.Errorf("--downloads-dir: %w", err)
	}
	if o.uploadDir, err = filepath.Abs(o.uploadDir); err != nil {
		return fmt.Errorf("--upload-dir: %w", err)
	}
	switch {
	case o.maxTabs < 1 || o.maxTabs > 200:
		return fmt.Errorf("--max-tabs %d: give 1 to 200", o.maxTabs)
	case o.maxMemoryMB < 256:
		return fmt.Errorf("--max-memory-mb %d: give at least 256", o.maxMemoryMB)
	case o.idleTimeout < time.Minute:
		return fmt.Errorf("--idle-timeout %s: give at least 1m", o.idleTimeout)
	}
	if o.chromiumPath != "" {
		p, err := exec.LookPath(o.chromiumPath)
		if err != nil {
			return fmt.Errorf("--chromium-path %q: %w", o.chromiumPath, err)
		}
		o.chromiumPath = p
	}
	if o.oldAllowHosts != "" {
		if o.allowHostsRaw != "" {
			return errors.New("--allow-hosts is the old spelling of --allow-private-hosts: give only --allow-private-hosts")
		}
		o.allowHostsRaw = o.oldAllowHosts
	}
	var hosts []string
	for _, h := range strings.Split(o.allowHostsRaw, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if o.policy, err = netguard.NewPolicy(o.allowPrivate, hosts); err != nil {
		return fmt.Errorf("--allow-private-hosts: %w", err)
	}
	if o.secrets, err = loadSecrets(secretsPath(o.secretsFile, getenv)); err != nil {
		return fmt.Errorf("--secrets-file: %w", err)
	}
	return nil
}

// chromiumCandidates are tried in order when --chromium-path is not given. The real binaries
// come before Debian's /usr/bin/chromium wrapper, which sources /etc/chromium.d and drops
// --disable-background-networking.
var chromiumCandidates = []string{
	"/usr/lib/chromium/chromium-headless-shell",
	"chromium-headless-shell",
	"/usr/lib/chromium/chromium",
	"chromium",
	"google-chrome",
}

// findChromium returns the binary to run, or an error that says how to install one.
func (o *options) findChromium() (string, error) {
	if o.chromiumPath != "" {
		if _, err := os.Stat(o.chromiumPath); err != nil {
			return "", fmt.Errorf("chromium at %s is gone: %w", o.chromiumPath, err)
		}
		return o.chromiumPath, nil
	}
	for _, c := range chromiumCandidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: run `apt-get install -y chromium-headless-shell` (or chromium), or pass --chromium-path")
}
