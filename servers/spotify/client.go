package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

const defaultAPIURL = "https://api.spotify.com/v1/"

// client is the one Spotify Web API client the tools use: typed requests (webapi.go) through
// one do over the authorized, retrying HTTP client, with one error shape.
//
// It replaced github.com/zmb3/spotify/v2: v2.4.3, the latest tag (2024-11-11), predates the
// February 2026 API, so half of its methods hit removed paths (playlists' /tracks,
// /users/{id}/playlists, me/tracks writes, batch gets) and its types miss the renamed fields;
// the calls that still worked are a handful of GETs and PUTs this file's do already makes
// (README "Dependencies").
type client struct {
	src  *oauth.Source
	http *http.Client
	api  string // ends in "/"
}

func newClient(s *kit.Server, st *settings) (*client, error) {
	switch {
	case st.concurrent < 1 || st.concurrent > 20:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 20", st.concurrent)
	case !isHTTP(st.apiURL):
		return nil, fmt.Errorf("--spotify-api-url %q: give an http(s) URL", st.apiURL)
	case !isHTTP(st.accountsURL):
		return nil, fmt.Errorf("--spotify-accounts-url %q: give an http(s) URL", st.accountsURL)
	}
	cfg := s.Config()
	p := oauth.Spotify.WithAccountsURL(st.accountsURL)
	files := p.Locate(cfg.Name, oauth.Files{Token: st.tokenFile, Client: st.clientFile}, cfg.StateDir, cfg.Getenv)
	fix := "spotify auth login"
	if cfg.ReadOnly {
		fix += " --read-only"
	}
	// A --read-only server is content with a read-only grant; a full one needs the full scopes.
	// The token file is looked at once per change of its folder, which `spotify auth login` (another
	// process) writes; a folder that cannot be watched (not made yet) is looked at on every call.
	watch, err := oauth.WatchDir(filepath.Dir(files.Token))
	if err != nil {
		s.Logger().Debug("token folder not watched; the token file is looked at on every call", "error", err.Error())
	} else {
		s.OnClose(func() { _ = watch.Close() })
	}
	src := oauth.NewSource(p, oauth.SourceOptions{Files: files, Fix: fix, Service: cfg.Name, ReadOnly: cfg.ReadOnly, Watch: watch})
	if err := src.ClientErr(); err != nil {
		s.Logger().Warn("Spotify client not loaded; tools will say so", "error", err.Error())
	}
	// The owner's console signs the account in and out through the admin surface; the token
	// stays in this server's state folder, written the way `spotify auth login` writes it.
	signIns := oauth.NewSignIns(p, cfg.Name, files, st.apiURL, nil).Handler()
	s.HandleAdmin(admin.PathAccounts, signIns)
	s.HandleAdmin(admin.PathAccounts+"/", signIns)
	hc := src.HTTPClient(st.concurrent, nil)
	hc.Transport = s.Metrics().Upstream("spotify", hc.Transport) // mcp_upstream_* metrics
	api := strings.TrimSuffix(st.apiURL, "/") + "/"
	c := &client{src: src, http: hc, api: api}
	s.AddHealthCheck("spotify token", c.health)
	return c, nil
}

func isHTTP(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// health: missing or expiring warn (tools say how to sign in), revoked fails.
func (c *client) health(context.Context) health.Result {
	st := c.src.Status()
	switch st.State {
	case oauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case oauth.StateMissing, oauth.StateExpiring:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// apiError is a Web API error answer.
type apiError struct {
	Status  int
	Message string
	Reason  string // the player's reason: NO_ACTIVE_DEVICE, PREMIUM_REQUIRED, …
}

func (e *apiError) Error() string { return fmt.Sprintf("Spotify answered %d: %s", e.Status, e.Message) }

// do sends one request to the Web API: body (when not nil) as JSON, the answer decoded into out.
func (c *client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	u := c.api + strings.TrimPrefix(path, "/")
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return decodeError(resp.StatusCode, data)
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("unexpected answer from Spotify to %s %s: %w", method, path, err)
	}
	return nil
}

func decodeError(status int, data []byte) error {
	var e struct {
		Error struct {
			Status  int    `json:"status"`
			Message string `json:"message"`
			Reason  string `json:"reason"`
		} `json:"error"`
	}
	ae := &apiError{Status: status}
	if json.Unmarshal(data, &e) == nil {
		ae.Message, ae.Reason = e.Error.Message, e.Error.Reason
	}
	if ae.Message == "" {
		ae.Message = http.StatusText(status)
	}
	return ae
}

// fail turns an error from a Spotify call into the tool error the model sees; what names the
// object for "not found".
func (c *client) fail(ctx context.Context, err error, what string) error {
	var ke *kit.Error
	var se *oauth.SignInError
	if errors.As(err, &ke) {
		return err
	}
	if errors.As(err, &se) {
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return kit.Errorf(kit.CodeTimeout, "Spotify did not answer in time; try again")
	}
	var status int
	var msg, reason string
	var ae *apiError
	if !errors.As(err, &ae) {
		return kit.Errorf(kit.CodeUnavailable, "Spotify call failed: %v", err)
	}
	status, msg, reason = ae.Status, ae.Message, ae.Reason
	lower := strings.ToLower(msg)
	switch {
	case reason == "PREMIUM_REQUIRED" || strings.Contains(lower, "premium required"):
		return kit.Errorf(kit.CodeUnavailable, "Spotify Premium is required to control playback; this account cannot play, pause or skip through the Web API")
	case noActiveDevice(err):
		return kit.Errorf(kit.CodeUnavailable, "no active Spotify device. %s", c.deviceHint(ctx))
	case status == http.StatusUnauthorized:
		return kit.Errorf(kit.CodeUnavailable, "Spotify refused the sign-in (%s): run `spotify auth login`", msg)
	case status == http.StatusForbidden && strings.Contains(lower, "scope"):
		return kit.Errorf(kit.CodeUnavailable, "the Spotify sign-in lacks a permission for this: run `spotify auth login` again")
	case status == http.StatusForbidden:
		return kit.Errorf(kit.CodeUnavailable, "Spotify refused %s: %s (playlists can only be read or changed by their owner or collaborators)", what, msg)
	case status == http.StatusNotFound:
		return kit.Errorf(kit.CodeNotFound, "%s not found", what)
	case status == http.StatusTooManyRequests:
		return kit.Errorf(kit.CodeLimit, "Spotify is rate-limiting this app (still after waiting as it asked): try again in a minute")
	case status == http.StatusBadRequest:
		return kit.Errorf(kit.CodeInvalidInput, "Spotify refused the request: %s", msg)
	case status >= 500:
		return kit.Errorf(kit.CodeUnavailable, "Spotify failed (%d %s) after retries; try again later", status, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "Spotify answered %d: %s", status, msg)
}

// noActiveDevice reports whether Spotify refused a player command because no device is active.
func noActiveDevice(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && (ae.Reason == "NO_ACTIVE_DEVICE" ||
		ae.Status == http.StatusNotFound && strings.Contains(strings.ToLower(ae.Message), "no active device"))
}

// deviceHint lists the devices and says how to choose one.
func (c *client) deviceHint(ctx context.Context) string {
	devs, err := c.devices(ctx)
	if err != nil {
		return "Open Spotify on a phone, computer or speaker, then call list_devices."
	}
	if len(devs) == 0 {
		return "No devices are online: open Spotify on a phone, computer or speaker (or wake the speaker), then try again."
	}
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = fmt.Sprintf("%q (%s)", d.Name, d.Type)
		if d.IsRestricted {
			names[i] = fmt.Sprintf("%q (%s, restricted: takes no commands)", d.Name, d.Type)
		}
	}
	return "Devices available: " + strings.Join(names, ", ") + ". Pass device (one of these names) to pick one, or call transfer_playback."
}

// resolveDevice turns a device name (case-insensitive, or a unique part of it) or id into an
// id; "" means the active device.
func (c *client) resolveDevice(ctx context.Context, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", nil
	}
	devs, err := c.devices(ctx)
	if err != nil {
		return "", c.fail(ctx, err, "the device list")
	}
	var matches []apiDevice
	for _, d := range devs {
		if d.ID == name || strings.EqualFold(d.Name, name) {
			return d.ID, nil
		}
		if strings.Contains(strings.ToLower(d.Name), strings.ToLower(name)) {
			matches = append(matches, d)
		}
	}
	if len(matches) == 1 {
		return matches[0].ID, nil
	}
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = fmt.Sprintf("%q", d.Name)
	}
	if len(devs) == 0 {
		return "", kit.Errorf(kit.CodeNotFound, "no Spotify device named %q: no devices are online; open Spotify on one first", name)
	}
	return "", kit.Errorf(kit.CodeNotFound, "no single Spotify device matches %q; devices: %s", name, strings.Join(names, ", "))
}

// parseKind parses a URI, link or bare id of one kind of object (album, artist, playlist) and
// returns its URI and id; a URI of another kind is refused, naming both kinds.
func parseKind(s, kind string) (uri, id string, err error) {
	uri, k, id, err := parseURI(s, kind)
	if err != nil {
		return "", "", err
	}
	if k != kind {
		return "", "", kit.Errorf(kit.CodeInvalidInput, "%s is %s, not %s: give %s URI, link or id", s, withArticle(k), withArticle(kind), withArticle(kind))
	}
	return uri, id, nil
}

// withArticle is "a track", "an album".
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// parseURI accepts a spotify: URI, an open.spotify.com URL or (with kind) a bare id, and returns
// the canonical URI, its kind and id.
func parseURI(s, kind string) (uri, k, id string, err error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "spotify:"):
		parts := strings.Split(s, ":")
		if len(parts) == 3 && parts[2] != "" {
			return s, parts[1], parts[2], nil
		}
		if len(parts) == 5 && parts[1] == "user" && parts[3] == "playlist" {
			return "spotify:playlist:" + parts[4], "playlist", parts[4], nil
		}
	case strings.Contains(s, "open.spotify.com/"):
		u, perr := url.Parse(s)
		if perr == nil {
			segs := strings.Split(strings.Trim(u.Path, "/"), "/")
			if len(segs) >= 2 && strings.HasPrefix(segs[0], "intl-") {
				segs = segs[1:]
			}
			if len(segs) >= 2 && segs[len(segs)-1] != "" {
				k, id = segs[len(segs)-2], segs[len(segs)-1]
				return "spotify:" + k + ":" + id, k, id, nil
			}
		}
	case s != "" && kind != "" && !strings.ContainsAny(s, " :/"):
		return "spotify:" + kind + ":" + s, kind, s, nil
	}
	return "", "", "", kit.Errorf(kit.CodeInvalidInput, "%q is not a Spotify URI, open.spotify.com link or id (e.g. spotify:track:4uLU6hMCjMI75M1A2tKUQC)", s)
}
