package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// namePages bounds how many pages of 50 playlists a completion or a lookup by name reads.
	namePages = 4
	// nameTimeout bounds how long a completion or a lookup by name waits for Spotify.
	nameTimeout = 5 * time.Second
)

// activities are what music_for's activity completes to; any other words are taken too.
var activities = []string{"cooking", "deep focus", "dinner party", "driving", "falling asleep", "reading", "relaxing", "running", "studying", "waking up", "workout"}

// addPrompts offers play_playlist beside play and music_for beside search_music.
func addPrompts(s *kit.Server, c *client) {
	s.AddPrompt(kit.Prompt{
		Tool: "play",
		Prompt: &mcp.Prompt{
			Name: "play_playlist", Title: "Play one of my playlists",
			Description: "Play one of your playlists by name, on a device you choose (default the active one), optionally shuffled.",
			Arguments: []*mcp.PromptArgument{
				{Name: "playlist", Description: "the playlist's name (completes from your playlists) or its URI or link", Required: true},
				{Name: "device", Description: "the device to play on (default the active one; completes from your devices)"},
				{Name: "shuffle", Description: "yes to shuffle, no to play in order (default: leave shuffle as it is)"},
			},
		},
		Get:      c.playPlaylist,
		Complete: c.completePlay,
	})
	s.AddPrompt(kit.Prompt{
		Tool: "search_music",
		Prompt: &mcp.Prompt{
			Name: "music_for", Title: "Music for an activity",
			Description: "Suggest music for an activity or mood from your listening and Spotify's catalog, then play or queue what you pick.",
			Arguments: []*mcp.PromptArgument{
				{Name: "activity", Description: "what the music is for, e.g. running or deep focus (completes from common ones; any words do)", Required: true},
			},
		},
		Get:      musicFor,
		Complete: completeActivity,
	})
}

// playPlaylist asks to play a playlist, named by the URI it resolves to when the name is one
// of the user's playlists.
func (c *client) playPlaylist(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
	name := strings.TrimSpace(args["playlist"])
	var shuffle string // control_playback's on, "" to leave shuffle as it is
	switch sh := strings.ToLower(strings.TrimSpace(args["shuffle"])); sh {
	case "":
	case "yes", "true", "on":
		shuffle = "true"
	case "no", "false", "off":
		shuffle = "false"
	default:
		return nil, fmt.Errorf("shuffle %q: give yes or no", sh)
	}
	var steps []string
	if uri, kind, _, err := parseURI(name, ""); err == nil && kind == "playlist" {
		steps = append(steps, fmt.Sprintf("play with uri %s", uri))
	} else {
		found, err := c.playlistNamed(ctx, name)
		if err != nil {
			return nil, c.fail(ctx, err, "your playlists")
		}
		if found != "" {
			steps = append(steps, fmt.Sprintf("play with uri %s (my playlist %q)", found, name))
		} else {
			steps = append(steps, fmt.Sprintf("None of my playlists is called %q: list_playlists (every page) for the closest name, else search_music with types [\"playlist\"]; ask me before playing one I do not own", name),
				"play with the uri of the one I confirm")
		}
	}
	if d := strings.TrimSpace(args["device"]); d != "" {
		steps[len(steps)-1] += fmt.Sprintf(", device %q", d)
	} else {
		steps[len(steps)-1] += " on the active device (if there is none, list_devices and ask me which)"
	}
	if shuffle != "" {
		steps = append(steps, "control_playback with action shuffle, on "+shuffle)
	}
	steps = append(steps, "get_playback, and tell me in one line what is playing and where")
	for i := range steps {
		steps[i] = strconv.Itoa(i+1) + ". " + steps[i] + "."
	}
	text := fmt.Sprintf("Play my playlist %q.\n%s", name, strings.Join(steps, "\n"))
	return &mcp.GetPromptResult{
		Description: "Play " + name,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// musicFor asks for suggestions for an activity, played or queued only after the user picks.
func musicFor(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
	what := strings.Join(strings.Fields(args["activity"]), " ")
	if len(what) > 100 {
		return nil, fmt.Errorf("activity %q: say in a few words (at most 100 characters) what the music is for", what)
	}
	text := fmt.Sprintf(`Find me music for %q.
1. get_top_items (tracks and artists, medium_term) and get_recently_played, to learn my taste, if those tools are offered.
2. search_music for playlists, albums and tracks that fit %q, and for my top artists' music that fits it.
3. Suggest five to eight options in one short list: name, artist or owner, why it fits, and its URI. Mix what I already like with some I have not heard.
4. When I pick, play it (or add_to_queue for single tracks), on the active device. Play nothing until I pick, and create no playlist unless I ask.`, what, what)
	return &mcp.GetPromptResult{
		Description: "Music for " + strconv.Quote(what),
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// completePlay completes play_playlist's playlist from the user's playlist names and its
// device from the devices online.
func (c *client) completePlay(ctx context.Context, arg, value string, _ map[string]string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, nameTimeout)
	defer cancel()
	var names []string
	switch arg {
	case "playlist":
		lists, err := c.myPlaylists(ctx)
		if err != nil {
			return nil, c.fail(ctx, err, "your playlists")
		}
		for _, p := range lists {
			names = append(names, p.Name)
		}
	case "device":
		devs, err := c.devices(ctx)
		if err != nil {
			return nil, c.fail(ctx, err, "your devices")
		}
		for _, d := range devs {
			names = append(names, d.Name)
		}
	case "shuffle":
		names = []string{"no", "yes"}
	}
	return matching(names, value), nil
}

// completeActivity completes music_for's activity from common activities.
func completeActivity(_ context.Context, arg, value string, _ map[string]string) ([]string, error) {
	if arg != "activity" {
		return nil, nil
	}
	return matching(activities, value), nil
}

// matching returns the names that start with value (any case) first, then those containing
// it, each group sorted, without repeats.
func matching(names []string, value string) []string {
	v := strings.ToLower(strings.TrimSpace(value))
	var first, then []string
	for _, n := range names {
		l := strings.ToLower(n)
		switch {
		case strings.HasPrefix(l, v):
			first = append(first, n)
		case strings.Contains(l, v):
			then = append(then, n)
		}
	}
	slices.Sort(first)
	slices.Sort(then)
	return append(slices.Compact(first), slices.Compact(then)...)
}

// myPlaylists returns the user's playlists, owned and followed, up to namePages pages.
func (c *client) myPlaylists(ctx context.Context) ([]apiPlaylist, error) {
	var all []apiPlaylist
	for page := range namePages {
		var p struct {
			Items []apiPlaylist `json:"items"`
			Next  string        `json:"next"`
		}
		q := url.Values{"limit": {"50"}, "offset": {strconv.Itoa(page * 50)}}
		if err := c.do(ctx, "GET", "me/playlists", q, nil, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if p.Next == "" {
			break
		}
	}
	return all, nil
}

// playlistNamed returns the URI of the user's playlist called name (any case), "" for none.
func (c *client) playlistNamed(ctx context.Context, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, nameTimeout)
	defer cancel()
	lists, err := c.myPlaylists(ctx)
	if err != nil {
		return "", err
	}
	for _, p := range lists {
		if strings.EqualFold(p.Name, name) {
			return p.URI, nil
		}
	}
	return "", nil
}
