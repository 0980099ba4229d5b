package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// names lists the names of items, in order.
func names(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Type + " " + it.Name
	}
	return out
}

// TestListSaved: saved tracks, albums and shows come from GET /me/tracks, /me/albums and
// /me/shows (kept by the February 2026 API), compact and paged.
func TestListSaved(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for _, tc := range []struct {
		args map[string]any
		call string
		want string
		by   string
	}{
		{map[string]any{}, "GET /v1/me/tracks?limit=20&offset=0", "track Reckoner", "Radiohead"},
		{map[string]any{"type": "albums"}, "GET /v1/me/albums?limit=20&offset=0", "album OK Computer", "Radiohead"},
		{map[string]any{"type": "shows", "limit": 5}, "GET /v1/me/shows?limit=5&offset=0", "show Song Exploder", "Hrishikesh Hirway"},
	} {
		out, _ := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", tc.args)
		if got := names(out.Items); len(got) != 1 || got[0] != tc.want || out.Items[0].By != tc.by || out.Total != 1 || out.NextOffset != 0 {
			t.Errorf("%v: %+v", tc.args, out)
		}
		if e.fake.called(tc.call) == "" {
			t.Errorf("%v: no call %q in %v", tc.args, tc.call, e.fake.log())
		}
	}
	if out, _ := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"type": "albums"}); out.Items[0].Tracks != 12 || out.Items[0].Release != "1997-05-21" || out.Items[0].URI != "spotify:album:al1" {
		t.Errorf("saved album = %+v", out.Items[0])
	}

	// Paging: 3 saved tracks, 2 a page.
	mcptest.Call(t, e.cs, "edit_library", map[string]any{"action": "save", "uris": []string{"t7", "t8"}})
	first, _ := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"limit": 2})
	second, res := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"limit": 2, "offset": first.NextOffset})
	if got := append(names(first.Items), names(second.Items)...); strings.Join(got, ", ") != "track Track t7, track Track t8, track Reckoner" || first.NextOffset != 2 || second.NextOffset != 0 || second.Total != 3 {
		t.Errorf("pages = %+v then %+v", first, second)
	}
	if text := mcptest.Text(res); !strings.Contains(text, `track "Reckoner" by Radiohead (spotify:track:t9)`) {
		t.Errorf("text = %q", text)
	}
	if _, res := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"limit": 2}); !strings.Contains(mcptest.Text(res), "(3 in all; more: offset 2)") {
		t.Errorf("first page text = %q", mcptest.Text(res))
	}
}

// TestLibraryWrites: saving and removing tracks, albums, shows and playlists go through
// PUT|DELETE /me/library with URIs; removing a playlist unfollows it.
func TestLibraryWrites(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	out, _ := mcptest.CallFor[doneOutput](t, e.cs, "edit_library", map[string]any{"action": "save", "uris": []string{"t1", "https://open.spotify.com/album/al2", "spotify:show:sh2"}})
	if out.Message != "Saved 3 item(s) to the library" {
		t.Errorf("save = %q", out.Message)
	}
	if e.fake.called("PUT /v1/me/library?uris=spotify%3Atrack%3At1%2Cspotify%3Aalbum%3Aal2%2Cspotify%3Ashow%3Ash2") == "" {
		t.Errorf("save call missing: %v", e.fake.log())
	}
	albums, _ := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"type": "albums"})
	shows, _ := mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"type": "shows"})
	if len(albums.Items) != 2 || albums.Items[0].URI != "spotify:album:al2" || len(shows.Items) != 2 || shows.Items[0].URI != "spotify:show:sh2" {
		t.Fatalf("after save: albums %+v, shows %+v", albums, shows)
	}

	out, _ = mcptest.CallFor[doneOutput](t, e.cs, "edit_library", map[string]any{"action": "remove", "uris": []string{"spotify:album:al2", "spotify:show:sh1"}})
	if out.Message != "Removed 2 item(s) from the library" || e.fake.called("DELETE /v1/me/library?uris=spotify%3Aalbum%3Aal2%2Cspotify%3Ashow%3Ash1") == "" {
		t.Errorf("remove = %q, calls %v", out.Message, e.fake.log())
	}
	albums, _ = mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"type": "albums"})
	shows, _ = mcptest.CallFor[itemsOutput](t, e.cs, "list_saved", map[string]any{"type": "shows"})
	if len(albums.Items) != 1 || albums.Items[0].URI != "spotify:album:al1" || len(shows.Items) != 1 || shows.Items[0].URI != "spotify:show:sh2" {
		t.Errorf("after remove: albums %+v, shows %+v", albums, shows)
	}

	// Unfollowing (removing) a playlist: it leaves list_playlists; following brings it back.
	out, _ = mcptest.CallFor[doneOutput](t, e.cs, "edit_library", map[string]any{"action": "remove", "uris": []string{"https://open.spotify.com/playlist/pl1?si=x"}})
	if out.Message != "Removed 1 item(s) from the library (1 playlist(s) unfollowed)" || e.fake.called("DELETE /v1/me/library?uris=spotify%3Aplaylist%3Apl1") == "" {
		t.Errorf("unfollow = %q, calls %v", out.Message, e.fake.log())
	}
	if pls, _ := mcptest.CallFor[playlistsOutput](t, e.cs, "list_playlists", map[string]any{}); len(pls.Playlists) != 0 {
		t.Errorf("unfollowed playlist still listed: %+v", pls)
	}
	out, _ = mcptest.CallFor[doneOutput](t, e.cs, "edit_library", map[string]any{"action": "save", "uris": []string{"spotify:playlist:pl1"}})
	if pls, _ := mcptest.CallFor[playlistsOutput](t, e.cs, "list_playlists", map[string]any{}); len(pls.Playlists) != 1 || out.Message != "Saved 1 item(s) to the library (1 playlist(s) followed)" {
		t.Errorf("follow = %q, playlists %+v", out.Message, pls)
	}
}

// TestLibraryErrors: kinds the library cannot hold are refused before Spotify is called; an id
// Spotify cannot read comes back as its 400, said plainly.
func TestLibraryErrors(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for _, tc := range []struct {
		tool string
		uris []string
		want string
	}{
		{"save", []string{"spotify:artist:rh"}, "spotify:artist:rh is an artist: the library holds tracks, albums, episodes, shows, audiobooks and playlists"},
		{"remove", []string{"t1", "not a uri"}, `"not a uri" is not a Spotify URI`},
	} {
		if msg := mcptest.CallError(t, e.cs, "edit_library", map[string]any{"action": tc.tool, "uris": tc.uris}); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.uris, msg, tc.want)
		}
	}
	if calls := e.fake.log(); len(calls) != 0 {
		t.Errorf("Spotify was called: %v", calls)
	}
	if msg := mcptest.CallError(t, e.cs, "edit_library", map[string]any{"action": "save", "uris": []string{"spotify:track:t1-x"}}); msg != "Spotify refused the request: Invalid base62 id" {
		t.Errorf("bad id message = %q", msg)
	}
}
