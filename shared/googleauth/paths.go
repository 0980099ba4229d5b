package googleauth

import (
	"os"
	"path/filepath"
)

// SystemDir is the token folder the deployed Google servers share (group mcp-google, setgid,
// 2770); see docs/google.md.
const SystemDir = "/var/lib/mcp-servers/google"

// systemClientFile is where deploy/setup-host.sh expects the OAuth client on a host.
const systemClientFile = "/etc/mcp-servers/credentials/google/client.json"

// DefaultTokenFile is the shared token file: $MCP_GOOGLE_TOKEN_FILE, else token.json in
// SystemDir when that folder exists (a deployed host), else
// $XDG_STATE_HOME/mcp-servers/google/token.json (~/.local/state/… by default).
func DefaultTokenFile(getenv func(string) string) string {
	if p := getenv("MCP_GOOGLE_TOKEN_FILE"); p != "" {
		return p
	}
	if info, err := os.Stat(SystemDir); err == nil && info.IsDir() {
		return filepath.Join(SystemDir, "token.json")
	}
	state := getenv("XDG_STATE_HOME")
	if state == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "mcp-servers", "google", "token.json")
}

// DefaultClientFile is the OAuth client JSON: $MCP_GOOGLE_CLIENT_FILE, else the systemd
// credential $CREDENTIALS_DIRECTORY/google_client.json, else /etc/mcp-servers/credentials/google/client.json
// when it exists, else client.json beside the token file.
func DefaultClientFile(getenv func(string) string, tokenFile string) string {
	if p := getenv("MCP_GOOGLE_CLIENT_FILE"); p != "" {
		return p
	}
	if d := getenv("CREDENTIALS_DIRECTORY"); d != "" {
		if p := filepath.Join(d, "google_client.json"); fileExists(p) {
			return p
		}
	}
	if fileExists(systemClientFile) {
		return systemClientFile
	}
	return filepath.Join(filepath.Dir(tokenFile), "client.json")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
