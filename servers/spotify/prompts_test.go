package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// playlistJSON is a playlist as GET /me/playlists lists it.
func playlistJSON(id, name string) map[string]any {
	return map[string]any{"id": id, "name": name, "uri": "spotify:playlist:" + id,
		"owner": map[string]any{"id": "someone", "display_name": "Someone"}, "items": map[string]any{"total": 10}}
}

func promptText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) (string, error) {
	t.Helper()
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	return res.Messages[0].Content.(*mcp.TextContent).Text, nil
}

func complete(t *testing.T, cs *mcp.ClientSession, prompt, arg, value string) (*mcp.CompleteResult, error) {
	t.Helper()
	return cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
}

// TestPlayPlaylistPrompt: play_playlist resolves a name (any case) to the user's playlist URI
// and names the tools to call; a name it cannot find sends the assistant to look; bad
// arguments are refused.
func TestPlayPlaylistPrompt(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) {
		f.others = []any{playlistJSON("pl7", "Road Trip"), playlistJSON("pl6", `"Heroes"`)}
	})
	for _, tc := range []struct {
		args map[string]string
		want []string
	}{
		{map[string]string{"playlist": "running"}, []string{"1. play with uri spotify:playlist:pl1 (my playlist \"running\") on the active device", "2. get_playback"}},
		{map[string]string{"playlist": "ROAD TRIP", "device": "Kitchen speaker", "shuffle": "yes"}, []string{`1. play with uri spotify:playlist:pl7 (my playlist "ROAD TRIP"), device "Kitchen speaker".`, "2. control_playback with action shuffle, on true.", "3. get_playback"}},
		{map[string]string{"playlist": "https://open.spotify.com/playlist/pl9", "shuffle": "no"}, []string{"1. play with uri spotify:playlist:pl9 on the active device", "2. control_playback with action shuffle, on false."}},
		{map[string]string{"playlist": `"Heroes"`}, []string{`1. play with uri spotify:playlist:pl6 (my playlist "\"Heroes\"")`}},
		{map[string]string{"playlist": "Jazz"}, []string{`None of my playlists is called "Jazz": list_playlists`, `search_music with types ["playlist"]`, "2. play with the uri of the one I confirm"}},
	} {
		text, err := promptText(t, e.cs, "play_playlist", tc.args)
		if err != nil {
			t.Errorf("play_playlist %v: %v", tc.args, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("play_playlist %v:\n%s\nwant %q", tc.args, text, w)
			}
		}
	}
	for args, want := range map[[2]string]string{
		{"", ""}:          "needs the argument playlist",
		{"Jazz", "maybe"}: `shuffle "maybe": give yes or no`,
	} {
		if _, err := promptText(t, e.cs, "play_playlist", map[string]string{"playlist": args[0], "shuffle": args[1]}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("play_playlist %v: %v, want %q", args, err, want)
		}
	}
	// Without a sign-in the lookup fails as the tools do, naming the login that fixes it.
	out := start(t, false)
	if _, err := promptText(t, out.cs, "play_playlist", map[string]string{"playlist": "Running"}); err == nil || !strings.Contains(err.Error(), "spotify auth login") {
		t.Errorf("play_playlist signed out: %v", err)
	}
	if _, err := complete(t, out.cs, "play_playlist", "playlist", "r"); err == nil || !strings.Contains(err.Error(), "spotify auth login") {
		t.Errorf("complete playlist signed out: %v", err)
	}
}

// TestPlaylistCompletion: playlist names complete from GET /me/playlists, prefix matches
// (any case) before substring matches, within four pages and the protocol's 100 values;
// devices complete from the devices online.
func TestPlaylistCompletion(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	others := []any{playlistJSON("pl7", "Road Trip"), playlistJSON("pl8", "running late"), playlistJSON("pl9", "Long Run")}
	for i := range 250 {
		others = append(others, playlistJSON(fmt.Sprint("mix", i), fmt.Sprintf("Mix %03d", i)))
	}
	e.fake.set(func(f *fakeSpotify) { f.others = others })
	for value, want := range map[string][]string{
		"run":    {"Running", "running late", "Long Run"},
		"RUN":    {"Running", "running late", "Long Run"},
		"road":   {"Road Trip"},
		"jazz":   {},
		"mix 19": {"Mix 190", "Mix 191", "Mix 192", "Mix 193", "Mix 194", "Mix 195"}, // the first 200 playlists only
	} {
		comp, err := complete(t, e.cs, "play_playlist", "playlist", value)
		if err != nil || !slices.Equal(comp.Completion.Values, want) {
			t.Errorf("complete playlist %q: %+v %v, want %v", value, comp, err, want)
		}
	}
	before := len(e.fake.log())
	comp, err := complete(t, e.cs, "play_playlist", "playlist", "")
	if err != nil || len(comp.Completion.Values) != 100 || !comp.Completion.HasMore || comp.Completion.Values[0] != "Long Run" {
		t.Errorf("complete playlist \"\": %d values %v, has more %v: %v", len(comp.Completion.Values), comp.Completion.Values[:min(3, len(comp.Completion.Values))], comp.Completion.HasMore, err)
	}
	var pages []string
	for _, c := range e.fake.log()[before:] {
		if strings.HasPrefix(c, "GET /v1/me/playlists") {
			pages = append(pages, c)
		}
	}
	if len(pages) != 4 || !strings.Contains(pages[3], "limit=50&offset=150") {
		t.Errorf("pages read: %q, want 4 of 50", pages)
	}
	comp, err = complete(t, e.cs, "play_playlist", "device", "p")
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"Pixel 9", "Kitchen speaker"}) {
		t.Errorf("complete device p: %+v %v", comp, err)
	}
}

// TestMusicForPrompt: music_for names the tools for taste, search and playing, and its
// activity completes from common activities.
func TestMusicForPrompt(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	text, err := promptText(t, e.cs, "music_for", map[string]string{"activity": "  deep   focus "})
	for _, w := range []string{`music for "deep focus".`, "get_top_items", "get_recently_played", `search_music for playlists, albums and tracks that fit "deep focus"`, "add_to_queue", "Play nothing until I pick"} {
		if err != nil || !strings.Contains(text, w) {
			t.Errorf("music_for: %q %v, want %q", text, err, w)
		}
	}
	if _, err := promptText(t, e.cs, "music_for", map[string]string{"activity": strings.Repeat("a", 101)}); err == nil || !strings.Contains(err.Error(), "at most 100 characters") {
		t.Errorf("music_for with 101 characters: %v", err)
	}
	for value, want := range map[string][]string{"f": {"falling asleep", "deep focus"}, "RUN": {"running"}, "opera": {}} {
		comp, err := complete(t, e.cs, "music_for", "activity", value)
		if err != nil || !slices.Equal(comp.Completion.Values, want) {
			t.Errorf("complete activity %q: %+v %v, want %v", value, comp, err, want)
		}
	}
}

// TestPromptsFollowNarrowing: each prompt is listed, got and completed only where the tool
// it stands beside is offered.
func TestPromptsFollowNarrowing(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	for path, want := range map[string][]string{
		"/mcp":            {"music_for", "play_playlist"},
		"/mcp/x/playback": {"play_playlist"},
		"/mcp/x/catalog":  {"music_for"},
		"/mcp/readonly":   {"music_for"},
		"/mcp/x/library":  nil,
	} {
		cs, err := e.h.TryConnectTo(t.Context(), path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var got []string
		for p, err := range cs.Prompts(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: prompts %v, want %v", path, got, want)
		}
		if slices.Contains(want, "play_playlist") {
			continue
		}
		if _, err := promptText(t, cs, "play_playlist", map[string]string{"playlist": "Running"}); err == nil {
			t.Errorf("%s: play_playlist got", path)
		}
		if comp, err := complete(t, cs, "play_playlist", "playlist", "r"); err != nil || len(comp.Completion.Values) != 0 {
			t.Errorf("%s: play_playlist completed: %+v %v", path, comp, err)
		}
	}
}
