// Command spotify is the fleet's Spotify MCP server (port 9010): playback on the user's devices,
// the queue, search, playlists and the library, on the account of the Spotify sign-in.
package main

import (
	"flag"
	"os"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the spotify server's own flags.
type settings struct {
	tokenFile   string
	clientFile  string
	apiURL      string
	accountsURL string
	concurrent  int
}

// spec describes the spotify server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "spotify",
		Title:        "Spotify",
		Port:         9010,
		Instructions: "Spotify for the signed-in account.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "limit", Meaning: "how many to return (search_music: per type)"},
			{Name: "device", Meaning: "a device name or id from list_devices (default: the active device)", Short: "device name or id"},
			{Name: "offset", Meaning: "how many to skip, for the next page (next_offset of the last answer)"},
			{Name: "playlist", Meaning: "a playlist URI, link or id", Short: "playlist URI, link or id"},
		},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.tokenFile, "spotify-token-file", "", "the Spotify token file, rewritten on every rotation (default: token.json in the state dir; `spotify auth` finds the same file)")
			fs.StringVar(&st.clientFile, "spotify-client-file", "", `the Spotify app's client JSON {"client_id": …} (default: $CREDENTIALS_DIRECTORY/spotify_client.json, else /etc/mcp-servers/credentials/spotify/client.json, else client.json beside the token file)`)
			fs.StringVar(&st.apiURL, "spotify-api-url", defaultAPIURL, "base URL of the Spotify Web API")
			fs.StringVar(&st.accountsURL, "spotify-accounts-url", oauth.Spotify.AccountsURL, "base URL of Spotify's accounts service (token endpoint)")
			fs.IntVar(&st.concurrent, "max-concurrent", 4, "Spotify API calls in flight at once")
		},
		Setup: func(s *kit.Server) error {
			c, err := newClient(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			addPlayerTools(s, c)
			addCatalogTools(s, c)
			addPlaylistTools(s, c)
			addLibraryTools(s, c)
			addPrompts(s, c)
			return nil
		},
		Commands: map[string]kit.Command{"auth": oauth.Spotify.Command("spotify", nil)},
	}
}
