package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"golang.org/x/oauth2"
)

// Command returns `SERVER auth login|status|logout` for kit.Spec.Commands (its type is
// kit.Command's). hc, when not nil, carries the calls to the provider (tests point it at fakes).
func (p *Provider) Command(server string, hc *http.Client) func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	revoke := "delete the token file (" + p.Name + " has no revoke endpoint)"
	if p.RevokeURL != "" {
		revoke = "revoke the grant at " + p.Name + " and delete the token file"
	}
	save := "save the token"
	if p.Shared {
		save += " the " + p.Name + " servers share"
	}
	usage := fmt.Sprintf("usage: %[1]s auth login|status|logout [flags]\n"+
		"  %[1]s auth login    sign in to %[2]s (consent page in any browser) and %[3]s\n"+
		"  %[1]s auth status   show the sign-in: state, account, scopes, expiry; exit 1 when it is unusable\n"+
		"  %[1]s auth logout   %[4]s\n"+
		"Each takes --help for its flags.", server, p.Name, save, revoke)
	if p.MultiAccount {
		usage += fmt.Sprintf("\nSeveral accounts: %s auth login --account LABEL signs in another one (work, personal); status lists them all.", server)
	}
	return func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		c := &cmd{p: p, server: server, name: args[0], hc: hc, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
		switch args[0] {
		case "login":
			return c.login(ctx, args[1:])
		case "status":
			return c.status(args[1:])
		case "logout":
			return c.logout(ctx, args[1:])
		case "-h", "-help", "--help", "help":
			fmt.Fprintln(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "%s auth: unknown command %q\n%s\n", server, args[0], usage)
		return 2
	}
}

// cmd is one run of an auth subcommand.
type cmd struct {
	p              *Provider
	server, name   string
	hc             *http.Client
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	fs             *flag.FlagSet
	files          Files
	stateDir, api  string
	accounts       string
	account        string // --account: "" for the default account
	defaultToken   string // the default account's token file, beside which the others live
}

// parse registers the flags every subcommand takes and those add registers, parses args and
// locates the files. It returns the exit code for a parse error, or -1.
func (c *cmd) parse(args []string, add func(fs *flag.FlagSet)) int {
	c.fs = flag.NewFlagSet(c.server+" auth "+c.name, flag.ContinueOnError)
	c.fs.SetOutput(io.Discard) // an error is printed once below; the flags only for --help
	def := c.p.Locate(c.server, Files{}, "", c.getenv)
	shared := ""
	if c.p.Shared {
		shared = "shared "
	}
	c.fs.StringVar(&c.files.Token, c.p.ID+"-token-file", "", fmt.Sprintf("the %s%s token file (env %s; default %s)", shared, c.p.Name, c.p.env("token"), def.Token))
	c.fs.StringVar(&c.files.Client, c.p.ID+"-client-file", "", fmt.Sprintf("%s (env %s; default: the systemd credential, /etc/mcp-servers/credentials/%s/client.json, or client.json beside the token file)", c.p.ClientHelp, c.p.env("client"), c.p.ID))
	if !c.p.Shared {
		c.fs.StringVar(&c.stateDir, "state-dir", "", "the server's state folder, which holds the token (env "+config.EnvName("state-dir")+"; as the server resolves it)")
	}
	if c.p.AccountsURL != "" {
		c.fs.StringVar(&c.accounts, c.p.ID+"-accounts-url", c.p.AccountsURL, "base URL of "+c.p.Name+"'s accounts service")
	}
	if c.p.APIURL != "" {
		c.fs.StringVar(&c.api, c.p.ID+"-api-url", c.p.APIURL, "base URL of the "+c.p.Name+" API (to name the account)")
	}
	if c.p.MultiAccount {
		what := "the account to sign in: a label of your choice, 1-32 of a-z0-9_- (default: the default account, token file as above)"
		switch c.name {
		case "status":
			what = "show only this account (default: every signed-in account)"
		case "logout":
			what = "the account to sign out (default: the default account)"
		}
		c.fs.StringVar(&c.account, "account", "", what)
	}
	if add != nil {
		add(c.fs)
	}
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(c.stderr, "Usage of %s:\n", c.fs.Name())
			c.fs.SetOutput(c.stderr)
			c.fs.PrintDefaults()
			return 0
		}
		return c.fail(2, "%v (see %s --help)", err, c.fs.Name())
	}
	if c.fs.NArg() > 0 {
		return c.fail(2, "unexpected argument %q (flags only; see --help)", c.fs.Arg(0))
	}
	if c.account == DefaultAccount {
		c.account = ""
	}
	if c.account != "" {
		if err := CheckLabel(c.account); err != nil {
			return c.fail(2, "--account: %v", err)
		}
	}
	if c.accounts != "" && c.accounts != c.p.AccountsURL {
		c.p = c.p.WithAccountsURL(c.accounts)
	}
	c.files = c.p.Locate(c.server, c.files, c.stateDir, c.getenv)
	c.defaultToken = c.files.Token
	c.files.Token = AccountFile(c.files.Token, c.account)
	return -1
}

// fix is the command that signs account in again: "gmail auth login --account work".
func (c *cmd) fix(account string) string {
	if account == "" || account == DefaultAccount {
		return c.server + " auth login"
	}
	return c.server + " auth login --account " + account
}

func (c *cmd) fail(code int, format string, a ...any) int {
	fmt.Fprintf(c.stderr, "%s auth %s: %s\n", c.server, c.name, fmt.Sprintf(format, a...))
	return code
}

func (c *cmd) login(ctx context.Context, args []string) int {
	p := c.p
	var services string
	var readOnly, browser, showDialog bool
	port := p.DefaultPort
	timeout := 10 * time.Minute
	if code := c.parse(args, func(fs *flag.FlagSet) {
		if len(p.Services) > 1 {
			fs.StringVar(&services, "services", "", "comma-separated services this sign-in covers, of "+strings.Join(p.serviceNames(), ",")+" (default: "+c.server+" plus those the current sign-in covers)")
		}
		fs.BoolVar(&readOnly, "read-only", false, "ask for read-only scopes (enough for a server run with --read-only)")
		if p.RedirectRegistered {
			fs.IntVar(&port, "port", port, "loopback port of the redirect http://127.0.0.1:PORT/callback; it must be registered in the "+p.Name+" app")
		} else {
			fs.IntVar(&port, "port", port, "loopback port for the redirect (default: any free port); fix it to use ssh -L PORT:127.0.0.1:PORT")
		}
		if p.ShowDialog != "" {
			fs.BoolVar(&showDialog, "show-dialog", false, "make "+p.Name+" show the consent page again (to switch accounts)")
		}
		fs.BoolVar(&browser, "browser", false, "also open the consent page in a browser on this machine (xdg-open)")
		fs.DurationVar(&timeout, "timeout", timeout, "give up after this long")
	}); code >= 0 {
		return code
	}
	minPort := 0
	if p.RedirectRegistered {
		minPort = 1
	}
	if port < minPort || port > 65535 {
		return c.fail(2, "--port %d: give %d to 65535", port, minPort)
	}
	if _, err := os.Stat(c.files.Client); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(c.stderr, "%s auth login: no %s OAuth client file at %s.\n"+
			"Save the client JSON there, or name another file with --%s-client-file or $%s.\n%s\nStep by step: %s, section 1.\n",
			c.server, p.Name, c.files.Client, p.ID, p.env("client"), strings.ReplaceAll(p.NewClient, "{port}", strconv.Itoa(port)), p.Doc)
		return 1
	}
	client, err := p.loadClient(c.files.Client)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	list := config.SplitList(services)
	if len(list) == 0 {
		list = []string{c.server}
		if cur, err := ReadRecord(c.files.Token); err == nil {
			list = append(list, p.servicesOf(cur.Scopes)...)
		}
		slices.Sort(list)
		list = slices.Compact(list)
	}
	scopes, err := p.scopesFor(list, readOnly)
	if err != nil {
		return c.fail(2, "--services: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if len(p.Services) > 1 || readOnly {
		fmt.Fprintf(c.stdout, "Signing in for %s (%s scopes).\n", strings.Join(list, ", "), map[bool]string{true: "read-only", false: "full"}[readOnly])
	}
	lo := loginOptions{Client: client, Scopes: scopes, Port: port, In: c.stdin, Out: c.stdout, HTTPClient: c.hc}
	if showDialog {
		lo.AuthOptions = append(lo.AuthOptions, oauth2.SetAuthURLParam(p.ShowDialog, "true"))
	}
	if browser {
		lo.OpenBrowser = func(u string) error { return exec.Command("xdg-open", u).Start() }
	}
	tok, conf, err := p.login(ctx, lo)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	rec, err := p.newRecord(ctx, c.hc, c.api, conf, scopes, tok, time.Now())
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if err := SaveRecord(c.files.Token, rec); err != nil {
		return c.fail(1, "save the token: %v", err)
	}
	who := rec.Account
	if who == "" {
		who = "(unknown account)"
	}
	if c.account != "" {
		who += " (account " + c.account + ")"
	}
	fmt.Fprintf(c.stdout, "Signed in to %s as %s; token saved to %s. Running servers pick it up on their next call.\n", p.Name, who, c.files.Token)
	if ends := p.ends(rec); !ends.IsZero() {
		fmt.Fprintf(c.stdout, "This sign-in ends %s (%s); sign in again before then.\n", ends.Format(time.DateOnly), p.EndsBecause)
	}
	return 0
}

func (c *cmd) status(args []string) int {
	var asJSON bool
	if code := c.parse(args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the status as JSON (one object per account)")
	}); code >= 0 {
		return code
	}
	accounts := []string{c.account}
	if c.p.MultiAccount && c.account == "" {
		list, err := Accounts(c.defaultToken)
		if err != nil {
			return c.fail(1, "%v", err)
		}
		if len(list) > 1 || len(list) == 1 && list[0] != DefaultAccount {
			accounts = list // without token.json the servers use the first of these: it is the default then
		}
	}
	code := 0
	for i, account := range accounts {
		if i > 0 && !asJSON {
			fmt.Fprintln(c.stdout)
		}
		files := Files{Token: AccountFile(c.defaultToken, account), Client: c.files.Client}
		o := SourceOptions{Files: files, Fix: c.fix(account), ReadOnly: true, HTTPClient: c.hc}
		if len(c.p.Services) > 1 {
			o.Service = c.server
		}
		st := NewSource(c.p, o).Status()
		label := ""
		if len(accounts) > 1 || account != "" {
			label = cmp.Or(account, DefaultAccount)
		}
		c.printStatus(st, label, asJSON)
		if !st.Usable() {
			code = 1
		}
	}
	return code
}

// printStatus writes one account's status; label is "" for a provider with one account.
func (c *cmd) printStatus(st Status, label string, asJSON bool) {
	w := c.stdout
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Label string `json:"label,omitempty"`
			Status
		}{label, st})
		return
	}
	account := st.Account
	if account == "" {
		account = "(unknown account)"
	}
	scopes := make([]string, len(st.Scopes))
	for i, s := range st.Scopes {
		scopes[i] = s
		if c.p.ShortScope != nil && c.p.ShortScope(s) != "" {
			scopes[i] = c.p.ShortScope(s)
		}
	}
	if label != "" {
		fmt.Fprintf(w, "label:      %s\n", label)
	}
	fmt.Fprintf(w, "state:      %s\naccount:    %s\nscopes:     %s\n", st.State, account, strings.Join(scopes, " "))
	if len(c.p.Services) > 1 {
		fmt.Fprintf(w, "services:   %s\n", strings.Join(c.p.servicesOf(st.Scopes), ","))
	}
	fmt.Fprintf(w, "token file: %s\nclient:     %s\n", st.TokenFile, st.ClientFile)
	for _, l := range []struct {
		label string
		t     time.Time
		note  string
	}{
		{"signed in:  ", st.SignedIn, ""},
		{"refreshed:  ", st.Refreshed, ""},
		{"access token expires: ", st.AccessExpiry, " (refreshed automatically)"},
		{"sign-in ends:         ", st.RefreshExpiry, " (" + c.p.EndsBecause + ")"},
	} {
		if !l.t.IsZero() {
			fmt.Fprintf(w, "%s%s%s\n", l.label, l.t.Format(time.RFC3339), l.note)
		}
	}
	if st.Message != "" {
		fmt.Fprintln(w, st.Message)
	}
}

func (c *cmd) logout(ctx context.Context, args []string) int {
	var keep bool
	if code := c.parse(args, func(fs *flag.FlagSet) {
		if c.p.RevokeURL != "" {
			fs.BoolVar(&keep, "keep-grant", false, "only delete the token file; do not revoke the grant at "+c.p.Name)
		}
	}); code >= 0 {
		return code
	}
	rec, err := ReadRecord(c.files.Token)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(c.stdout, "Not signed in (no %s).\n", c.files.Token)
		return 0
	}
	if err == nil && c.p.RevokeURL != "" && !keep {
		if err := c.p.revoke(ctx, c.hc, rec.RefreshToken); err != nil {
			return c.fail(1, "%v (the token file is kept; --keep-grant deletes it anyway)", err)
		}
	}
	if err := c.files.remove(); err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Fprintf(c.stdout, "Signed out: removed %s.", c.files.Token)
	if c.p.RevokeURL == "" {
		fmt.Fprintf(c.stdout, " %s", c.p.NoRevoke)
	}
	if c.p.Shared {
		fmt.Fprintf(c.stdout, " Every %s server sharing it now answers \"run `%s`\".", c.p.Name, c.fix(c.account))
	}
	fmt.Fprintln(c.stdout)
	return 0
}

func (f Files) remove() error { return secretFile{Path: f.Token}.Remove() }

// newRecord is the token file's record of a sign-in just made: the token the code was
// exchanged for, its scopes and client, and the account it names. A sign-in without a refresh
// token is refused: the servers could not renew it.
func (p *Provider) newRecord(ctx context.Context, hc *http.Client, api string, conf *oauth2.Config, scopes []string, tok *oauth2.Token, now time.Time) (*Record, error) {
	if tok.RefreshToken == "" {
		return nil, fmt.Errorf("no refresh token came back from %s; sign in again", p.Name)
	}
	rec := &Record{ClientID: conf.ClientID, Scopes: scopes, SignedIn: now, Account: p.Account(ctx, hc, api, tok)}
	rec.apply(tok, now)
	return rec, nil
}

// ends is when the provider ends the sign-in rec holds: as it said, or by its Lifetime rule;
// zero when neither tells.
func (p *Provider) ends(rec *Record) time.Time {
	if rec.RefreshExpiry.IsZero() && p.Lifetime > 0 {
		return rec.SignedIn.Add(p.Lifetime)
	}
	return rec.RefreshExpiry
}

// revoke withdraws the grant at the provider; an answer that the token is already invalid is
// what a sign-out wants too.
func (p *Provider) revoke(ctx context.Context, hc *http.Client, token string) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.RevokeURL, strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("revoke at %s: %w", p.Name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK && !strings.Contains(string(body), "invalid_token") {
		return fmt.Errorf("revoke at %s: %s: %s", p.Name, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
