package googleauth

import (
	"path/filepath"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
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
	if oauthtoken.IsDir(SystemDir) {
		return filepath.Join(SystemDir, "token.json")
	}
	return filepath.Join(oauthtoken.StateHome(getenv), "mcp-servers", "google", "token.json")
}

// DefaultClientFile is the OAuth client JSON: $MCP_GOOGLE_CLIENT_FILE, else the systemd
// credential $CREDENTIALS_DIRECTORY/google_client.json, else /etc/mcp-servers/credentials/google/client.json
// when it exists, else client.json beside the token file.
func DefaultClientFile(getenv func(string) string, tokenFile string) string {
	return oauthtoken.ClientFile(getenv, oauthtoken.ClientLocations{
		Env: "MCP_GOOGLE_CLIENT_FILE", Credential: "google_client.json", System: systemClientFile,
	}, tokenFile)
}
