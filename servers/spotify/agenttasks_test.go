package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the Spotify server's part of the agent task suite (docs/agent-tasks.md)
// against the Web API fake, signed in, a fresh one per task.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "spotify", func(t *testing.T) *mcp.ClientSession { return start(t, true).cs }, spotifyTasks)
}

var spotifyTasks = []agenttask.Task{
	{Name: "play-a-song", Ask: "Play a song by Radiohead.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_music", map[string]any{"query": "artist:Radiohead", "limit": 5})
			uri := a.Find(hits, "a track's URI", `(spotify:track:\w+)`)
			played := a.Call("play", map[string]any{"uri": uri})
			a.Has(played, uri)
		}},
	{Name: "queue-next", Ask: "Queue another track after this one.",
		Run: func(a *agenttask.Agent) {
			now := a.Call("get_playback", map[string]any{})
			a.Find(now, "what is playing", `(spotify:(?:track|episode):\w+)`)
			hits := a.Call("search_music", map[string]any{"query": "upbeat", "limit": 5})
			uri := a.Find(hits, "a track's URI", `(spotify:track:\w+)`)
			queued := a.Call("add_to_queue", map[string]any{"uri": uri})
			a.Has(queued, uri)
		}},
	{Name: "add-to-playlist", Ask: "Add the first song you find for 'running' to my Running playlist.",
		Run: func(a *agenttask.Agent) {
			lists := a.Call("list_playlists", map[string]any{})
			pl := a.Find(lists, "the Running playlist's URI", `Running\W[^\n]*?(spotify:playlist:\w+)`)
			hits := a.Call("search_music", map[string]any{"query": "running", "limit": 3})
			uri := a.Find(hits, "a track's URI", `(spotify:track:\w+)`)
			added := a.Call("edit_playlist_items", map[string]any{"playlist": pl, "action": "add", "uris": []string{uri}})
			a.Has(added, "Added 1 item")
		}},
	{Name: "move-to-phone", Ask: "Move the music to my phone.",
		Run: func(a *agenttask.Agent) {
			devs := a.Call("list_devices", map[string]any{})
			id := a.Find(devs, "the phone's device id", `Smartphone[^\n]*\bid ([\w-]+)`)
			moved := a.Call("transfer_playback", map[string]any{"device": id})
			a.Has(moved, id)
		}},
}
