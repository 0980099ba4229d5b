package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// TestDeployedFleet plays the owner and an MCP client against an auth server and a protected
// server that run elsewhere — in containers, started by deploy/test/containers/run.sh — as
// TestEndToEnd does against in-process ones: the owner enrols a passkey with the code the
// deployed `auth enroll` prints, the go-sdk client discovers the issuer from the server's 401,
// registers (DCR), the owner signs in and consents in headless Chromium, and the client calls a
// tool with the access token. It runs only when MCP_DEPLOYED_ISSUER is set:
//
//	MCP_DEPLOYED_ISSUER  the auth server's issuer, e.g. http://localhost:9002
//	MCP_DEPLOYED_SERVER  the protected server's base URL, e.g. http://localhost:9003
//	MCP_DEPLOYED_ENROLL  a shell command that runs `auth enroll` where the auth server's state is
//	MCP_DEPLOYED_CALL    the tool and its arguments: NAME {"json":"arguments"}
//	MCP_DEPLOYED_WANT    text the tool's result must hold
func TestDeployedFleet(t *testing.T) {
	issuer := os.Getenv("MCP_DEPLOYED_ISSUER")
	if issuer == "" {
		t.Skip("MCP_DEPLOYED_ISSUER is not set: deploy/test/containers/run.sh sets it")
	}
	server, enroll, call, want := os.Getenv("MCP_DEPLOYED_SERVER"), os.Getenv("MCP_DEPLOYED_ENROLL"), os.Getenv("MCP_DEPLOYED_CALL"), os.Getenv("MCP_DEPLOYED_WANT")
	tool, rawArgs, _ := strings.Cut(call, " ")
	var args map[string]any
	if err := json.Unmarshal([]byte(rawArgs), &args); err != nil || server == "" || enroll == "" || want == "" {
		t.Fatalf("MCP_DEPLOYED_SERVER, _ENROLL, _CALL (NAME {json}) and _WANT are needed: %v", err)
	}
	b := newBrowser(t)

	out, err := exec.CommandContext(t.Context(), "sh", "-c", enroll).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", enroll, err, out)
	}
	code := enrolmentCode(string(out))
	if code == "" {
		t.Fatalf("no enrolment code in %q", out)
	}
	err = b.run(chromedp.Navigate(issuer+enrolPath), chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Click(chromedp.ID("enroll")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-enrolled="yes"]`)))
	if err != nil {
		t.Fatalf("enrol at %s: %v", issuer, err)
	}

	// The client's loopback redirect, as a desktop client has.
	e := &fleetEnv{Issuer: issuer, callbackHits: make(chan url.Values, 4)}
	ln, port := listen(t)
	e.callbackURL = "http://127.0.0.1:" + port + "/callback"
	serveOn(t, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		e.callbackHits <- r.URL.Query()
		_, _ = io.WriteString(w, "<html><body id=done>You can close this window.</body></html>")
	}))
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{e.callbackURL}, ClientName: "Deployed Fleet Check", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}}},
		RedirectURL:              e.callbackURL,
		AuthorizationCodeFetcher: b.fetcher(e),
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connect(t, server, h)
	if err != nil {
		t.Fatalf("connect to %s through OAuth: %v", server, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	text, _ := json.Marshal(res)
	if !strings.Contains(string(text), want) {
		t.Fatalf("%s answered %s, without %q", tool, text, want)
	}
	t.Logf("%s through an OAuth access token from %s: %s", tool, issuer, text)
}

// enrolmentCode finds the one-time code in `auth enroll`'s output: four groups of five.
func enrolmentCode(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if l := strings.TrimSpace(line); strings.Count(l, "-") == 3 && len(l) == 23 {
			return l
		}
	}
	return ""
}
