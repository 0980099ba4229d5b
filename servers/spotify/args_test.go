package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestArgumentsRefusedBeforeSpotify: arguments outside the input schema's enums, ranges, lengths
// and list sizes are refused with the kit's message, and Spotify (the fake) is never called,
// not even to refresh the token.
func TestArgumentsRefusedBeforeSpotify(t *testing.T) {
	e := start(t, true)
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "t1"
		}
		return out
	}
	forty1, hundred1 := ids(41), ids(101)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_music", map[string]any{"query": "x", "types": []string{"track", "song"}}, `types[1] must be one of "track", "album", "artist", "playlist", "show", "episode", not "song"`},
		{"search_music", map[string]any{"query": "x", "types": []string{}}, "types must have at least 1 item"},
		{"search_music", map[string]any{"query": "x", "limit": 1000}, "limit must be at most 50, not 1000"},
		{"search_music", map[string]any{"query": "x", "limit": 0}, "limit must be at least 1, not 0"},
		{"search_music", map[string]any{"query": "x", "offset": 1001}, "offset must be at most 1000, not 1001"},
		{"search_music", map[string]any{"query": ""}, "query must not be empty"},
		{"get_item", map[string]any{"uri": ""}, "uri must not be empty"},
		{"play", map[string]any{"query": "Radiohead", "type": "episode"}, `type must be one of "track", "album", "artist", "playlist", "show", not "episode"`},
		{"control_playback", map[string]any{"action": "seek", "position_ms": -5}, "position_ms must be at least 0, not -5"},
		{"control_playback", map[string]any{"action": "volume", "percent": 101}, "percent must be at most 100, not 101"},
		{"control_playback", map[string]any{"action": "volume", "percent": -1}, "percent must be at least 0, not -1"},
		{"control_playback", map[string]any{"action": "repeat", "mode": "all"}, `mode must be one of "track", "context", "off", not "all"`},
		{"control_playback", map[string]any{"action": "repeat", "mode": "Track"}, `mode must be one of "track", "context", "off", not "Track"`},
		{"transfer_playback", map[string]any{"device": ""}, "device must not be empty"},
		{"control_playback", map[string]any{"action": "stop"}, `action must be one of "pause", "next", "previous", "seek", "volume", "shuffle", "repeat", not "stop"`},
		{"control_playback", map[string]any{"action": "seek"}, "action seek needs position_ms"},
		{"control_playback", map[string]any{"action": "volume"}, "action volume needs percent"},
		{"control_playback", map[string]any{"action": "shuffle"}, "action shuffle needs on"},
		{"control_playback", map[string]any{"action": "repeat"}, "action repeat needs mode"},
		{"list_playlists", map[string]any{"limit": 51}, "limit must be at most 50, not 51"},
		{"list_playlists", map[string]any{"offset": -1}, "offset must be at least 0, not -1"},
		{"get_playlist_items", map[string]any{"playlist": "pl1", "limit": 0}, "limit must be at least 1, not 0"},
		{"get_playlist_items", map[string]any{"playlist": ""}, "playlist must not be empty"},
		{"create_playlist", map[string]any{"name": ""}, "name must not be empty"},
		{"edit_playlist_items", map[string]any{"action": "add", "playlist": "pl1", "uris": []string{}}, "uris must have at least 1 item"},
		{"edit_playlist_items", map[string]any{"action": "add", "playlist": "pl1", "uris": hundred1}, "uris must have at most 100 items, not 101"},
		{"edit_playlist_items", map[string]any{"action": "add", "playlist": "pl1", "uris": []string{"t1"}, "position": -1}, "position must be at least 0, not -1"},
		{"edit_playlist_items", map[string]any{"action": "remove", "playlist": "pl1", "uris": hundred1}, "uris must have at most 100 items, not 101"},
		{"edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": 0, "insert_before": 2, "range_length": 0}, "range_length must be at least 1, not 0"},
		{"edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": -1, "insert_before": 2}, "range_start must be at least 0, not -1"},
		{"edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": 0, "insert_before": -2}, "insert_before must be at least 0, not -2"},
		{"edit_library", map[string]any{"action": "save", "uris": forty1}, "uris must have at most 40 items, not 41"},
		{"edit_library", map[string]any{"action": "remove", "uris": []string{}}, "uris must have at least 1 item"},
		{"list_saved", map[string]any{"limit": 100}, "limit must be at most 50, not 100"},
		{"list_saved", map[string]any{"type": "artists"}, `type must be one of "tracks", "albums", "shows", not "artists"`},
		{"update_playlist", map[string]any{"playlist": "pl1", "visibility": "hidden"}, `visibility must be one of "public", "private", "collaborative", not "hidden"`},
		{"update_playlist", map[string]any{"playlist": ""}, "playlist must not be empty"},
		{"get_artist_albums", map[string]any{"artist": "rh", "groups": []string{"ep"}}, `groups[0] must be one of "album", "single", "compilation", "appears_on", not "ep"`},
		{"get_artist_albums", map[string]any{"artist": "rh", "limit": 51}, "limit must be at most 50, not 51"},
		{"get_album_tracks", map[string]any{"album": "al1", "limit": 51}, "limit must be at most 50, not 51"},
		{"get_album_tracks", map[string]any{"album": "al1", "offset": -1}, "offset must be at least 0, not -1"},
		{"get_recently_played", map[string]any{"limit": 0}, "limit must be at least 1, not 0"},
		{"get_top_items", map[string]any{"time_range": "short"}, `time_range must be one of "short_term", "medium_term", "long_term", not "short"`},
		{"get_top_items", map[string]any{"type": "albums"}, `type must be one of "tracks", "artists", not "albums"`},
		{"get_top_items", map[string]any{"limit": 51}, "limit must be at most 50, not 51"},
	} {
		t.Run(tc.tool+"/"+tc.want, func(t *testing.T) {
			msg := mcptest.CallError(t, e.cs, tc.tool, tc.args)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message = %q, want %q", msg, tc.want)
			}
		})
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called for refused arguments: %v", calls)
	}
}

// TestNullListsRefused: a required list sent as null is refused by the schema before Spotify
// is called, and an optional one sent as null takes its default.
func TestNullListsRefused(t *testing.T) {
	e := start(t, true)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_library", map[string]any{"action": "save", "uris": nil}},
		{"edit_library", map[string]any{"action": "remove", "uris": nil}},
	} {
		if msg := mcptest.CallError(t, e.cs, tc.tool, tc.args); msg != "invalid arguments: uris must be an array, not null" {
			t.Errorf("%s: message = %q", tc.tool, msg)
		}
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called for empty lists: %v", calls)
	}
	// In edit_playlist_items uris is needed only by add and remove: null is absent, and those
	// actions say so.
	for _, action := range []string{"add", "remove"} {
		if msg := mcptest.CallError(t, e.cs, "edit_playlist_items", map[string]any{"action": action, "playlist": "pl1", "uris": nil}); msg != "action "+action+" needs uris" {
			t.Errorf("%s with null uris: %q", action, msg)
		}
	}
	if msg := mcptest.CallError(t, e.cs, "edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": 0}); msg != "action move needs range_start and insert_before" {
		t.Errorf("move without insert_before: %q", msg)
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called for missing arguments: %v", calls)
	}
	mcptest.Call(t, e.cs, "search_music", map[string]any{"query": "radiohead", "types": nil})
	if e.fake.called("GET /v1/search?limit=10&offset=0&q=radiohead&type=track") == "" {
		t.Errorf("null types not searched as tracks: %v", e.fake.log())
	}
}

// TestDefaultsReachSpotify: an absent argument reaches Spotify as the schema's default.
func TestDefaultsReachSpotify(t *testing.T) {
	e := start(t, true)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // the start of the upstream request
	}{
		{"search_music", map[string]any{"query": "radiohead"}, "GET /v1/search?limit=10&offset=0&q=radiohead&type=track"},
		{"play", map[string]any{"query": "Radiohead"}, "GET /v1/search?limit=1&offset=0&q=Radiohead&type=track"},
		{"list_playlists", map[string]any{}, "GET /v1/me/playlists?limit=20&offset=0"},
		{"get_playlist_items", map[string]any{"playlist": "pl1"}, "GET /v1/playlists/pl1/items?additional_types=track%2Cepisode&limit=20&offset=0"},
		{"edit_playlist_items", map[string]any{"action": "move", "playlist": "pl1", "range_start": 0, "insert_before": 2}, `PUT /v1/playlists/pl1/items {"insert_before":2,"range_length":1,"range_start":0}`},
		{"list_saved", map[string]any{}, "GET /v1/me/tracks?limit=20&offset=0"},
		{"get_artist_albums", map[string]any{"artist": "rh", "limit": 5}, "GET /v1/artists/rh/albums?include_groups=album%2Csingle&limit=5&offset=0"},
		{"get_album_tracks", map[string]any{"album": "al1"}, "GET /v1/albums/al1/tracks?limit=20&offset=0"},
		{"get_recently_played", map[string]any{}, "GET /v1/me/player/recently-played?limit=20"},
		{"get_top_items", map[string]any{"type": "artists"}, "GET /v1/me/top/artists?limit=20&offset=0&time_range=medium_term"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			mcptest.Call(t, e.cs, tc.tool, tc.args)
			if e.fake.called(tc.want) == "" {
				t.Errorf("no upstream request %q in %v", tc.want, e.fake.log())
			}
		})
	}
}

// TestSearchStopsAtSpotifysOffsetCap: search pages never ask Spotify for an offset past 1000,
// which it refuses, and offer no next page beyond it.
func TestSearchStopsAtSpotifysOffsetCap(t *testing.T) {
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.found = 5000 })
	for _, tc := range []struct {
		offset, limit int
		first         string
		n, next       int
	}{
		{980, 10, "Song 980", 10, 990},
		{995, 30, "Song 995", 10, 0},
		{1000, 10, "Song 1000", 10, 0},
	} {
		out, _ := mcptest.CallFor[searchOutput](t, e.cs, "search_music", map[string]any{"query": "radiohead", "offset": tc.offset, "limit": tc.limit})
		first := ""
		if len(out.Items) > 0 {
			first = out.Items[0].Name
		}
		if len(out.Items) != tc.n || first != tc.first || out.NextOffset != tc.next {
			t.Errorf("offset %d limit %d: %d items from %q, next %d; want %d from %q, next %d",
				tc.offset, tc.limit, len(out.Items), first, out.NextOffset, tc.n, tc.first, tc.next)
		}
	}
	searches := 0
	for _, c := range e.fake.log() {
		path, query, _ := strings.Cut(strings.TrimPrefix(c, "GET "), "?")
		if path != "/v1/search" {
			continue
		}
		searches++
		q, err := url.ParseQuery(query)
		if n, _ := strconv.Atoi(q.Get("offset")); err != nil || n > searchMaxOffset {
			t.Errorf("asked Spotify past offset %d: %s", searchMaxOffset, c)
		}
	}
	if searches != 3 {
		t.Errorf("%d search requests, want 3: %v", searches, e.fake.log())
	}
}
