package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/metrics"
	"github.com/jck411/mcp-servers/shared/resource"
)

// maxDoorServers bounds --front-door-servers (and so the scopes one consent can carry).
const maxDoorServers = 32

// doorWriteLimit is how long an answer through the front door may take: the longest tool call
// (under 90 s) and a little. The auth server's own 30 s write timeout is for its pages.
const doorWriteLimit = 100 * time.Second

// doorInstructions is what the front door tells a client at initialize.
const doorInstructions = "One endpoint for the fleet's servers: every tool keeps its own name and runs on its own server."

// doorServer is one server the front door routes to.
type doorServer struct {
	Name string
	Base string // its address as this host reaches it, e.g. http://127.0.0.1:9003
}

// parseDoorServers reads --front-door-servers: NAME=URL pairs, each NAME one of --resources,
// each URL the server's base address as this host reaches it.
func parseDoorServers(s string, f *fleet) ([]doorServer, error) {
	var out []doorServer
	for _, item := range config.SplitList(s) {
		name, raw, ok := strings.Cut(item, "=")
		u, err := url.Parse(raw)
		if !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("invalid --front-door-servers entry %q: give NAME=URL with the server's base address, e.g. calculator=http://127.0.0.1:9003", item)
		}
		if _, known := f.byName[name]; !known {
			return nil, fmt.Errorf("invalid --front-door-servers: %s is not in --resources, so no token can be issued for it", name)
		}
		if slices.ContainsFunc(out, func(d doorServer) bool { return d.Name == name }) {
			return nil, fmt.Errorf("invalid --front-door-servers: %s is named twice", name)
		}
		out = append(out, doorServer{Name: name, Base: strings.TrimSuffix(raw, "/")})
	}
	if len(out) > maxDoorServers {
		return nil, fmt.Errorf("invalid --front-door-servers: %d servers, at most %d", len(out), maxDoorServers)
	}
	slices.SortFunc(out, func(a, b doorServer) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// door is the fleet's front door: one MCP endpoint (ISSUER/mcp) that lists the tools of every
// server the caller's grant names and routes each call to its server, with a token of that
// server's own audience minted here for the call.
type door struct {
	issuer  string
	servers []doorServer
	store   *storage
	fleet   *fleet
	lists   *toolLists
	log     *slog.Logger
	metrics *metrics.Registry
	now     func() time.Time
}

// doorTarget is what one request reaches: the servers and the path on each of them.
type doorTarget struct {
	path     string // the request's path on the door: /mcp, /mcp/x/NAME, …
	name     string // the server or toolset it is narrowed to, if any
	readOnly bool
}

// parseDoorPath reads /mcp, /mcp/readonly, /mcp/x/NAME and /mcp/x/NAME/readonly.
func parseDoorPath(p string) (doorTarget, bool) {
	p = strings.TrimSuffix(p, "/")
	rest, ok := strings.CutPrefix(p, "/mcp")
	if !ok || (rest != "" && !narrowed.MatchString(rest)) {
		return doorTarget{}, false
	}
	t := doorTarget{path: p}
	rest, ro := strings.CutSuffix(p, "/readonly")
	t.readOnly = ro
	t.name = strings.TrimPrefix(strings.TrimPrefix(rest, "/mcp"), "/x/")
	return t, true
}

// downstream is one server's part of a request: the path on it and whether write is granted.
type downstream struct {
	server doorServer
	path   string
	write  bool
}

// ServeHTTP authenticates the caller, gathers the tools of the servers its grant names and
// answers the MCP request with them.
func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t, ok := parseDoorPath(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) && o != d.issuer {
		d.metrics.Refused("origin")
		http.Error(w, "Forbidden: origin "+o+" may not call the front door", http.StatusForbidden)
		return
	}
	raw, ok := guard.BearerToken(r)
	if !ok {
		d.challenge(w, t, http.StatusUnauthorized, "", "")
		return
	}
	g, err := d.verify(r.Context(), raw, d.issuer+t.path)
	if err != nil {
		d.metrics.Refused("token")
		d.challenge(w, t, http.StatusUnauthorized, "invalid_token", err.Error())
		return
	}
	downs := d.downstreams(g, t)
	if len(downs) == 0 {
		d.challenge(w, t, http.StatusForbidden, "insufficient_scope", "the token names no server this URL reaches")
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(doorWriteLimit))
	srv, found := d.server(r.Context(), g, downs)
	if t.name != "" && !slices.ContainsFunc(d.servers, func(s doorServer) bool { return s.Name == t.name }) && !found {
		http.Error(w, fmt.Sprintf("Not Found: no server of the front door is named %s or has a toolset %s", t.name, t.name), http.StatusNotFound)
		return
	}
	ctx := guard.WithCaller(r.Context(), guard.Caller{Label: "oauth:" + g.client})
	mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true, // the Origin check above; the Host is the tunnel's public name
		// A 2026-07-28 client cancels by closing its request: the call to the server ends with it.
		PropagateRequestCancellation: true,
		Logger:                       d.log,
	}).ServeHTTP(w, r.WithContext(ctx))
}

// downstreams lists the servers the grant names that the request's URL reaches, each with the
// path to call on it: its /mcp, or the toolset the URL names, read-only when the URL or the
// grant is.
func (d *door) downstreams(g *doorGrant, t doorTarget) []downstream {
	var out []downstream
	for _, s := range d.servers {
		read, write := slices.Contains(g.scopes, s.Name+":read"), slices.Contains(g.scopes, s.Name+":write")
		if !read && !write {
			continue
		}
		path := "/mcp"
		switch {
		case t.name == s.Name:
		case t.name != "" && slices.ContainsFunc(d.servers, func(o doorServer) bool { return o.Name == t.name }):
			continue // narrowed to another server
		case t.name != "":
			path += "/x/" + t.name // a toolset: the servers that have it answer
		}
		write = write && !t.readOnly && !g.readOnly
		if !write {
			path += "/readonly"
		}
		out = append(out, downstream{server: s, path: path, write: write})
	}
	return out
}

// server builds the MCP server of one request: the tools of each downstream, each routed to
// its server. found reports whether any downstream answered with a list.
func (d *door) server(ctx context.Context, g *doorGrant, downs []downstream) (*mcp.Server, bool) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "front-door", Title: "mcp-servers front door", Version: buildinfo.String()},
		&mcp.ServerOptions{Instructions: doorInstructions})
	lists := d.lists.all(ctx, downs, func(ctx context.Context, ds downstream) (*mcp.ClientSession, error) {
		return d.connect(ctx, g, ds, nil)
	})
	found := false
	seen := map[string]string{}
	for i, ds := range downs {
		l := lists[i]
		if l.missing {
			continue
		}
		found = true
		if l.err != nil { // its last list, if recent, stays: a call then says the server is down
			d.log.Warn("front door: a server's tools could not be listed", "upstream", ds.server.Name, "kept", len(l.tools), "error", l.err.Error())
		}
		for _, tool := range l.tools {
			if other, dup := seen[tool.Name]; dup {
				d.log.Warn("front door: two servers offer one tool name; the first is kept", "tool", tool.Name, "kept", other, "dropped", ds.server.Name)
				continue
			}
			seen[tool.Name] = ds.server.Name
			d.metrics.DeclareTool(tool.Name)
			srv.AddTool(tool, d.forward(g, ds))
		}
	}
	return srv, found
}

// forward is the handler of one tool: it calls the same tool on its server with a token for
// that server alone, passes progress back and the result through unchanged. An unreachable
// server is a tool error that names it.
func (d *door) forward(g *doorGrant, ds downstream) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := d.now()
		name := req.Params.Name
		progress := req.Params.GetProgressToken()
		var onProgress func(context.Context, *mcp.ProgressNotificationClientRequest)
		if progress != nil {
			onProgress = func(ctx context.Context, p *mcp.ProgressNotificationClientRequest) {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: progress,
					Progress: p.Params.Progress, Total: p.Params.Total, Message: p.Params.Message})
			}
		}
		res, err := d.call(ctx, g, ds, req, onProgress)
		outcome := "ok"
		switch {
		case err != nil && ctx.Err() != nil:
			outcome = "cancelled"
		case err != nil:
			outcome = "error"
			var unreachable *unreachableError
			if errors.As(err, &unreachable) {
				res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
		case res.IsError:
			outcome = "error"
		}
		dur := d.now().Sub(start)
		d.metrics.ObserveCall(name, outcome, dur)
		d.log.Info("tool call", "via", "front door", "upstream", ds.server.Name, "tool", name, "caller", "oauth:"+g.client,
			"duration_ms", float64(dur.Microseconds())/1000, "outcome", outcome)
		return res, err
	}
}

// call runs one tool call on its server.
func (d *door) call(ctx context.Context, g *doorGrant, ds downstream, req *mcp.CallToolRequest, onProgress func(context.Context, *mcp.ProgressNotificationClientRequest)) (*mcp.CallToolResult, error) {
	sess, err := d.connect(ctx, g, ds, onProgress)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	params := &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if len(req.Params.Arguments) == 0 {
		params.Arguments = map[string]any{}
	}
	if tok := req.Params.GetProgressToken(); tok != nil {
		params.SetProgressToken(tok)
	}
	res, err := sess.CallTool(ctx, params)
	if err != nil && ctx.Err() == nil && !isRPCError(err) {
		return nil, &unreachableError{server: ds.server.Name, err: err}
	}
	return res, err
}

// unreachableError is a server the front door could not talk to.
type unreachableError struct {
	server string
	err    error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("the %s server did not answer the front door: %v (its tools come back when it does; `deploy.sh --status` shows it)", e.server, e.err)
}

func (e *unreachableError) Unwrap() error { return e.err }

// challenge answers 401 or 403 with the door's Protected Resource Metadata named, as a server
// of the fleet does.
func (d *door) challenge(w http.ResponseWriter, t doorTarget, status int, code, msg string) {
	h := fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, d.issuer+resource.MetadataPath+t.path, strings.Join(d.scopes(t), " "))
	if code != "" {
		h += fmt.Sprintf(`, error=%q, error_description=%q`, code, strings.ReplaceAll(msg, `"`, "'"))
	}
	w.Header().Set("WWW-Authenticate", h)
	text := "Unauthorized: sign in to the front door (OAuth)"
	if msg != "" {
		text = http.StatusText(status) + ": " + msg
	}
	http.Error(w, text, status)
}

// scopes are the scopes a URL of the door asks for: read (and write, unless read-only) of
// each server it reaches.
func (d *door) scopes(t doorTarget) []string {
	var out []string
	for _, s := range d.servers {
		if t.name != "" && t.name != s.Name && slices.ContainsFunc(d.servers, func(o doorServer) bool { return o.Name == t.name }) {
			continue
		}
		out = append(out, s.Name+":read")
		if !t.readOnly {
			out = append(out, s.Name+":write")
		}
	}
	return out
}

// metadataHandler serves the door's Protected Resource Metadata (RFC 9728) at
// /.well-known/oauth-protected-resource/mcp and the narrowed URLs' beside it.
func (d *door) metadataHandler() http.Handler {
	return resource.PublicMetadata(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := parseDoorPath(strings.TrimPrefix(r.URL.Path, resource.MetadataPath))
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"resource":                 d.issuer + t.path,
			"authorization_servers":    []string{d.issuer},
			"scopes_supported":         d.scopes(t),
			"bearer_methods_supported": []string{"header"},
			"resource_name":            "mcp-servers front door",
		})
	}))
}
