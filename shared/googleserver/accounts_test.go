package googleserver

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/option"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const driveScope = "https://www.googleapis.com/auth/drive"

// openServer builds the server and account from flags, with the API at endpoint.
func openServer(t *testing.T, endpoint string, args []string) (*kit.Server, *Account) {
	t.Helper()
	var f Flags
	args = append(args, "--drive-endpoint", endpoint)
	cfg, err := config.Parse("drive", 9006, args, func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	var acct *Account
	s, err := kit.New(kit.Spec{Name: "drive", Port: 9006, Setup: func(s *kit.Server) error {
		acct, err = Open(s, &f, testProduct)
		return err
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, acct
}

// eventually waits up to 5 s for ok, which the caller then checks: a change to the token folder
// reaches the server's watch a moment after the file system makes it.
func eventually(ok func() bool) {
	for deadline := time.Now().Add(5 * time.Second); !ok() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAccounts: with a default and two more accounts signed in, the same call goes to Google
// with the token of the account its context names, the default without one; an unknown account
// is refused naming those signed in and the login command; an expired one names its own login.
func TestAccounts(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/drive/v3/files/denied" {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"code":403,"message":"Request had insufficient authentication scopes."}}`)
			return
		}
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"id":"x"}`)
	}))
	defer api.Close()
	hour := time.Now().Add(time.Hour)
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	googletest.AddAccount(t, args, "work", "ada@work.example", "work-token", hour, time.Time{}, driveScope)
	googletest.AddAccount(t, args, "old", "ada@old.example", "old-token", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute), driveScope)
	_, acct := openServer(t, api.URL+"/drive/v3/", args)
	svc, err := drive.NewService(t.Context(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(acct.Endpoint))
	if err != nil {
		t.Fatal(err)
	}

	if list, err := acct.Accounts(); err != nil || !slices.Equal(list, []string{"default", "old", "work"}) {
		t.Fatalf("accounts %v, %v", list, err)
	}
	ctx := t.Context()
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{ctx, "Bearer live-token"},
		{WithAccount(ctx, "work"), "Bearer work-token"},
		{WithAccount(ctx, "default"), "Bearer live-token"},
	} {
		mu.Lock()
		auths = nil
		mu.Unlock()
		if f, err := svc.Files.Get("x").Context(tc.ctx).Do(); err != nil || f.Id != "x" {
			t.Fatalf("get: %v %+v", err, f)
		}
		resp, err := svc.Files.Get("x").Context(tc.ctx).Download()
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if _, err := svc.Files.Create(&drive.File{Name: "n"}).Media(strings.NewReader("hi")).Context(tc.ctx).Do(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := slices.Clone(auths)
		mu.Unlock()
		if !slices.Equal(got, []string{tc.want, tc.want, tc.want}) {
			t.Errorf("account %q: Authorization %v, want %s", acct.Label(tc.ctx), got, tc.want)
		}
	}

	_, err = svc.Files.Get("denied").Context(WithAccount(ctx, "work")).Do()
	if msg := acct.Fail(err, "file denied").Error(); !strings.Contains(msg, "run `drive auth login --account work` without --read-only") {
		t.Errorf("a scope refused to work: %s", msg)
	}
	var se *oauth.SignInError
	_, err = svc.Files.Get("x").Context(WithAccount(ctx, "old")).Do()
	if !errors.As(err, &se) || se.State != oauth.StateExpired || !strings.Contains(err.Error(), "Google sign-in for ada@old.example expired: run `drive auth login --account old`") {
		t.Errorf("expired account: %v", err)
	}

	if c, err := acct.bind(ctx, "work"); err != nil || acct.Label(c) != "work" {
		t.Errorf("bind work: %v", err)
	}
	_, err = acct.bind(ctx, "home")
	var ke *kit.Error
	if !errors.As(err, &ke) || ke.Code != kit.CodeInvalidInput ||
		err.Error() != "no Google account \"home\" is signed in (signed in: default, old, work); give one of those, or omit account for the default; to add it run `drive auth login --account home`" {
		t.Errorf("unknown account: %v", err)
	}

	// Without token.json the first account signed in (by label) is the default.
	token := args[slices.Index(args, "--google-token-file")+1]
	if err := os.Remove(token); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool { return acct.Label(ctx) == "old" })
	if got := acct.Label(ctx); got != "old" {
		t.Errorf("default without token.json: %s, want old", got)
	}
	if err := os.Remove(oauth.AccountFile(token, "old")); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool { return acct.Label(ctx) == "work" })
	if got := acct.Label(ctx); got != "work" {
		t.Errorf("default without token.json: %s, want work", got)
	}
	if _, err := acct.bind(ctx, "default"); err == nil || !strings.Contains(err.Error(), "(signed in: work)") || !strings.Contains(err.Error(), "run `drive auth login`") {
		t.Errorf("bind default while signed out: %v", err)
	}
}

// TestAccountsHealth: one "google token" check per account; an expired account warns while
// another works, and the server fails only when none does.
func TestAccountsHealth(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	googletest.AddAccount(t, args, "old", "ada@old.example", "old-token", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute), driveScope)
	s, _ := openServer(t, "http://127.0.0.1:1/", args)

	rep := s.Health(t.Context())
	def, old := rep.Checks["google token"], rep.Checks["google token (old)"]
	if rep.Status != "degraded" || len(rep.Checks) != 2 || def.Status != health.OK || !strings.HasPrefix(def.Detail, "ok: ada@example.com (drive)") ||
		old.Status != health.Warn || !strings.HasPrefix(old.Detail, "expired: Google sign-in for ada@old.example expired: run `drive auth login --account old`") {
		t.Errorf("one expired of two: %+v", rep)
	}

	token := args[slices.Index(args, "--google-token-file")+1]
	if err := os.Remove(token); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool { return s.Health(t.Context()).Status == "unavailable" })
	rep = s.Health(t.Context())
	if rep.Status != "unavailable" || len(rep.Checks) != 1 || rep.Checks["google token (old)"].Status != health.Fail {
		t.Errorf("only an expired account: %+v", rep)
	}
	if err := os.Remove(oauth.AccountFile(token, "old")); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool {
		return len(s.Health(t.Context()).Checks) == 1 && s.Health(t.Context()).Status == "degraded"
	})
	rep = s.Health(t.Context())
	if rep.Status != "degraded" || len(rep.Checks) != 1 || !strings.HasPrefix(rep.Checks["google token"].Detail, "missing: Google sign-in missing: run `drive auth login`") {
		t.Errorf("signed out: %+v", rep)
	}
}

// TestBackgroundProduct: a server that calls Google on its own (notes) takes no account
// argument and its health shows only the account it uses.
func TestBackgroundProduct(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	googletest.AddAccount(t, args, "old", "ada@old.example", "old-token", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute), driveScope)
	var f Flags
	cfg, err := config.Parse("notes", 9009, args, func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	p := testProduct
	p.Background = true
	s, err := kit.New(kit.Spec{Name: "notes", Port: 9009, Setup: func(s *kit.Server) error {
		if _, err := Open(s, &f, p); err != nil {
			return err
		}
		// A tool of its own named account would panic had Open added the common argument.
		kit.AddTool(s, kit.Tool{Name: "own_account", Description: "d", ReadOnly: true},
			func(context.Context, *mcp.CallToolRequest, struct {
				Account string `json:"account" jsonschema:"its own"`
			}) (*mcp.CallToolResult, struct{}, error) {
				return nil, struct{}{}, nil
			})
		return nil
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep := s.Health(t.Context())
	if rep.Status != "ok" || len(rep.Checks) != 1 || rep.Checks["google token"].Status != health.OK {
		t.Errorf("background health: %+v", rep)
	}
}

// TestSignInFromAnotherProcess: the signed-in accounts are looked up once per change of the
// token folder, not per call; an account that another process signs in after the server
// started (a file moved into the folder, as `auth login` renames its file) is bound without a
// restart, and the calls after it look no more.
func TestSignInFromAnotherProcess(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	_, acct := openServer(t, "http://127.0.0.1:1/", args)
	if acct.set.watch == nil {
		t.Fatal("the token folder is not watched")
	}
	looks := func() int {
		acct.set.mu.Lock()
		defer acct.set.mu.Unlock()
		return acct.set.looks
	}
	ctx := t.Context()
	for range 100 {
		if got := acct.Label(ctx); got != oauth.DefaultAccount {
			t.Fatalf("Label = %s, want default", got)
		}
	}
	if n := looks(); n != 1 {
		t.Fatalf("100 calls listed the token folder %d times; want 1", n)
	}

	other := googletest.SignIn(t, "http://127.0.0.1:1/token", hour, driveScope)
	googletest.AddAccount(t, other, "work", "ada@work.example", "work-token", hour, time.Time{}, driveScope)
	from := oauth.AccountFile(other[slices.Index(other, "--google-token-file")+1], "work")
	to := oauth.AccountFile(args[slices.Index(args, "--google-token-file")+1], "work")
	if out, err := exec.Command("mv", from, to).CombinedOutput(); err != nil {
		t.Fatalf("mv: %v: %s", err, out)
	}
	eventually(func() bool { _, err := acct.bind(ctx, "work"); return err == nil })
	c, err := acct.bind(ctx, "work")
	if err != nil || acct.Label(c) != "work" {
		t.Fatalf("bind work after another process signed it in: %v", err)
	}
	if got := acct.Status(c); got.State != oauth.StateOK || got.Account != "ada@work.example" {
		t.Errorf("status of work: %+v", got)
	}
	n := looks()
	for range 100 {
		if _, err := acct.bind(ctx, "work"); err != nil {
			t.Fatal(err)
		}
		_ = acct.Label(ctx)
	}
	if d := looks() - n; d != 0 {
		t.Errorf("100 calls after the sign-in listed the token folder %d more times; want 0", d)
	}
}
