package spotifyauth

import (
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
)

// SystemDir is the spotify server's state folder on a deployed host (StateDirectory=, owned by
// mcp-spotify); the rotating token lives there. See docs/deploy.md §6.
const SystemDir = "/var/lib/mcp-servers/spotify"

// systemClientFile is where deploy/setup-host.sh puts the Spotify client on a host.
const systemClientFile = "/etc/mcp-servers/credentials/spotify/client.json"

// TokenFileName is the token file's name inside the server's state folder.
const TokenFileName = "token.json"

// DefaultTokenFile is the token file: $MCP_SPOTIFY_TOKEN_FILE, else token.json in
// $STATE_DIRECTORY (under systemd), else in SystemDir when it exists, else in
// $XDG_STATE_HOME/mcp-servers/spotify (~/.local/state/… by default) — the server's own state
// folder in each case.
func DefaultTokenFile(getenv func(string) string) string {
	if p := getenv("MCP_SPOTIFY_TOKEN_FILE"); p != "" {
		return p
	}
	if d := getenv("STATE_DIRECTORY"); d != "" {
		d, _, _ = strings.Cut(d, ":")
		return filepath.Join(d, TokenFileName)
	}
	if oauthtoken.IsDir(SystemDir) {
		return filepath.Join(SystemDir, TokenFileName)
	}
	return filepath.Join(oauthtoken.StateHome(getenv), "mcp-servers", "spotify", TokenFileName)
}

// DefaultClientFile is the client JSON: $MCP_SPOTIFY_CLIENT_FILE, else the systemd credential
// $CREDENTIALS_DIRECTORY/spotify_client.json, else /etc/mcp-servers/credentials/spotify/client.json
// when it exists, else client.json beside the token file.
func DefaultClientFile(getenv func(string) string, tokenFile string) string {
	return oauthtoken.ClientFile(getenv, oauthtoken.ClientLocations{
		Env: "MCP_SPOTIFY_CLIENT_FILE", Credential: "spotify_client.json", System: systemClientFile,
	}, tokenFile)
}
