package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/jck411/mcp-servers/shared/netguard"
)

// parseCIMD reads a Client ID Metadata Document fetched from id: its client_id must equal id.
func parseCIMD(id string, body []byte) (*clientMetadata, error) {
	var doc struct {
		oauthex.ClientRegistrationMetadata
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the client metadata document is not JSON: %w", err)
	}
	if doc.ClientID != id {
		return nil, fmt.Errorf("the document's client_id %q is not its own URL %q", doc.ClientID, id)
	}
	return checkMetadata(&doc.ClientRegistrationMetadata, true)
}

// isCIMDClientID reports whether id is a client identifier URL: https with a path.
func isCIMDClientID(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == "" && u.User == nil
}

// newCIMDClient returns the HTTP client that fetches metadata documents: 5 s overall, no
// redirects, no proxy from the environment, and only global unicast addresses. The browser's
// network guard decides which (shared/netguard: private, loopback, link-local, CGNAT,
// benchmarking, reserved, multicast, site-local, Teredo, IPv4-compatible IPv6, and IPv4-mapped,
// NAT64 and 6to4 forms of any of those): it checks every address the dialer is about to connect
// to, after DNS, so a rebinding name cannot reach the host, and a refused address fails at once
// rather than after a connect timeout.
func newCIMDClient() *http.Client {
	tr := &http.Transport{
		DialContext:           (&netguard.Policy{}).DialContext, // the zero policy: global unicast only
		TLSHandshakeTimeout:   cimdTimeout,
		ResponseHeaderTimeout: cimdTimeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   cimdTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the client metadata document must be served without redirects")
		},
	}
}

// fetchCIMD fetches, checks and stores the metadata document at id. Anyone can make the server
// fetch one (an unauthenticated /authorize names it), so a failure to reach it is told only as
// that: what the name resolved to, which resolver said so, why a dial or handshake failed, go
// to the log, not to the caller.
func (cs *clientStore) fetchCIMD(ctx context.Context, id string) (*client, error) {
	unreachable := refuseClient("the client metadata document %s could not be fetched from a public address", id)
	ctx, cancel := context.WithTimeout(ctx, cimdTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, refuseClient("client id %q is not a URL that can be fetched", id)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cs.fetch.Do(req)
	if err != nil {
		cs.log.Info("client metadata document not fetched", "client", id, "error", err.Error())
		return nil, unreachable
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, refuseClient("the client metadata document %s could not be fetched: its server answered HTTP %d", id, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		cs.log.Info("client metadata document not read", "client", id, "error", err.Error())
		return nil, unreachable
	}
	if len(body) > maxMetadataBytes {
		return nil, refuseClient("the client metadata document %s is larger than %d bytes", id, maxMetadataBytes)
	}
	m, err := parseCIMD(id, body)
	if err != nil {
		return nil, &clientError{err.Error()}
	}
	if m.Name == "" {
		m.Name = id
	}
	now := cs.db.now().Unix()
	_, err = cs.db.sql.ExecContext(ctx, `INSERT INTO clients (id, kind, name, redirect_uris, grant_types, created, fetched) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types, fetched = excluded.fetched WHERE revoked = 0`,
		id, kindCIMD, m.Name, jsonList(m.RedirectURIs), jsonList(m.GrantTypes), now, now)
	if err != nil {
		return nil, cs.internal(id, fmt.Errorf("store client: %w", err))
	}
	if err := cs.evictUnused(ctx); err != nil {
		return nil, cs.internal(id, err)
	}
	c, err := cs.load(ctx, id)
	if err != nil && !errors.As(err, new(*clientError)) {
		return nil, cs.internal(id, err)
	}
	return c, err
}
