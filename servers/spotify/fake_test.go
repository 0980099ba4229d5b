package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeSpotify is the Web API and the accounts service in one httptest server, answering with
// the JSON shapes of the February 2026 API. It records the calls it got.
type fakeSpotify struct {
	mu         sync.Mutex
	calls      []string // "METHOD /path?query body"
	active     bool     // a device is active
	premium    bool
	episode    bool // an episode is playing, not a track
	throttle   int  // answer this many 429s first
	revoked    bool
	refreshes  int
	granted    []string // the scopes the sign-in granted, which a refresh answers with
	playlist   []string // URIs in playlist pl1
	found      int      // tracks a search finds
	library    []string // saved URIs (followed playlists too), newest first
	devices    []any    // the devices online; the first is the active one when active
	others     []any    // playlists GET /me/playlists lists after pl1
	refuseMove bool     // PUT /me/player answers 404 "Device not found"
	challenge  string   // the PKCE challenge of the consent the test gave: the code exchange checks its verifier
	details    map[string]any
	srv        *httptest.Server
}

func newFake(t *testing.T) *fakeSpotify {
	f := &fakeSpotify{active: true, premium: true, found: 23, playlist: []string{"spotify:track:t1", "spotify:track:t2", "spotify:track:t3"},
		library: []string{"spotify:track:t9", "spotify:album:al1", "spotify:show:sh1", "spotify:playlist:pl1"},
		devices: devicesJSON,
		details: map[string]any{"name": "Running", "description": "fast", "public": false, "collaborative": false}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// set changes the fake's state under its lock.
func (f *fakeSpotify) set(fn func(f *fakeSpotify)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeSpotify) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeSpotify) called(prefix string) string {
	for _, c := range f.log() {
		if strings.HasPrefix(c, prefix) {
			return c
		}
	}
	return ""
}

func trackJSON(id, name, artist string) map[string]any {
	return map[string]any{"id": id, "name": name, "uri": "spotify:track:" + id, "type": "track", "duration_ms": 240000,
		"artists": []any{map[string]any{"id": "a-" + artist, "name": artist, "uri": "spotify:artist:a-" + artist}},
		"album":   map[string]any{"id": "al1", "name": "OK Computer", "uri": "spotify:album:al1", "release_date": "1997-05-21"}}
}

// albumJSON is OK Computer as search (simplified) or GET /albums/{id} (with its tracks) sends it.
func albumJSON(full bool) map[string]any {
	a := map[string]any{"id": "al1", "name": "OK Computer", "uri": "spotify:album:al1", "release_date": "1997-05-21", "album_type": "album",
		"artists": []any{map[string]any{"id": "rh", "name": "Radiohead", "uri": "spotify:artist:rh"}}}
	if full {
		tr := func(id, name string) map[string]any {
			t := trackJSON(id, name, "Radiohead")
			delete(t, "album")
			return t
		}
		a["genres"] = []any{}
		a["tracks"] = map[string]any{"total": 12, "items": []any{tr("a1", "Airbag"), tr("a2", "Paranoid Android")}, "next": "more"}
	}
	return a
}

func episodeJSON() map[string]any {
	return map[string]any{"id": "ep1", "name": "Radiohead: Paranoid Android", "uri": "spotify:episode:ep1", "type": "episode", "duration_ms": 1200000,
		"release_date": "2020-01-01", "show": map[string]any{"name": "Song Exploder", "uri": "spotify:show:sh1", "publisher": "Hrishikesh Hirway"}}
}

var devicesJSON = []any{
	map[string]any{"id": "dev-kitchen", "is_active": false, "is_restricted": false, "name": "Kitchen speaker", "type": "Speaker", "volume_percent": 40},
	map[string]any{"id": "dev-phone", "is_active": false, "is_restricted": false, "name": "Pixel 9", "type": "Smartphone", "volume_percent": 80},
}

// restrictedJSON is a device online that takes no Web API commands.
var restrictedJSON = map[string]any{"id": "dev-tv", "is_active": false, "is_restricted": true, "name": "Living room TV", "type": "TV", "volume_percent": 0}

// okComputer is the track list of album al1, as GET /albums/al1/tracks sends it.
var okComputer = []string{"Airbag", "Paranoid Android", "Subterranean Homesick Alien", "Exit Music (For a Film)", "Let Down", "Karma Police",
	"Fitter Happier", "Electioneering", "Climbing Up the Walls", "No Surprises", "Lucky", "The Tourist"}

// discography is artist rh's releases, newest first, as GET /artists/rh/albums sends them.
func discography() []map[string]any {
	var out []map[string]any
	for i := range 25 {
		group := []string{"album", "single", "single", "compilation", "appears_on"}[i%5]
		typ := group
		if group == "appears_on" {
			typ = "album"
		}
		out = append(out, map[string]any{"id": "rel" + strconv.Itoa(i), "name": "Release " + strconv.Itoa(i), "uri": "spotify:album:rel" + strconv.Itoa(i),
			"album_type": typ, "album_group": group, "total_tracks": 1 + i%12, "release_date": strconv.Itoa(2025-i) + "-01-01",
			"artists": []any{map[string]any{"id": "rh", "name": "Radiohead", "uri": "spotify:artist:rh"}}})
	}
	return out
}

// pageParams reads limit and offset, refusing a limit above max as Spotify does (400 "Invalid limit").
func pageParams(w http.ResponseWriter, q url.Values, max int) (limit, offset int, ok bool) {
	limit, offset = 20, 0
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" {
		offset, _ = strconv.Atoi(v)
	}
	if limit < 1 || limit > max {
		apiErr(w, http.StatusBadRequest, "Invalid limit", "")
		return 0, 0, false
	}
	return limit, offset, true
}

// pageOf answers one page of items with total and next as Spotify does.
func pageOf(w http.ResponseWriter, items []any, limit, offset int) {
	page := []any{}
	for i := offset; i < min(offset+limit, len(items)); i++ {
		page = append(page, items[i])
	}
	var next any
	if offset+limit < len(items) {
		next = "https://api.spotify.com/v1/next?offset=" + strconv.Itoa(offset+limit)
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": page, "total": len(items), "limit": limit, "offset": offset, "next": next})
}

// validURI is a Spotify URI /me/library takes: kind and base62 id.
func validURI(u string) bool {
	parts := strings.Split(u, ":")
	if len(parts) != 3 || parts[0] != "spotify" || parts[2] == "" {
		return false
	}
	switch parts[1] {
	case "track", "album", "episode", "show", "audiobook", "playlist", "artist", "user":
	default:
		return false
	}
	base62 := func(r rune) bool { return '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
	return !strings.ContainsFunc(parts[2], func(r rune) bool { return !base62(r) })
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiErr(w http.ResponseWriter, status int, msg, reason string) {
	e := map[string]any{"status": status, "message": msg}
	if reason != "" {
		e["reason"] = reason
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func (f *fakeSpotify) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	line := r.Method + " " + r.URL.Path
	if r.URL.RawQuery != "" {
		line += "?" + r.URL.RawQuery
	}
	if len(body) > 0 {
		line += " " + string(body)
	}
	f.calls = append(f.calls, line)

	if r.URL.Path == "/api/token" {
		_ = r.ParseForm()
		form, _ := url.ParseQuery(string(body))
		if form.Get("grant_type") == "authorization_code" {
			sum := sha256.Sum256([]byte(form.Get("code_verifier")))
			if form.Get("code") != "good-code" || f.challenge == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge {
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "Invalid authorization code"})
				return
			}
			f.revoked = false
			writeJSON(w, http.StatusOK, map[string]any{"access_token": "access-0", "token_type": "Bearer", "expires_in": 3600,
				"refresh_token": "refresh-0", "scope": strings.Join(f.granted, " ")})
			return
		}
		if f.revoked || form.Get("refresh_token") == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "Refresh token revoked"})
			return
		}
		f.refreshes++
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "access-" + strconv.Itoa(f.refreshes), "token_type": "Bearer", "expires_in": 3600,
			"refresh_token": "rotated-" + strconv.Itoa(f.refreshes), "scope": strings.Join(f.granted, " ")})
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer access-") {
		apiErr(w, http.StatusUnauthorized, "Invalid access token", "")
		return
	}
	if f.throttle > 0 {
		f.throttle--
		w.Header().Set("Retry-After", "1")
		apiErr(w, http.StatusTooManyRequests, "API rate limit exceeded", "")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	q := r.URL.Query()
	player := strings.HasPrefix(path, "/me/player") && path != "/me/player/devices" && path != "/me/player/recently-played"
	if player && r.Method != http.MethodGet && !f.premium {
		apiErr(w, http.StatusForbidden, "Player command failed: Premium required", "PREMIUM_REQUIRED")
		return
	}
	switch {
	case path == "/me/player/devices":
		devs := append([]any{}, f.devices...)
		if f.active && len(devs) > 0 {
			d := map[string]any{}
			for k, v := range devs[0].(map[string]any) {
				d[k] = v
			}
			d["is_active"] = true
			devs[0] = d
		}
		writeJSON(w, http.StatusOK, map[string]any{"devices": devs})
	case path == "/me/player" && r.Method == http.MethodGet:
		if !f.active {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		st := map[string]any{"device": map[string]any{"id": "dev-kitchen", "is_active": true, "name": "Kitchen speaker", "type": "Speaker", "volume_percent": 40},
			"shuffle_state": true, "repeat_state": "context", "timestamp": 1, "progress_ms": 65000, "is_playing": true,
			"context": map[string]any{"type": "album", "uri": "spotify:album:al1"}, "item": trackJSON("t1", "Paranoid Android", "Radiohead"), "currently_playing_type": "track"}
		if f.episode {
			st["item"], st["currently_playing_type"], st["context"] = episodeJSON(), "episode", nil
		}
		writeJSON(w, http.StatusOK, st)
	case path == "/me/player" && r.Method == http.MethodPut:
		if f.refuseMove {
			apiErr(w, http.StatusNotFound, "Device not found", "")
			return
		}
		f.active = true
		w.WriteHeader(http.StatusNoContent)
	case player && r.Method != http.MethodGet:
		if !f.active && q.Get("device_id") == "" {
			apiErr(w, http.StatusNotFound, "Player command failed: No active device found", "NO_ACTIVE_DEVICE")
			return
		}
		if path == "/me/player/play" {
			f.active = true
		}
		w.WriteHeader(http.StatusNoContent)
	case path == "/me/player/queue":
		writeJSON(w, http.StatusOK, map[string]any{"currently_playing": trackJSON("t1", "Paranoid Android", "Radiohead"), "queue": []any{trackJSON("t2", "Karma Police", "Radiohead")}})
	case path == "/search":
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		if limit > 10 || offset > 1000 {
			apiErr(w, http.StatusBadRequest, "Invalid limit or offset", "")
			return
		}
		total := f.found
		var items []any
		for i := offset; i < min(offset+limit, total); i++ {
			items = append(items, trackJSON("s"+strconv.Itoa(i), "Song "+strconv.Itoa(i), "Radiohead"))
		}
		next := ""
		if offset+limit < total {
			next = f.srv.URL + "/v1/search?offset=" + strconv.Itoa(offset+limit)
		}
		res := map[string]any{}
		if strings.Contains(q.Get("type"), "track") {
			res["tracks"] = map[string]any{"items": items, "total": total, "limit": limit, "offset": offset, "next": next}
		}
		if strings.Contains(q.Get("type"), "artist") {
			res["artists"] = map[string]any{"items": []any{map[string]any{"id": "rh", "name": "Radiohead", "uri": "spotify:artist:rh"}}, "total": 1}
		}
		if strings.Contains(q.Get("type"), "album") {
			res["albums"] = map[string]any{"items": []any{albumJSON(false)}, "total": 1, "next": nil}
		}
		if strings.Contains(q.Get("type"), "playlist") { // Spotify sends null for playlists it hides
			res["playlists"] = map[string]any{"items": []any{nil, map[string]any{"name": "Running", "uri": "spotify:playlist:pl1", "owner": map[string]any{"display_name": "Me"}, "items": map[string]any{"total": 3}}}, "total": 2}
		}
		if strings.Contains(q.Get("type"), "show") {
			res["shows"] = map[string]any{"items": []any{map[string]any{"name": "Song Exploder", "uri": "spotify:show:sh1", "publisher": "Hrishikesh Hirway"}}, "total": 1}
		}
		if strings.Contains(q.Get("type"), "episode") {
			res["episodes"] = map[string]any{"items": []any{episodeJSON()}, "total": 1}
		}
		writeJSON(w, http.StatusOK, res)
	case strings.HasPrefix(path, "/playlists/pl1/tracks"):
		apiErr(w, http.StatusForbidden, "Forbidden", "")
	case path == "/playlists/pl1/items" && r.Method == http.MethodGet:
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		var items []any
		for i := offset; i < min(offset+limit, len(f.playlist)); i++ {
			id := strings.TrimPrefix(f.playlist[i], "spotify:track:")
			items = append(items, map[string]any{"added_at": "2026-03-01T10:00:00Z", "item": trackJSON(id, "Track "+id, "Radiohead")})
		}
		next := ""
		if offset+limit < len(f.playlist) {
			next = "more"
		}
		writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": len(f.playlist), "next": next})
	case path == "/playlists/pl1/items" && r.Method == http.MethodPost:
		var b struct {
			URIs     []string `json:"uris"`
			Position *int     `json:"position"`
		}
		_ = json.Unmarshal(body, &b)
		pos := len(f.playlist)
		if b.Position != nil {
			pos = *b.Position
		}
		f.playlist = append(f.playlist[:pos], append(b.URIs, f.playlist[pos:]...)...)
		writeJSON(w, http.StatusCreated, map[string]any{"snapshot_id": "snap-add"})
	case path == "/playlists/pl1/items" && r.Method == http.MethodDelete:
		var b struct {
			Items []struct {
				URI string `json:"uri"`
			} `json:"items"`
		}
		_ = json.Unmarshal(body, &b)
		keep := f.playlist[:0]
		for _, u := range f.playlist {
			drop := false
			for _, it := range b.Items {
				drop = drop || it.URI == u
			}
			if !drop {
				keep = append(keep, u)
			}
		}
		f.playlist = keep
		writeJSON(w, http.StatusOK, map[string]any{"snapshot_id": "snap-del"})
	case path == "/playlists/pl1/items" && r.Method == http.MethodPut:
		var b struct {
			RangeStart   int `json:"range_start"`
			RangeLength  int `json:"range_length"`
			InsertBefore int `json:"insert_before"`
		}
		_ = json.Unmarshal(body, &b)
		moved := append([]string(nil), f.playlist[b.RangeStart:b.RangeStart+b.RangeLength]...)
		rest := append(append([]string(nil), f.playlist[:b.RangeStart]...), f.playlist[b.RangeStart+b.RangeLength:]...)
		at := b.InsertBefore
		if at > b.RangeStart {
			at -= b.RangeLength
		}
		f.playlist = append(rest[:at], append(moved, rest[at:]...)...)
		writeJSON(w, http.StatusOK, map[string]any{"snapshot_id": "snap-move"})
	case path == "/playlists/pl1" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": "pl1", "name": f.details["name"], "uri": "spotify:playlist:pl1", "description": f.details["description"],
			"public": f.details["public"], "collaborative": f.details["collaborative"],
			"owner": map[string]any{"id": "me", "display_name": "Me"}, "items": map[string]any{"total": len(f.playlist), "items": []any{map[string]any{"item": trackJSON("t1", "Paranoid Android", "Radiohead")}}}})
	case path == "/playlists/pl1" && r.Method == http.MethodPut:
		var b map[string]any
		if json.Unmarshal(body, &b) != nil {
			apiErr(w, http.StatusBadRequest, "Error parsing JSON.", "")
			return
		}
		for k, v := range b {
			f.details[k] = v
		}
		w.WriteHeader(http.StatusOK)
	case path == "/playlists/pl2" && r.Method == http.MethodPut: // followed, owned by someone else
		apiErr(w, http.StatusForbidden, "You cannot change details of a playlist you don't own.", "")
	case path == "/me/playlists" && r.Method == http.MethodGet:
		items := []any{}
		if slices.Contains(f.library, "spotify:playlist:pl1") {
			items = append(items, map[string]any{"id": "pl1", "name": f.details["name"], "uri": "spotify:playlist:pl1",
				"owner": map[string]any{"id": "me", "display_name": "Me"}, "items": map[string]any{"total": len(f.playlist)}})
		}
		limit, offset, ok := pageParams(w, q, 50)
		if ok {
			pageOf(w, append(items, f.others...), limit, offset)
		}
	case path == "/me/playlists" && r.Method == http.MethodPost:
		var b map[string]any
		_ = json.Unmarshal(body, &b)
		writeJSON(w, http.StatusCreated, map[string]any{"id": "new1", "name": b["name"], "uri": "spotify:playlist:new1", "owner": map[string]any{"id": "me"}})
	case path == "/me/library" && (r.Method == http.MethodPut || r.Method == http.MethodDelete):
		uris := strings.Split(q.Get("uris"), ",")
		if len(uris) > 40 {
			apiErr(w, http.StatusBadRequest, "Too many ids requested", "")
			return
		}
		for _, u := range uris {
			if !validURI(u) {
				apiErr(w, http.StatusBadRequest, "Invalid base62 id", "")
				return
			}
		}
		keep := []string{}
		for _, u := range f.library {
			if !slices.Contains(uris, u) {
				keep = append(keep, u)
			}
		}
		if r.Method == http.MethodPut {
			keep = append(slices.Clone(uris), keep...)
		}
		f.library = keep
		w.WriteHeader(http.StatusOK)
	case (path == "/me/tracks" || path == "/me/albums" || path == "/me/shows") && r.Method == http.MethodGet:
		limit, offset, ok := pageParams(w, q, 50)
		if !ok {
			return
		}
		kind := strings.TrimSuffix(strings.TrimPrefix(path, "/me/"), "s")
		var items []any
		for _, u := range f.library {
			k, id, _ := strings.Cut(strings.TrimPrefix(u, "spotify:"), ":")
			if k != kind {
				continue
			}
			saved := map[string]any{"added_at": "2026-03-01T10:00:00Z"}
			switch kind {
			case "track":
				saved["track"] = trackJSON(id, "Track "+id, "Radiohead")
				if id == "t9" {
					saved["track"] = trackJSON(id, "Reckoner", "Radiohead")
				}
			case "album":
				a := albumJSON(false)
				a["id"], a["uri"], a["total_tracks"] = id, u, len(okComputer)
				saved["album"] = a
			case "show":
				saved["show"] = map[string]any{"id": id, "name": "Song Exploder", "uri": u, "publisher": "Hrishikesh Hirway", "total_episodes": 300}
			}
			items = append(items, saved)
		}
		pageOf(w, items, limit, offset)
	case path == "/artists/rh/albums":
		limit, offset, ok := pageParams(w, q, 10)
		if !ok {
			return
		}
		groups := strings.Split(q.Get("include_groups"), ",")
		var items []any
		for _, a := range discography() {
			if q.Get("include_groups") == "" || slices.Contains(groups, a["album_group"].(string)) {
				items = append(items, a)
			}
		}
		pageOf(w, items, limit, offset)
	case path == "/albums/al1/tracks":
		limit, offset, ok := pageParams(w, q, 50)
		if !ok {
			return
		}
		var items []any
		for i, name := range okComputer {
			t := trackJSON("a"+strconv.Itoa(i+1), name, "Radiohead")
			delete(t, "album")
			items = append(items, t)
		}
		pageOf(w, items, limit, offset)
	case path == "/me/player/recently-played":
		writeJSON(w, http.StatusOK, map[string]any{"items": []any{map[string]any{"played_at": "2026-03-01T10:00:00Z", "track": trackJSON("t2", "Karma Police", "Radiohead")}}})
	case path == "/me/top/artists":
		writeJSON(w, http.StatusOK, map[string]any{"items": []any{map[string]any{"id": "rh", "name": "Radiohead", "uri": "spotify:artist:rh"}}, "total": 1})
	case path == "/albums/al1":
		writeJSON(w, http.StatusOK, albumJSON(true))
	case path == "/artists/rh":
		writeJSON(w, http.StatusOK, map[string]any{"id": "rh", "name": "Radiohead", "uri": "spotify:artist:rh", "genres": []any{"art rock", "alternative rock"}})
	case path == "/me/top/tracks":
		writeJSON(w, http.StatusOK, map[string]any{"items": []any{trackJSON("t1", "Paranoid Android", "Radiohead")}, "total": 40, "next": f.srv.URL + "/v1/me/top/tracks?offset=1"})
	case path == "/tracks/t1":
		writeJSON(w, http.StatusOK, trackJSON("t1", "Paranoid Android", "Radiohead"))
	default:
		apiErr(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, path), "")
	}
}
