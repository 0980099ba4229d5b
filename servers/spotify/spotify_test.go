package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/oauth"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type env struct {
	fake  *fakeSpotify
	h     *mcptest.Harness
	cs    *mcp.ClientSession
	token string
}

// start runs the server against the fake; signedIn writes a token whose access token has expired,
// so the first call refreshes.
func start(t *testing.T, signedIn bool) *env {
	t.Helper()
	return startGranted(t, signedIn, oauth.Spotify.Services["spotify"].Full)
}

// startGranted is start with a sign-in that granted scopes, and more server flags.
func startGranted(t *testing.T, signedIn bool, scopes []string, flags ...string) *env {
	t.Helper()
	f := newFake(t)
	f.granted = scopes
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // the token folder must be private; TempDir makes it 0755
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token.json")
	client := filepath.Join(dir, "client.json")
	if err := os.WriteFile(client, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if signedIn {
		rec := &oauth.Record{RefreshToken: "refresh-0", AccessToken: "stale", Expiry: time.Now().Add(-time.Hour), SignedIn: time.Now(), Account: "Me (me)", Scopes: scopes}
		if err := oauth.SaveRecord(token, rec); err != nil {
			t.Fatal(err)
		}
	}
	h := mcptest.Start(t, spec(), append([]string{"--spotify-api-url", f.srv.URL + "/v1", "--spotify-accounts-url", f.srv.URL,
		"--spotify-token-file", token, "--spotify-client-file", client, "--state-dir", dir}, flags...)...)
	return &env{fake: f, h: h, cs: h.Connect(t, ""), token: token}
}

// TestReadOnlyGrant: a sign-in with read scopes alone serves a --read-only server, and a full
// server refuses it before calling Spotify, naming the login that fixes it.
func TestReadOnlyGrant(t *testing.T) {
	t.Parallel()
	read := oauth.Spotify.Services["spotify"].ReadOnly
	full := startGranted(t, true, read)
	if msg := mcptest.CallError(t, full.cs, "get_playback", map[string]any{}); !strings.Contains(msg, "does not grant spotify access: run `spotify auth login`") {
		t.Errorf("full server, read-only grant: %q", msg)
	}
	if len(full.fake.log()) != 0 {
		t.Errorf("Spotify was called: %v", full.fake.log())
	}
	ro := startGranted(t, true, read, "--read-only")
	mcptest.Call(t, ro.cs, "get_playback", map[string]any{})
}

func TestNoSignIn(t *testing.T) {
	t.Parallel()
	e := start(t, false)
	msg := mcptest.CallError(t, e.cs, "get_playback", map[string]any{})
	if !strings.Contains(msg, "run `spotify auth login`") {
		t.Errorf("message = %q", msg)
	}
	r := e.h.Server.Health(t.Context()).Checks["spotify token"]
	if r.Status != health.Warn || !strings.Contains(r.Detail, "spotify auth login") {
		t.Errorf("health = %+v", r)
	}
	if len(e.fake.log()) != 0 {
		t.Errorf("Spotify was called: %v", e.fake.log())
	}
	// Nothing reached Spotify, so no upstream call is counted, not even as an error.
	if m := scrapeMetrics(t, e); !strings.Contains(m, `mcp_upstream_calls_total{service="spotify",status="error"} 0`) {
		t.Errorf("/metrics counts a call that never left:\n%s", m)
	}
}

func TestRefreshRotationPersisted(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var out playbackOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playback", map[string]any{}), &out)
	if !out.Playing || out.Item == nil || out.Item.Name != "Paranoid Android" || out.Device.Name != "Kitchen speaker" || out.ProgressMS != 65000 || !out.Shuffle || out.Repeat != "context" {
		t.Fatalf("playback = %+v", out)
	}
	rec, err := oauth.ReadRecord(e.token)
	if err != nil {
		t.Fatal(err)
	}
	if rec.RefreshToken != "rotated-1" || rec.AccessToken != "access-1" {
		t.Errorf("persisted %+v", rec)
	}
	if tok := e.fake.called("POST /api/token"); !strings.Contains(tok, "refresh_token=refresh-0") || !strings.Contains(tok, "client_id=cid") {
		t.Errorf("token call = %q", tok)
	}
	if r := e.h.Server.Health(t.Context()).Checks["spotify token"]; r.Status != health.OK {
		t.Errorf("health = %+v", r)
	}
}

func TestInvalidGrant(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.revoked = true })
	for range 2 {
		msg := mcptest.CallError(t, e.cs, "list_devices", map[string]any{})
		if !strings.Contains(msg, "Spotify sign-in for Me (me) was revoked or expired (Spotify ends sign-ins six months after consent): run `spotify auth login`") {
			t.Fatalf("message = %q", msg)
		}
	}
	if n := strings.Count(strings.Join(e.fake.log(), "\n"), "/api/token"); n != 1 {
		t.Errorf("token endpoint called %d times, want 1", n)
	}
	if r := e.h.Server.Health(t.Context()).Checks["spotify token"]; r.Status != health.Fail {
		t.Errorf("health = %+v", r)
	}
}

func TestPlayByQueryOnDevice(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var out doneOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "play", map[string]any{"query": "Radiohead", "type": "artist", "device": "kitchen"}), &out)
	if out.URI != "spotify:artist:rh" {
		t.Fatalf("play = %+v", out)
	}
	call := e.fake.called("PUT /v1/me/player/play")
	if !strings.Contains(call, "device_id=dev-kitchen") || !strings.Contains(call, `"context_uri":"spotify:artist:rh"`) {
		t.Errorf("play call = %q", call)
	}
	mcptest.Decode(t, mcptest.Call(t, e.cs, "play", map[string]any{"uri": "https://open.spotify.com/track/t1?si=x"}), &out)
	if call := e.fake.log(); !strings.Contains(call[len(call)-1], `"uris":["spotify:track:t1"]`) {
		t.Errorf("play track call = %q", call[len(call)-1])
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"control_playback", map[string]any{"action": "pause"}, "PUT /v1/me/player/pause"},
		{"control_playback", map[string]any{"action": "next"}, "POST /v1/me/player/next"},
		{"control_playback", map[string]any{"action": "previous"}, "POST /v1/me/player/previous"},
		{"control_playback", map[string]any{"action": "seek", "position_ms": 30000}, "PUT /v1/me/player/seek?position_ms=30000"},
		{"control_playback", map[string]any{"action": "volume", "percent": 55, "device": "Pixel 9"}, "PUT /v1/me/player/volume?device_id=dev-phone&volume_percent=55"},
		{"control_playback", map[string]any{"action": "shuffle", "on": false}, "PUT /v1/me/player/shuffle?state=false"},
		{"control_playback", map[string]any{"action": "repeat", "mode": "track"}, "PUT /v1/me/player/repeat?state=track"},
		{"transfer_playback", map[string]any{"device": "Pixel 9", "play": true}, `PUT /v1/me/player {"device_ids":["dev-phone"],"play":true}`},
		{"add_to_queue", map[string]any{"uri": "spotify:episode:ep1"}, "POST /v1/me/player/queue?uri=spotify%3Aepisode%3Aep1"},
	} {
		mcptest.Call(t, e.cs, tc.tool, tc.args)
		if e.fake.called(tc.want) == "" {
			t.Errorf("%s: no call %q in %v", tc.tool, tc.want, e.fake.log())
		}
	}
	var q queueOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_queue", map[string]any{}), &q)
	if q.Current == nil || len(q.Queue) != 1 || q.Queue[0].Name != "Karma Police" {
		t.Errorf("queue = %+v", q)
	}
	if msg := mcptest.CallError(t, e.cs, "play", map[string]any{"uri": "x", "device": "garage"}); !strings.Contains(msg, `"Kitchen speaker"`) {
		t.Errorf("unknown device message = %q", msg)
	}
}

func TestNoActiveDeviceAndPremium(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.active = false })
	var pb playbackOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playback", map[string]any{}), &pb)
	if !strings.Contains(pb.Message, "Kitchen speaker") {
		t.Errorf("idle playback = %+v", pb)
	}
	msg := mcptest.CallError(t, e.cs, "control_playback", map[string]any{"action": "next"})
	if !strings.Contains(msg, "no active Spotify device") || !strings.Contains(msg, `"Kitchen speaker" (Speaker)`) || !strings.Contains(msg, "Pass device") {
		t.Errorf("no device message = %q", msg)
	}
	e.fake.set(func(f *fakeSpotify) { f.premium = false })
	if msg := mcptest.CallError(t, e.cs, "control_playback", map[string]any{"action": "next"}); !strings.Contains(msg, "Premium is required") {
		t.Errorf("premium message = %q", msg)
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.throttle = 1 })
	var out devicesOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "list_devices", map[string]any{}), &out)
	if len(out.Devices) != 2 || !out.Devices[0].Active || out.Devices[1].ID != "dev-phone" {
		t.Errorf("devices = %+v", out)
	}
	if n := strings.Count(strings.Join(e.fake.log(), "\n"), "GET /v1/me/player/devices"); n != 2 {
		t.Errorf("devices called %d times, want 2 (429 then success)", n)
	}
	// One Web API call, retried once for the rate limit, as /metrics counts it.
	metrics := scrapeMetrics(t, e)
	for _, want := range []string{
		`mcp_upstream_calls_total{service="spotify",status="2xx"} 1`,
		`mcp_upstream_retries_total{reason="rate_limited",service="spotify"} 1`,
		`mcp_upstream_rate_limit_waits_total{service="spotify"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
}

// scrapeMetrics reads the server's /metrics over HTTP, as a local Prometheus would.
func scrapeMetrics(t *testing.T, e *env) string {
	t.Helper()
	resp, err := http.Get(e.h.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

func TestSearchPagesPastTen(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var out searchOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "search_music", map[string]any{"query": "radiohead", "limit": 25}), &out)
	if len(out.Items) != 23 || out.Items[22].Name != "Song 22" || out.NextOffset != 0 {
		t.Fatalf("got %d items, next %d", len(out.Items), out.NextOffset)
	}
	out = searchOutput{}
	mcptest.Decode(t, mcptest.Call(t, e.cs, "search_music", map[string]any{"query": "radiohead", "limit": 12, "offset": 5}), &out)
	if len(out.Items) != 12 || out.Items[0].Name != "Song 5" || out.NextOffset != 17 {
		t.Fatalf("page 2: %d items from %q, next %d", len(out.Items), out.Items[0].Name, out.NextOffset)
	}
	for _, c := range e.fake.log() {
		if strings.Contains(c, "/search") && (strings.Contains(c, "limit=12") || strings.Contains(c, "limit=25")) {
			t.Errorf("asked Spotify for more than 10: %s", c)
		}
	}
	var it itemOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_item", map[string]any{"uri": "spotify:track:t1"}), &it)
	if it.Name != "Paranoid Android" || it.By != "Radiohead" || it.Album != "OK Computer" {
		t.Errorf("item = %+v", it)
	}
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_item", map[string]any{"uri": "spotify:playlist:pl1"}), &it)
	if it.Name != "Running" || it.Tracks != 3 || len(it.Items) != 1 {
		t.Errorf("playlist item = %+v", it)
	}
}

func TestPlaylistEditsUseItemsEndpoints(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var pls playlistsOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "list_playlists", map[string]any{}), &pls)
	if len(pls.Playlists) != 1 || pls.Playlists[0].Tracks != 3 {
		t.Fatalf("playlists = %+v", pls)
	}
	var created doneOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "create_playlist", map[string]any{"name": "Running 2"}), &created)
	if created.URI != "spotify:playlist:new1" || e.fake.called(`POST /v1/me/playlists {"name":"Running 2","public":false}`) == "" {
		t.Errorf("create = %+v, calls %v", created, e.fake.log())
	}
	mcptest.Call(t, e.cs, "edit_playlist_items", map[string]any{"action": "add", "playlist": "spotify:playlist:pl1", "uris": []string{"t4", "spotify:track:t5"}, "position": 1})
	mcptest.Call(t, e.cs, "edit_playlist_items", map[string]any{"action": "remove", "playlist": "https://open.spotify.com/playlist/pl1", "uris": []string{"spotify:track:t2"}})
	mcptest.Call(t, e.cs, "edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": 0, "insert_before": 4})
	var items tracksOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playlist_items", map[string]any{"playlist": "pl1", "limit": 2}), &items)
	// t1 t2 t3 → t1 t4 t5 t2 t3 → t1 t4 t5 t3 → t4 t5 t3 t1
	if items.Total != 4 || len(items.Items) != 2 || items.Items[0].URI != "spotify:track:t4" || items.Items[1].URI != "spotify:track:t5" || items.NextOffset != 2 {
		t.Fatalf("items = %+v ", items)
	}
	items = tracksOutput{}
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playlist_items", map[string]any{"playlist": "pl1", "limit": 2, "offset": 2}), &items)
	if len(items.Items) != 2 || items.Items[1].URI != "spotify:track:t1" || items.NextOffset != 0 {
		t.Fatalf("page 2 = %+v", items)
	}
	for _, c := range e.fake.log() {
		if strings.Contains(c, "/tracks") && strings.Contains(c, "/playlists/") {
			t.Errorf("used the removed /tracks endpoint: %s", c)
		}
	}
}

func TestParseURI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, kind, want string }{
		{"spotify:track:abc", "", "spotify:track:abc"},
		{"https://open.spotify.com/intl-de/album/xyz?si=1", "", "spotify:album:xyz"},
		{"spotify:user:bob:playlist:p9", "", "spotify:playlist:p9"},
		{"abc", "track", "spotify:track:abc"},
	} {
		got, _, _, err := parseURI(tc.in, tc.kind)
		if err != nil || got != tc.want {
			t.Errorf("parseURI(%q) = %q, %v", tc.in, got, err)
		}
	}
	if _, _, _, err := parseURI("not a uri", ""); err == nil {
		t.Error("bad uri accepted")
	}
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: []string{"--state-dir", t.TempDir()}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, "--state-dir", t.TempDir())
}
