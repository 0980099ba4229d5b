package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestCatalogShapes reads every kind of object the tools decode from the Web API's 2026 JSON.
func TestCatalogShapes(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	tests := []struct {
		name string
		uri  string
		want itemOutput
	}{
		{"track with its album's release", "spotify:track:t1",
			itemOutput{item: item{Type: "track", Name: "Paranoid Android", URI: "spotify:track:t1", By: "Radiohead", Album: "OK Computer", Release: "1997-05-21"}}},
		{"album with its tracks", "https://open.spotify.com/album/al1",
			itemOutput{item: item{Type: "album", Name: "OK Computer", URI: "spotify:album:al1", By: "Radiohead", Release: "1997-05-21", Tracks: 12},
				Items: []track{{Name: "Airbag", URI: "spotify:track:a1", Artists: "Radiohead", DurationMS: 240000}, {Name: "Paranoid Android", URI: "spotify:track:a2", Artists: "Radiohead", DurationMS: 240000}}}},
		{"artist with genres", "spotify:artist:rh",
			itemOutput{item: item{Type: "artist", Name: "Radiohead", URI: "spotify:artist:rh"}, Genres: []string{"art rock", "alternative rock"}}},
	}
	for _, tc := range tests {
		var got itemOutput
		mcptest.Decode(t, mcptest.Call(t, e.cs, "get_item", map[string]any{"uri": tc.uri}), &got)
		if got.item != tc.want.item || !slices.Equal(got.Genres, tc.want.Genres) || !slices.Equal(got.Items, tc.want.Items) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	if msg := mcptest.CallError(t, e.cs, "get_item", map[string]any{"uri": "spotify:album:missing"}); !strings.Contains(msg, "spotify:album:missing not found") {
		t.Errorf("missing album: %s", msg)
	}
}

func TestSearchEveryType(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var out searchOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "search_music", map[string]any{"query": "radiohead", "types": []string{"episode", "show", "playlist", "album", "artist", "album"}, "limit": 1}), &out)
	want := []item{
		{Type: "album", Name: "OK Computer", URI: "spotify:album:al1", By: "Radiohead", Release: "1997-05-21"},
		{Type: "artist", Name: "Radiohead", URI: "spotify:artist:rh"},
		{Type: "playlist", Name: "Running", URI: "spotify:playlist:pl1", By: "Me"},
		{Type: "show", Name: "Song Exploder", URI: "spotify:show:sh1", By: "Hrishikesh Hirway"},
		{Type: "episode", Name: "Radiohead: Paranoid Android", URI: "spotify:episode:ep1", Release: "2020-01-01"},
	}
	if !slices.Equal(out.Items, want) {
		t.Errorf("items:\n got %+v\nwant %+v", out.Items, want)
	}
	// Types go to Spotify once each, in the order given.
	if e.fake.called("GET /v1/search?limit=1&offset=0&q=radiohead&type=episode%2Cshow%2Cplaylist%2Calbum%2Cartist") == "" {
		t.Errorf("search call %v", e.fake.log())
	}
	if msg := mcptest.CallError(t, e.cs, "search_music", map[string]any{"query": "x", "types": []string{"podcast"}}); !strings.Contains(msg, `types[0] must be one of`) {
		t.Errorf("bad type: %s", msg)
	}
}

func TestPlaybackShapes(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var pb playbackOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playback", map[string]any{}), &pb)
	if !pb.Playing || pb.Item == nil || pb.Item.Name != "Paranoid Android" || pb.Item.Album != "OK Computer" || pb.ProgressMS != 65000 ||
		pb.Device == nil || pb.Device.ID != "dev-kitchen" || !pb.Device.Active || pb.Device.Volume != 40 ||
		!pb.Shuffle || pb.Repeat != "context" || pb.Context != "spotify:album:al1" {
		t.Errorf("playback %+v item %+v device %+v", pb, pb.Item, pb.Device)
	}
	if e.fake.called("GET /v1/me/player?additional_types=track%2Cepisode") == "" {
		t.Errorf("playback call %v", e.fake.log())
	}
	// An episode names its show where a track names its artists.
	e.fake.set(func(f *fakeSpotify) { f.episode = true })
	pb = playbackOutput{}
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_playback", map[string]any{}), &pb)
	if pb.Item == nil || pb.Item.URI != "spotify:episode:ep1" || pb.Item.Artists != "Song Exploder" || pb.Context != "" {
		t.Errorf("episode playback %+v item %+v", pb, pb.Item)
	}
	// play with neither uri nor query resumes: no body.
	mcptest.Call(t, e.cs, "play", map[string]any{})
	if c := e.fake.called("PUT /v1/me/player/play"); c != "PUT /v1/me/player/play" {
		t.Errorf("resume call %q", c)
	}
}

func TestTopTracks(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	var top searchOutput
	mcptest.Decode(t, mcptest.Call(t, e.cs, "get_top_items", map[string]any{"limit": 1, "time_range": "long_term"}), &top)
	want := []item{{Type: "track", Name: "Paranoid Android", URI: "spotify:track:t1", By: "Radiohead", Album: "OK Computer"}}
	if !slices.Equal(top.Items, want) || top.NextOffset != 1 {
		t.Errorf("top = %+v", top)
	}
	if e.fake.called("GET /v1/me/top/tracks?limit=1&offset=0&time_range=long_term") == "" {
		t.Errorf("top call %v", e.fake.log())
	}
	if msg := mcptest.CallError(t, e.cs, "get_top_items", map[string]any{"time_range": "forever"}); !strings.Contains(msg, `time_range must be one of "short_term", "medium_term", "long_term", not "forever"`) {
		t.Errorf("bad range: %s", msg)
	}
}
