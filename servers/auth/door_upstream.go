package main

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jck411/mcp-servers/shared/buildinfo"
)

// How the front door keeps the servers' tool lists: a list is fresh for listFresh, so a tool
// switched off on its server leaves the door's list within that; a server that stops answering
// keeps its last list for listKeep, so a call to one of its tools says which server is down
// rather than that the tool is unknown.
const (
	listFresh   = 2 * time.Second
	listKeep    = 5 * time.Minute
	listTimeout = 10 * time.Second
)

// errNotHere is a server that has no such toolset (its narrowed URL answers 404).
var errNotHere = errors.New("no such toolset on this server")

// toolList is one server's tools as the front door last saw them.
type toolList struct {
	tools   []*mcp.Tool
	err     error // why the last listing failed, if it did (tools may then be the last good list)
	missing bool  // the server has no such toolset
}

type listEntry struct {
	toolList
	fetched time.Time // when this entry was made
	good    time.Time // when tools were last listed successfully
}

// toolLists caches the servers' tool lists, per server and path on it.
type toolLists struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]listEntry
}

func newToolLists(now func() time.Time) *toolLists {
	return &toolLists{now: now, m: map[string]listEntry{}}
}

// all returns the lists of every downstream, in their order, listing those not fresh in
// parallel with connect.
func (l *toolLists) all(ctx context.Context, downs []downstream, connect func(context.Context, downstream) (*mcp.ClientSession, error)) []toolList {
	out := make([]toolList, len(downs))
	var wg sync.WaitGroup
	for i, ds := range downs {
		key := ds.server.Name + " " + ds.path
		l.mu.Lock()
		e, ok := l.m[key]
		l.mu.Unlock()
		if ok && l.now().Sub(e.fetched) < listFresh {
			out[i] = e.toolList
			continue
		}
		wg.Go(func() {
			tools, err := fetchTools(ctx, ds, connect)
			now := l.now()
			l.mu.Lock()
			defer l.mu.Unlock()
			prev := l.m[key]
			n := listEntry{fetched: now, good: prev.good}
			switch {
			case errors.Is(err, errNotHere):
				n.missing = true
			case err != nil:
				n.err = err
				if now.Sub(prev.good) < listKeep {
					n.tools = prev.tools
				}
			default:
				n.tools, n.good = tools, now
			}
			l.m[key] = n
			out[i] = n.toolList
		})
	}
	wg.Wait()
	return out
}

// fetchTools lists one server's tools.
func fetchTools(ctx context.Context, ds downstream, connect func(context.Context, downstream) (*mcp.ClientSession, error)) ([]*mcp.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	sess, err := connect(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// connect opens a client session to a downstream with a token minted for that server alone.
func (d *door) connect(ctx context.Context, g *doorGrant, ds downstream, onProgress func(context.Context, *mcp.ProgressNotificationClientRequest)) (*mcp.ClientSession, error) {
	tok, err := d.mint(ctx, g, ds)
	if err != nil {
		return nil, err
	}
	rt := &bearer{token: tok, next: http.DefaultTransport}
	client := mcp.NewClient(&mcp.Implementation{Name: "front-door", Version: buildinfo.String()},
		&mcp.ClientOptions{ProgressNotificationHandler: onProgress})
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ds.server.Base + ds.path,
		HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		if rt.notFound.Load() {
			return nil, errNotHere
		}
		return nil, &unreachableError{server: ds.server.Name, err: err}
	}
	return sess, nil
}

// bearer adds the minted token to each request and notes a 404 (a toolset the server lacks).
type bearer struct {
	token    string
	next     http.RoundTripper
	notFound atomic.Bool
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusNotFound {
		b.notFound.Store(true)
	}
	return resp, err
}

// isRPCError reports whether err is the server's own JSON-RPC error answer (an unknown tool,
// bad arguments), which passes through as it is.
func isRPCError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}
