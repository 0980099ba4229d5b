// Command mcpgoclient is github.com/mark3labs/mcp-go's OAuth client (the version scripts/go.mod
// pins) run against the fleet, driven by servers/auth's TestMcpGoClient: it connects to an MCP
// server, meets the 401, registers by DCR, builds the authorization URL with PKCE (the Go test
// signs in with a passkey in Chromium and hands back the code on stdin), exchanges the code and
// calls a tool; then its access token is made to expire, so mcp-go refreshes it before the next
// call; after the owner revokes the grant (the Go test, then a line on stdin) the next refresh
// must fail and mcp-go must ask for a new authorization. It lives in this module because the
// server modules do not depend on mcp-go.
//
// Usage: mcpgoclient MCP_URL REDIRECT_URL TOOL ARGUMENTS_JSON. Prints one JSON line per step.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// step is one line printed for the test.
type step struct {
	Step     string `json:"step"`
	URL      string `json:"url,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Refresh  bool   `json:"refresh,omitempty"`
	Rotated  bool   `json:"rotated,omitempty"`
	Result   any    `json:"result,omitempty"`
	Message  string `json:"message,omitempty"`
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: mcpgoclient MCP_URL REDIRECT_URL TOOL ARGUMENTS_JSON")
		os.Exit(2)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(os.Args[4]), &args); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgoclient: ARGUMENTS_JSON:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := &driver{out: json.NewEncoder(os.Stdout), in: bufio.NewScanner(os.Stdin), tool: os.Args[3], args: args}
	if err := d.run(ctx, os.Args[1], os.Args[2]); err != nil {
		d.say(step{Step: "error", Message: err.Error()})
		os.Exit(1)
	}
	d.say(step{Step: "done"})
}

// driver runs the steps and talks to the test.
type driver struct {
	out   *json.Encoder
	in    *bufio.Scanner
	store *client.MemoryTokenStore
	tool  string
	args  map[string]any
}

func (d *driver) say(s step) {
	if err := d.out.Encode(s); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgoclient:", err)
		os.Exit(1)
	}
}

// line waits for the test's next line on stdin.
func (d *driver) line() (string, error) {
	if !d.in.Scan() {
		if err := d.in.Err(); err != nil {
			return "", fmt.Errorf("stdin: %w", err)
		}
		return "", errors.New("stdin ended before the test answered")
	}
	return strings.TrimSpace(d.in.Text()), nil
}

func (d *driver) run(ctx context.Context, serverURL, redirectURL string) error {
	d.store = client.NewMemoryTokenStore()
	c, err := client.NewOAuthStreamableHttpClient(serverURL, client.OAuthConfig{
		RedirectURI: redirectURL,
		TokenStore:  d.store,
		PKCEEnabled: true,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}

	// No token yet: the server's 401 names its metadata, and mcp-go asks for an authorization.
	_, err = c.Initialize(ctx, initRequest())
	if !client.IsOAuthAuthorizationRequiredError(err) {
		return fmt.Errorf("initialize without a token: want an authorization request, got %w", err)
	}
	if err := d.authorize(ctx, client.GetOAuthHandler(err)); err != nil {
		return err
	}
	if _, err := c.Initialize(ctx, initRequest()); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	res, err := d.call(ctx, c)
	if err != nil {
		return err
	}
	d.say(step{Step: "call", Result: res})

	// The access token expires: mcp-go must refresh it before the next request.
	before, err := d.expire(ctx)
	if err != nil {
		return err
	}
	res, err = d.call(ctx, c)
	if err != nil {
		return fmt.Errorf("after the access token expired: %w", err)
	}
	after, err := d.store.GetToken(ctx)
	if err != nil {
		return err
	}
	d.say(step{Step: "refreshed", Rotated: after.RefreshToken != before.RefreshToken && after.AccessToken != before.AccessToken, Scope: after.Scope, Result: res})

	// The owner revokes the grant; once the access token expires the refresh is refused, and
	// mcp-go asks for an authorization again rather than calling.
	d.say(step{Step: "revoke"})
	if _, err := d.line(); err != nil {
		return err
	}
	if _, err := d.expire(ctx); err != nil {
		return err
	}
	_, err = d.call(ctx, c)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		return fmt.Errorf("a call after the grant was revoked: want an authorization request, got %w", err)
	}
	d.say(step{Step: "refused", Message: err.Error()})
	return nil
}

// authorize registers the client if it has no id, sends the owner to the authorization URL
// (the test signs in and sends the code back) and exchanges the code.
func (d *driver) authorize(ctx context.Context, h *transport.OAuthHandler) error {
	if h.GetClientID() == "" {
		if err := h.RegisterClient(ctx, "mcp-go E2E"); err != nil {
			return fmt.Errorf("register: %w", err)
		}
		d.say(step{Step: "registered", ClientID: h.GetClientID()})
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := client.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("authorization URL: %w", err)
	}
	d.say(step{Step: "authorize", URL: authURL})
	code, err := d.line()
	if err != nil {
		return err
	}
	if err := h.ProcessAuthorizationResponse(ctx, code, state, verifier); err != nil {
		return fmt.Errorf("code exchange: %w", err)
	}
	tok, err := d.store.GetToken(ctx)
	if err != nil {
		return err
	}
	d.say(step{Step: "tokens", Scope: tok.Scope, Refresh: tok.RefreshToken != ""})
	return nil
}

// expire marks the stored access token expired, as ten minutes would, and returns it as it was.
func (d *driver) expire(ctx context.Context) (client.Token, error) {
	tok, err := d.store.GetToken(ctx)
	if err != nil {
		return client.Token{}, fmt.Errorf("stored token: %w", err)
	}
	before := *tok
	expired := *tok
	expired.ExpiresAt = time.Now().Add(-time.Second)
	return before, d.store.SaveToken(ctx, &expired)
}

// call runs the tool and returns its structured result.
func (d *driver) call(ctx context.Context, c *client.Client) (any, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = d.tool
	req.Params.Arguments = d.args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New("tool error: " + fmt.Sprint(res.Content))
	}
	return res.StructuredContent, nil
}

func initRequest() mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-e2e", Version: "0"}
	return req
}
