package main

import "github.com/jck411/mcp-servers/shared/kit"

// The spotify server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetPlayback  kit.ToolsetID = "playback"
	toolsetCatalog   kit.ToolsetID = "catalog"
	toolsetLibrary   kit.ToolsetID = "library"
	toolsetPlaylists kit.ToolsetID = "playlists"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetPlayback, Description: "Control playback, devices and the queue", Instructions: "Playback needs Premium and a device: list_devices names them; pass device (name or id) to play, transfer_playback or the other controls; with none active and one online, commands go to that one. play takes a Spotify URI/URL or a search query."},
		{ID: toolsetCatalog, Description: "Search music and look up albums, artists and tracks", Instructions: "Spotify no longer offers recommendations or related artists: build suggestions from get_top_items, get_recently_played and search_music."},
		{ID: toolsetLibrary, Description: "Saved items, recently played and top items"},
		{ID: toolsetPlaylists, Description: "Read, create and change playlists"},
	}
}
