package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the spotify server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "playback",
			Description:  "Control playback, devices and the queue",
			Instructions: "Playback needs Premium and a device: list_devices names them; pass device (name or id) to play, transfer_playback or the other controls; with none active and one online, commands go to that one. play takes a Spotify URI/URL or a search query.",
			Tools:        []string{"play", "control_playback", "transfer_playback", "get_playback", "list_devices", "add_to_queue", "get_queue"},
		},
		{
			Name:         "catalog",
			Description:  "Search music and look up albums, artists and tracks",
			Instructions: "Spotify no longer offers recommendations or related artists: build suggestions from get_top_items, get_recently_played and search_music.",
			Tools:        []string{"search_music", "get_item", "get_album_tracks", "get_artist_albums"},
		},
		{
			Name:        "library",
			Description: "Saved items, recently played and top items",
			Tools:       []string{"list_saved", "edit_library", "get_recently_played", "get_top_items"},
		},
		{
			Name:        "playlists",
			Description: "Read, create and change playlists",
			Tools:       []string{"list_playlists", "get_playlist_items", "create_playlist", "update_playlist", "edit_playlist_items"},
		},
	}
}
