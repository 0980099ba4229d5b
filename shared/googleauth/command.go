package googleauth

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthlogin"
)

// CommandOptions describe the server an `auth` command belongs to.
type CommandOptions struct {
	Server     string              // the server id, e.g. "gmail"; also its default service
	Getenv     func(string) string // os.Getenv by default
	Stdin      io.Reader           // os.Stdin by default
	HTTPClient *http.Client        // for Google's token and revoke endpoints; tests point it at fakes
	RevokeURL  string              // RevokeURL by default
}

// Command returns the `NAME auth login|status|logout` subcommand for kit.Spec.Commands.
func Command(o CommandOptions) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	oauthlogin.Defaults(&o.Getenv, &o.Stdin)
	if o.RevokeURL == "" {
		o.RevokeURL = RevokeURL
	}
	status := func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return o.status(args, stdout, stderr)
	}
	return oauthlogin.Dispatch(o.Server, oauthlogin.Usage{
		Login:  "sign in to Google (consent page in any browser) and save the token the Google servers share",
		Status: "show the sign-in: state, account, scopes, expiry; exit 1 when it is unusable",
		Logout: "revoke the grant at Google and delete the token file",
	}, o.login, status, o.logout)
}

// files are the flags every auth command takes.
type files struct{ oauthlogin.Files }

func (o CommandOptions) flagSet(name string, stderr io.Writer, f *files) *flag.FlagSet {
	fs := f.FlagSet(o.Server, name, stderr, oauthlogin.FileFlags{
		Token: "google-token-file", TokenUsage: "the shared Google token file (env MCP_GOOGLE_TOKEN_FILE; default " + DefaultTokenFile(o.Getenv) + ")",
		Client: "google-client-file", ClientUsage: "the OAuth client JSON, Desktop app type (env MCP_GOOGLE_CLIENT_FILE; default: the systemd credential, /etc/mcp-servers/credentials/google/client.json, or client.json beside the token file)",
	})
	return fs
}

func (o CommandOptions) login(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f files
	fs := o.flagSet("login", stderr, &f)
	services := fs.String("services", "", "comma-separated services this sign-in covers, of "+strings.Join(Services(), ",")+" (default: "+o.Server+" plus those the current sign-in covers)")
	readOnly := fs.Bool("read-only", false, "ask for read-only scopes")
	port := fs.Int("port", 0, "loopback port for the redirect (default: any free port); fix it to use ssh -L PORT:127.0.0.1:PORT")
	browser := fs.Bool("browser", false, "also open the consent page in a browser on this machine (xdg-open)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return oauthlogin.ExitParse(err)
	}
	f.Resolve(o.Getenv, DefaultTokenFile, DefaultClientFile)
	if _, err := os.Stat(f.Client); errors.Is(err, os.ErrNotExist) {
		fmt.Fprint(stderr, missingClient(o.Server, f.Client))
		return 1
	}
	client, err := LoadClient(f.Client)
	if err != nil {
		fmt.Fprintf(stderr, "%s auth login: %v\n", o.Server, err)
		return 1
	}
	list := splitList(*services)
	if len(list) == 0 {
		list = []string{o.Server}
		if cur, err := readRecord(f.Token); err == nil {
			list = append(list, ServicesOf(cur.Scopes)...)
		}
		slices.Sort(list)
		list = slices.Compact(list)
	}
	scopes, err := Scopes(list, *readOnly)
	if err != nil {
		fmt.Fprintf(stderr, "%s auth login: --services: %v\n", o.Server, err)
		return 2
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "%s auth login: --port %d: give 0 to 65535\n", o.Server, *port)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	fmt.Fprintf(stdout, "Signing in for %s (%s scopes).\n", strings.Join(list, ", "), map[bool]string{true: "read-only", false: "full"}[*readOnly])
	lo := LoginOptions{Client: client, Scopes: scopes, ListenAddr: fmt.Sprintf("127.0.0.1:%d", *port), In: o.Stdin, Out: stdout, HTTPClient: o.HTTPClient}
	if *browser {
		lo.OpenBrowser = func(u string) error { return exec.Command("xdg-open", u).Start() }
	}
	rec, err := Login(ctx, lo)
	if err != nil {
		fmt.Fprintf(stderr, "%s auth login: %v\n", o.Server, err)
		return 1
	}
	if err := SaveRecord(f.Token, rec); err != nil {
		fmt.Fprintf(stderr, "%s auth login: save the token: %v\n", o.Server, err)
		return 1
	}
	fmt.Fprintf(stdout, "Signed in as %s; token saved to %s. Running servers pick it up on their next call.\n", oauthlogin.OrUnknown(rec.Account), f.Token)
	if !rec.RefreshExpiry.IsZero() {
		fmt.Fprintf(stdout, "Warning: Google says this sign-in expires %s: the OAuth app is in Testing. Publish it (docs/google.md) and sign in again.\n", rec.RefreshExpiry.Format(time.RFC1123))
	}
	return 0
}

// missingClient says where the Google OAuth client file was looked for and how to get one.
func missingClient(server, path string) string {
	return oauthlogin.MissingClient{
		Server: server, Provider: "Google", Path: path, Flag: "google-client-file", Env: "MCP_GOOGLE_CLIENT_FILE",
		Create: "Create one in the Google Cloud console (https://console.cloud.google.com/apis/credentials): " +
			"Create credentials → OAuth client ID → Application type: Desktop app, then Download JSON.",
		Doc: "docs/google.md, section 1",
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
	client, cerr := LoadClient(f.Client)
	src := NewSource(SourceOptions{TokenFile: f.Token, Client: client, ClientErr: cerr, FixCommand: o.Server + " auth login", Service: o.Server, ReadOnly: true, HTTPClient: o.HTTPClient})
	st := src.Status()
	return oauthlogin.PrintStatus(stdout, *asJSON, st, func() {
		fmt.Fprintf(stdout, "state:      %s\n", st.State)
		fmt.Fprintf(stdout, "account:    %s\n", oauthlogin.OrUnknown(st.Account))
		short := make([]string, len(st.Scopes))
		for i, s := range st.Scopes {
			short[i] = ShortScope(s)
		}
		fmt.Fprintf(stdout, "scopes:     %s\n", strings.Join(short, " "))
		fmt.Fprintf(stdout, "services:   %s\n", strings.Join(ServicesOf(st.Scopes), ","))
		fmt.Fprintf(stdout, "token file: %s\n", st.TokenFile)
		if !st.SignedIn.IsZero() {
			fmt.Fprintf(stdout, "signed in:  %s\n", st.SignedIn.Format(time.RFC3339))
		}
		if !st.Refreshed.IsZero() {
			fmt.Fprintf(stdout, "refreshed:  %s\n", st.Refreshed.Format(time.RFC3339))
		}
		if !st.AccessExpiry.IsZero() {
			fmt.Fprintf(stdout, "access token expires: %s (refreshed automatically)\n", st.AccessExpiry.Format(time.RFC3339))
		}
		if !st.RefreshExpiry.IsZero() {
			fmt.Fprintf(stdout, "sign-in expires:      %s (OAuth app in Testing)\n", st.RefreshExpiry.Format(time.RFC3339))
		}
	}, st.Message, st.State == StateOK || st.State == StateExpiring)
}

func (o CommandOptions) logout(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f files
	fs := o.flagSet("logout", stderr, &f)
	keep := fs.Bool("keep-grant", false, "only delete the token file; do not revoke the grant at Google")
	if err := fs.Parse(args); err != nil {
		return oauthlogin.ExitParse(err)
	}
	f.Resolve(o.Getenv, DefaultTokenFile, DefaultClientFile)
	rec, err := readRecord(f.Token)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "Not signed in (no %s).\n", f.Token)
		return 0
	}
	if err == nil && !*keep {
		if err := revoke(ctx, o.HTTPClient, o.RevokeURL, rec.RefreshToken); err != nil {
			fmt.Fprintf(stderr, "%s auth logout: %v (the token file is kept; --keep-grant deletes it anyway)\n", o.Server, err)
			return 1
		}
	}
	if err := RemoveRecord(f.Token); err != nil {
		fmt.Fprintf(stderr, "%s auth logout: %v\n", o.Server, err)
		return 1
	}
	fmt.Fprintf(stdout, "Signed out: removed %s. Every Google server sharing it now answers \"run `%s auth login`\".\n", f.Token, o.Server)
	return 0
}

func revoke(ctx context.Context, client *http.Client, endpoint, token string) error {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("revoke at Google: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	// 400 invalid_token: already revoked or expired, which is what logout wants.
	if resp.StatusCode != http.StatusOK && !strings.Contains(string(body), "invalid_token") {
		return fmt.Errorf("revoke at Google: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
