package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestUpdatePlaylist: name, description and visibility go to PUT /playlists/{id} with only
// the fields given, and get_item reads them back.
func TestUpdatePlaylist(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for _, tc := range []struct {
		args map[string]any
		body string
		msg  string
	}{
		{map[string]any{"name": "Long runs"}, `{"name":"Long runs"}`, `Changed the playlist's name "Long runs"`},
		{map[string]any{"description": "", "visibility": "public"}, `{"collaborative":false,"description":"","public":true}`, `Changed the playlist's description "", visibility public`},
		{map[string]any{"visibility": "collaborative", "description": "for the club"}, `{"collaborative":true,"description":"for the club","public":false}`, `Changed the playlist's description "for the club", visibility collaborative`},
		{map[string]any{"visibility": "private"}, `{"collaborative":false,"public":false}`, "Changed the playlist's visibility private"},
	} {
		tc.args["playlist"] = "https://open.spotify.com/playlist/pl1"
		out, _ := mcptest.CallFor[doneOutput](t, e.cs, "update_playlist", tc.args)
		if out.Message != tc.msg || out.URI != "spotify:playlist:pl1" {
			t.Errorf("%v: %+v", tc.args, out)
		}
		if log := e.fake.log(); log[len(log)-1] != "PUT /v1/playlists/pl1 "+tc.body {
			t.Errorf("%v: call %q, want body %s", tc.args, log[len(log)-1], tc.body)
		}
	}
	it, _ := mcptest.CallFor[itemOutput](t, e.cs, "get_item", map[string]any{"uri": "spotify:playlist:pl1"})
	if it.Name != "Long runs" || it.Description != "for the club" {
		t.Errorf("after update: %+v", it)
	}
	if pls, _ := mcptest.CallFor[playlistsOutput](t, e.cs, "list_playlists", map[string]any{}); pls.Playlists[0].Name != "Long runs" {
		t.Errorf("list after rename: %+v", pls)
	}
}

// TestUpdatePlaylistErrors: the mistakes a model makes are refused before Spotify is called;
// Spotify's 403 (not the owner) and 404 (unknown id) say what happened.
func TestUpdatePlaylistErrors(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"playlist": "pl1"}, "nothing to change: give name, description or visibility"},
		{map[string]any{"playlist": "pl1", "name": "  "}, "name is blank"},
		{map[string]any{"playlist": "spotify:track:t1", "name": "x"}, "spotify:track:t1 is a track, not a playlist: give a playlist URI, link or id"},
		{map[string]any{"playlist": "spotify:album:al1", "name": "x"}, "spotify:album:al1 is an album, not a playlist"},
	} {
		if msg := mcptest.CallError(t, e.cs, "update_playlist", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, msg, tc.want)
		}
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called: %v", calls)
	}
	for _, tc := range []struct {
		playlist, want string
	}{
		{"pl2", "Spotify refused playlist pl2: You cannot change details of a playlist you don't own. (playlists can only be read or changed by their owner or collaborators)"},
		{"spotify:playlist:nope", "playlist spotify:playlist:nope not found"},
	} {
		if msg := mcptest.CallError(t, e.cs, "update_playlist", map[string]any{"playlist": tc.playlist, "name": "Mine now"}); msg != tc.want {
			t.Errorf("%s: %q, want %q", tc.playlist, msg, tc.want)
		}
	}
}

// TestPlaylistArgumentKind: every playlist tool refuses a URI of another kind before calling
// Spotify, naming both kinds.
func TestPlaylistArgumentKind(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_playlist_items", map[string]any{"playlist": "spotify:album:al1"}},
		{"edit_playlist_items", map[string]any{"action": "add", "playlist": "https://open.spotify.com/album/al1", "uris": []string{"t1"}}},
		{"edit_playlist_items", map[string]any{"action": "remove", "playlist": "spotify:album:al1", "uris": []string{"t1"}}},
		{"edit_playlist_items", map[string]any{"action": "move", "playlist": "spotify:album:al1", "range_start": 0, "insert_before": 2}},
	} {
		if msg := mcptest.CallError(t, e.cs, tc.tool, tc.args); !strings.Contains(msg, "is an album, not a playlist: give a playlist URI, link or id") {
			t.Errorf("%s %v: %q", tc.tool, tc.args, msg)
		}
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called: %v", calls)
	}
}
