package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// controlInput is control_playback's input: one action on the current playback, with the
// value that action takes. The seven single-verb controls shared the device argument and their
// one value each; one tool carries them at a seventh of the cost to every request.
type controlInput struct {
	Action     string `json:"action" jsonschema:"what to do" schema:"enum=pause|next|previous|seek|volume|shuffle|repeat"`
	PositionMS *int   `json:"position_ms,omitempty" jsonschema:"seek: milliseconds from the start" schema:"minimum=0"`
	Percent    *int   `json:"percent,omitempty" jsonschema:"volume: 0 to 100" schema:"minimum=0,maximum=100"`
	On         *bool  `json:"on,omitempty" jsonschema:"shuffle: true to shuffle, false to stop"`
	Mode       string `json:"mode,omitempty" jsonschema:"repeat: track, context (album, playlist) or off" schema:"enum=track|context|off"`
	Device     string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

// controlPlayback runs one playback action through the handler that does it.
func (c *client) controlPlayback(ctx context.Context, req *mcp.CallToolRequest, in controlInput) (*mcp.CallToolResult, doneOutput, error) {
	need := func(name string) error {
		return kit.Errorf(kit.CodeInvalidInput, "action %s needs %s", in.Action, name)
	}
	dev := deviceInput{Device: in.Device}
	switch in.Action {
	case "pause":
		return c.pause(ctx, req, dev)
	case "next":
		return c.nextTrack(ctx, req, dev)
	case "previous":
		return c.previousTrack(ctx, req, dev)
	case "seek":
		if in.PositionMS == nil {
			return nil, doneOutput{}, need("position_ms")
		}
		return c.seek(ctx, req, seekInput{PositionMS: *in.PositionMS, Device: in.Device})
	case "volume":
		if in.Percent == nil {
			return nil, doneOutput{}, need("percent")
		}
		return c.setVolume(ctx, req, volumeInput{Percent: *in.Percent, Device: in.Device})
	case "shuffle":
		if in.On == nil {
			return nil, doneOutput{}, need("on")
		}
		return c.setShuffle(ctx, req, shuffleInput{On: *in.On, Device: in.Device})
	case "repeat":
		if in.Mode == "" {
			return nil, doneOutput{}, need("mode")
		}
		return c.setRepeat(ctx, req, repeatInput{Mode: in.Mode, Device: in.Device})
	}
	return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "unknown action %q: give pause, next, previous, seek, volume, shuffle or repeat", in.Action)
}
