package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestOnlyDeviceTakesOver: with nothing active and exactly one device that takes commands
// online, a command moves playback there (PUT /me/player) and is sent to it, instead of
// failing with NO_ACTIVE_DEVICE.
func TestOnlyDeviceTakesOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		calls []string // after the refused command, in order
		msg   string
	}{
		{"play", map[string]any{"uri": "spotify:album:al1"}, []string{
			`PUT /v1/me/player {"device_ids":["dev-kitchen"],"play":false}`,
			`PUT /v1/me/player/play?device_id=dev-kitchen {"context_uri":"spotify:album:al1"}`,
		}, `Playing spotify:album:al1 on "Kitchen speaker" (no device was active; playback moved to the only one online)`},
		{"play", map[string]any{}, []string{ // resume: the move itself resumes
			`PUT /v1/me/player {"device_ids":["dev-kitchen"],"play":true}`,
		}, `Resumed playback on "Kitchen speaker"`},
		{"control_playback", map[string]any{"action": "next"}, []string{
			`PUT /v1/me/player {"device_ids":["dev-kitchen"],"play":false}`,
			`POST /v1/me/player/next?device_id=dev-kitchen`,
		}, `Skipped to the next track on "Kitchen speaker"`},
		{"control_playback", map[string]any{"action": "volume", "percent": 30}, []string{
			`PUT /v1/me/player {"device_ids":["dev-kitchen"],"play":false}`,
			`PUT /v1/me/player/volume?device_id=dev-kitchen&volume_percent=30`,
		}, `Volume set to 30% on "Kitchen speaker"`},
		{"add_to_queue", map[string]any{"uri": "spotify:track:t2"}, []string{
			`PUT /v1/me/player {"device_ids":["dev-kitchen"],"play":false}`,
			`POST /v1/me/player/queue?device_id=dev-kitchen&uri=spotify%3Atrack%3At2`,
		}, `Queued spotify:track:t2 on "Kitchen speaker"`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			t.Parallel()
			e := start(t, true)
			// The kitchen speaker, and a TV that takes no Web API commands.
			e.fake.set(func(f *fakeSpotify) { f.active, f.devices = false, []any{devicesJSON[0], restrictedJSON} })
			out, _ := mcptest.CallFor[doneOutput](t, e.cs, tc.tool, tc.args)
			if !strings.HasPrefix(out.Message, tc.msg) {
				t.Errorf("message = %q, want %q", out.Message, tc.msg)
			}
			log := e.fake.log()
			i := len(log) - len(tc.calls)
			if i < 2 || strings.Join(log[i:], "\n") != strings.Join(tc.calls, "\n") || log[i-1] != "GET /v1/me/player/devices" {
				t.Errorf("calls = %q, want devices then %q", log, tc.calls)
			}
		})
	}
}

// TestNoDeviceToTakeOver: with several devices (or none) online and none active, nothing is
// moved and the error names the devices and how to pick one; pause has nothing to do.
func TestNoDeviceToTakeOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		devices []any
		want    string
	}{
		{"several", []any{devicesJSON[0], devicesJSON[1], restrictedJSON}, `no active Spotify device. Devices available: "Kitchen speaker" (Speaker), "Pixel 9" (Smartphone), "Living room TV" (TV, restricted: takes no commands). Pass device (one of these names) to pick one, or call transfer_playback.`},
		{"only restricted", []any{restrictedJSON}, `no active Spotify device. Devices available: "Living room TV" (TV, restricted: takes no commands).`},
		{"none", nil, "no active Spotify device. No devices are online: open Spotify on a phone, computer or speaker (or wake the speaker), then try again."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := start(t, true)
			e.fake.set(func(f *fakeSpotify) { f.active, f.devices = false, tc.devices })
			for _, call := range []struct {
				tool string
				args map[string]any
			}{{"play", map[string]any{}}, {"control_playback", map[string]any{"action": "next"}}, {"control_playback", map[string]any{"action": "shuffle", "on": true}}} {
				if msg := mcptest.CallError(t, e.cs, call.tool, call.args); !strings.HasPrefix(msg, tc.want) {
					t.Errorf("%s %v: %q, want %q", call.tool, call.args, msg, tc.want)
				}
			}
			if c := e.fake.called("PUT /v1/me/player "); c != "" {
				t.Errorf("moved playback: %s", c)
			}
			out, _ := mcptest.CallFor[doneOutput](t, e.cs, "control_playback", map[string]any{"action": "pause"})
			if out.Message != "Nothing is playing: no Spotify device is active" {
				t.Errorf("pause = %q", out.Message)
			}
		})
	}
	// The only device cannot take playback: the answer says what was tried and why it failed.
	e := start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.active, f.devices, f.refuseMove = false, []any{devicesJSON[0]}, true })
	if msg := mcptest.CallError(t, e.cs, "control_playback", map[string]any{"action": "next"}); msg != `no Spotify device was active, and moving playback to "Kitchen speaker", the only one online, failed: device Kitchen speaker not found` {
		t.Errorf("failed move message = %q", msg)
	}
	// A device named explicitly is never replaced by the only-device rule.
	e = start(t, true)
	e.fake.set(func(f *fakeSpotify) { f.active, f.devices = false, []any{devicesJSON[0]} })
	if msg := mcptest.CallError(t, e.cs, "control_playback", map[string]any{"action": "next", "device": "Pixel"}); !strings.Contains(msg, `no single Spotify device matches "Pixel"; devices: "Kitchen speaker"`) {
		t.Errorf("named device message = %q", msg)
	}
}
