package spotifyauth

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthlogin"
)

// CommandOptions describe the server an `auth` command belongs to.
type CommandOptions struct {
	Server     string              // the server id: "spotify"
	Getenv     func(string) string // os.Getenv by default
	Stdin      io.Reader           // os.Stdin by default
	HTTPClient *http.Client        // for the accounts service and the Web API; tests point it at fakes
}

// Command returns the `NAME auth login|status|logout` subcommand for kit.Spec.Commands.
func Command(o CommandOptions) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	oauthlogin.Defaults(&o.Getenv, &o.Stdin)
	status := func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return o.status(args, stdout, stderr)
	}
	logout := func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return o.logout(args, stdout, stderr)
	}
	return oauthlogin.Dispatch(o.Server, oauthlogin.Usage{
		Login:  "sign in to Spotify (consent page in any browser) and save the token",
		Status: "show the sign-in: state, account, scopes, expiry; exit 1 when it is unusable",
		Logout: "delete the token file (Spotify has no revoke endpoint)",
	}, o.login, status, logout)
}

type files struct {
	oauthlogin.Files
	accounts, api string
}

func (o CommandOptions) flagSet(name string, stderr io.Writer, f *files) *flag.FlagSet {
	fs := f.FlagSet(o.Server, name, stderr, oauthlogin.FileFlags{
		Token: "spotify-token-file", TokenUsage: "the Spotify token file (env MCP_SPOTIFY_TOKEN_FILE; default " + DefaultTokenFile(o.Getenv) + ")",
		Client: "spotify-client-file", ClientUsage: `the app's client JSON {"client_id": …} (env MCP_SPOTIFY_CLIENT_FILE; default: the systemd credential, /etc/mcp-servers/credentials/spotify/client.json, or client.json beside the token file)`,
	})
	fs.StringVar(&f.accounts, "spotify-accounts-url", AccountsURL, "base URL of Spotify's accounts service")
	fs.StringVar(&f.api, "spotify-api-url", "https://api.spotify.com/v1/", "base URL of the Spotify Web API (to name the account)")
	return fs
}

func (o CommandOptions) login(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f files
	fs := o.flagSet("login", stderr, &f)
	port := fs.Int("port", 8888, "loopback port of the redirect http://127.0.0.1:PORT/callback; it must be registered in the Spotify app")
	showDialog := fs.Bool("show-dialog", false, "make Spotify show the consent page again (to switch accounts)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return oauthlogin.ExitParse(err)
	}
	f.Resolve(o.Getenv, DefaultTokenFile, DefaultClientFile)
	if *port < 1 || *port > 65535 {
		fmt.Fprintf(stderr, "%s auth login: --port %d: give 1 to 65535 (the port registered in the app)\n", o.Server, *port)
		return 2
	}
	if _, err := os.Stat(f.Client); errors.Is(err, os.ErrNotExist) {
		fmt.Fprint(stderr, missingClient(o.Server, f.Client, *port))
		return 1
	}
	client, err := LoadClient(f.Client, f.accounts)
	if err != nil {
		fmt.Fprintf(stderr, "%s auth login: %v\n", o.Server, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	rec, err := Login(ctx, LoginOptions{Client: client, ListenAddr: fmt.Sprintf("127.0.0.1:%d", *port), ShowDialog: *showDialog, In: o.Stdin, Out: stdout, HTTPClient: o.HTTPClient})
	if err != nil {
		fmt.Fprintf(stderr, "%s auth login: %v\n", o.Server, err)
		return 1
	}
	rec.Account = accountName(ctx, o.HTTPClient, f.api, rec.AccessToken)
	if err := SaveRecord(f.Token, rec); err != nil {
		fmt.Fprintf(stderr, "%s auth login: save the token: %v\n", o.Server, err)
		return 1
	}
	fmt.Fprintf(stdout, "Signed in to Spotify as %s; token saved to %s. A running server picks it up on its next call.\n", oauthlogin.OrUnknown(rec.Account), f.Token)
	fmt.Fprintf(stdout, "Spotify ends this sign-in on %s (six months); sign in again before then.\n", rec.RefreshExpiry().Format("2006-01-02"))
	return 0
}

// accountName asks the Web API who signed in: "Display Name (id)", or "" when it cannot tell.
func accountName(ctx context.Context, hc *http.Client, api, access string) string {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(api, "/")+"/me", nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Authorization", "Bearer "+access)
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var me struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&me) != nil {
		return ""
	}
	if me.DisplayName != "" && me.DisplayName != me.ID {
		return me.DisplayName + " (" + me.ID + ")"
	}
	return me.ID
}

// missingClient says where the Spotify client file was looked for and how to get one.
func missingClient(server, path string, port int) string {
	return oauthlogin.MissingClient{
		Server: server, Provider: "Spotify", Path: path, Flag: "spotify-client-file", Env: "MCP_SPOTIFY_CLIENT_FILE",
		Create: `Create an app in the Spotify developer dashboard (https://developer.spotify.com/dashboard) ` +
			fmt.Sprintf(`with the redirect URI http://127.0.0.1:%d/callback, then save {"client_id": "…"} with its Client ID.`, port),
		Doc: "docs/spotify.md, section 1",
	}.String()
}

func (o CommandOptions) status(args []string, stdout, stderr io.Writer) int {
	var f files
	fs := o.flagSet("status", stderr, &f)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if err := fs.Parse(args); err != nil {
		return oauthlogin.ExitParse(err)
	}
	f.Resolve(o.Getenv, DefaultTokenFile, DefaultClientFile)
	client, cerr := LoadClient(f.Client, f.accounts)
	st := NewSource(SourceOptions{TokenFile: f.Token, Client: client, ClientErr: cerr, FixCommand: o.Server + " auth login"}).Status()
	return oauthlogin.PrintStatus(stdout, *asJSON, st, func() {
		fmt.Fprintf(stdout, "state:      %s\n", st.State)
		fmt.Fprintf(stdout, "account:    %s\n", oauthlogin.OrUnknown(st.Account))
		fmt.Fprintf(stdout, "scopes:     %s\n", strings.Join(st.Scopes, " "))
		fmt.Fprintf(stdout, "token file: %s\n", st.TokenFile)
		if !st.SignedIn.IsZero() {
			fmt.Fprintf(stdout, "signed in:  %s (Spotify ends the sign-in %s)\n", st.SignedIn.Format(time.RFC3339), st.RefreshExpiry.Format("2006-01-02"))
		}
		if !st.Refreshed.IsZero() {
			fmt.Fprintf(stdout, "refreshed:  %s\n", st.Refreshed.Format(time.RFC3339))
		}
	}, st.Message, st.State == StateOK || st.State == StateExpiring)
}

func (o CommandOptions) logout(args []string, stdout, stderr io.Writer) int {
	var f files
	fs := o.flagSet("logout", stderr, &f)
	if err := fs.Parse(args); err != nil {
		return oauthlogin.ExitParse(err)
	}
	f.Resolve(o.Getenv, DefaultTokenFile, DefaultClientFile)
	if _, err := os.Stat(f.Token); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "Not signed in (no %s).\n", f.Token)
		return 0
	}
	if err := RemoveRecord(f.Token); err != nil {
		fmt.Fprintf(stderr, "%s auth logout: %v\n", o.Server, err)
		return 1
	}
	fmt.Fprintf(stdout, "Signed out: removed %s. Spotify has no revoke endpoint: to withdraw the grant too, remove the app at https://www.spotify.com/account/apps/.\n", f.Token)
	return 0
}
