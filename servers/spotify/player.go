package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// track is the compact form of a track (or episode) in every answer.
type track struct {
	Name       string `json:"name"`
	URI        string `json:"uri"`
	Artists    string `json:"artists,omitempty"`
	Album      string `json:"album,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"`
}

func (t track) String() string {
	s := t.Name
	if t.Artists != "" {
		s += " — " + t.Artists
	}
	return s + " (" + t.URI + ")"
}

type device struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	Active     bool   `json:"active"`
	Restricted bool   `json:"restricted,omitempty"`
	Volume     int    `json:"volume_percent"`
}

func addPlayerTools(s *kit.Server, c *client) {
	ro := func(name, desc string) kit.Tool {
		return kit.Tool{Name: name, Toolset: toolsetPlayback, Description: desc, ReadOnly: true, Idempotent: true, OpenWorld: true, Timeout: 30 * time.Second}
	}
	ctl := func(name, desc string, idem bool) kit.Tool {
		return kit.Tool{Name: name, Toolset: toolsetPlayback, Description: desc, Idempotent: idem, OpenWorld: true, Timeout: 30 * time.Second}
	}
	kit.AddTool(s, ro("get_playback", "What Spotify is playing now: track, device, progress, shuffle and repeat."), c.getPlayback)
	kit.AddTool(s, ctl("play", "Start or resume playback: a track, album, playlist, artist or show by URI or search query.", false), c.play)
	kit.AddTool(s, ctl("control_playback", "Pause, skip to the next or previous track, seek, or set volume, shuffle or repeat.", false), c.controlPlayback)
	kit.AddTool(s, ro("list_devices", "List the Spotify devices available for playback."), c.listDevices)
	kit.AddTool(s, ctl("transfer_playback", "Move Spotify playback to another device, by name or id.", true), c.transferPlayback)
	kit.AddTool(s, ro("get_queue", "Show the Spotify playback queue."), c.getQueue)
	kit.AddTool(s, ctl("add_to_queue", "Add a track or episode (URI or search query) to the Spotify queue.", false), c.addToQueue)
}

type deviceInput struct {
	Device string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

type playbackOutput struct {
	Playing    bool    `json:"playing"`
	Item       *track  `json:"item,omitempty"`
	ProgressMS int     `json:"progress_ms"`
	Device     *device `json:"device,omitempty"`
	Shuffle    bool    `json:"shuffle"`
	Repeat     string  `json:"repeat"`
	Context    string  `json:"context,omitempty"`
	Message    string  `json:"message,omitempty"`
}

func (o playbackOutput) Text() string {
	if o.Message != "" {
		return o.Message
	}
	state := "Paused"
	if o.Playing {
		state = "Playing"
	}
	s := state
	if o.Item != nil {
		s += ": " + o.Item.String() + fmt.Sprintf(" at %s/%s", clock(o.ProgressMS), clock(o.Item.DurationMS))
	}
	if o.Device != nil {
		s += fmt.Sprintf(" on %q (%s, volume %d%%)", o.Device.Name, o.Device.Type, o.Device.Volume)
	}
	return s + fmt.Sprintf("; shuffle %v, repeat %s", map[bool]string{true: "on", false: "off"}[o.Shuffle], o.Repeat)
}

func clock(ms int) string {
	d := time.Duration(ms) * time.Millisecond
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

func (c *client) getPlayback(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, playbackOutput, error) {
	st, err := c.playback(ctx)
	if err != nil {
		return nil, playbackOutput{}, c.fail(ctx, err, "playback")
	}
	if st == nil || (st.Device == nil || st.Device.ID == "" && st.Device.Name == "") && st.Item == nil {
		return nil, playbackOutput{Message: "Nothing is playing and no device is active. " + c.deviceHint(ctx)}, nil
	}
	out := playbackOutput{Playing: st.IsPlaying, ProgressMS: st.ProgressMS, Shuffle: st.ShuffleState, Repeat: st.RepeatState}
	if st.Context != nil {
		out.Context = st.Context.URI
	}
	if st.Item != nil {
		t := st.Item.compact()
		out.Item = &t
	}
	if st.Device != nil && (st.Device.ID != "" || st.Device.Name != "") {
		d := st.Device.compact()
		out.Device = &d
	}
	return nil, out, nil
}

type playInput struct {
	URI    string `json:"uri,omitempty" jsonschema:"URI or link of a track, episode, album, playlist, artist, show"`
	Query  string `json:"query,omitempty" jsonschema:"search instead of uri"`
	Type   string `json:"type,omitempty" jsonschema:"what query looks for" schema:"enum=track|album|artist|playlist|show,default=track"`
	Device string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

type doneOutput struct {
	Message string `json:"message"`
	URI     string `json:"uri,omitempty"`
}

func (o doneOutput) Text() string { return o.Message }

func (c *client) play(ctx context.Context, _ *mcp.CallToolRequest, in playInput) (*mcp.CallToolResult, doneOutput, error) {
	if in.URI != "" && in.Query != "" {
		return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "give uri or query, not both")
	}
	dev, err := c.resolveDevice(ctx, in.Device)
	if err != nil {
		return nil, doneOutput{}, err
	}
	var body any // nil resumes what was playing
	what, uri := "", ""
	switch {
	case in.Query != "":
		uri, what, err = c.searchFirst(ctx, in.Query, in.Type)
		if err != nil {
			return nil, doneOutput{}, err
		}
	case in.URI != "":
		uri, _, _, err = parseURI(in.URI, "")
		if err != nil {
			return nil, doneOutput{}, err
		}
		what = uri
	}
	if uri != "" {
		switch kind := strings.Split(uri, ":")[1]; kind {
		case "track", "episode":
			body = map[string]any{"uris": []string{uri}}
		case "album", "playlist", "artist", "show":
			body = map[string]any{"context_uri": uri}
		default:
			return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "cannot play a %s; give a track, episode, album, playlist, artist or show", kind)
		}
	}
	moved, err := c.onDevice(ctx, dev, body == nil, func(dev string) error {
		return c.command(ctx, "PUT", "me/player/play", dev, nil, body)
	})
	if err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "the item")
	}
	msg := "Resumed playback"
	if what != "" {
		msg = "Playing " + what
	}
	if in.Device != "" {
		msg += " on " + in.Device
	}
	return nil, doneOutput{Message: msg + moved, URI: uri}, nil
}

// onDevice sends a player command to dev ("" is the active device). When no device was named
// and none is active but exactly one online device takes commands, it moves playback there
// (PUT /me/player, playing when resume is set: that move is then the whole command) and sends
// the command to it, and returns a note naming the device; with none or several, Spotify's
// error is returned and fail lists the devices.
func (c *client) onDevice(ctx context.Context, dev string, resume bool, send func(dev string) error) (string, error) {
	err := send(dev)
	if dev != "" || !noActiveDevice(err) {
		return "", err
	}
	devs, derr := c.devices(ctx)
	if derr != nil {
		return "", err
	}
	var usable []apiDevice
	for _, d := range devs {
		if d.ID != "" && !d.IsRestricted {
			usable = append(usable, d)
		}
	}
	if len(usable) != 1 {
		return "", err
	}
	d := usable[0]
	if terr := c.transfer(ctx, d.ID, resume); terr != nil {
		return "", kit.Errorf(kit.CodeUnavailable, "no Spotify device was active, and moving playback to %q, the only one online, failed: %s", d.Name, c.fail(ctx, terr, "device "+d.Name).Error())
	}
	note := fmt.Sprintf(" on %q (no device was active; playback moved to the only one online)", d.Name)
	if resume {
		return note, nil
	}
	return note, send(d.ID)
}

// transfer moves playback to a device: PUT /me/player.
func (c *client) transfer(ctx context.Context, id string, play bool) error {
	return c.do(ctx, "PUT", "me/player", nil, map[string]any{"device_ids": []string{id}, "play": play}, nil)
}

// searchFirst finds the best match of a query for one kind of item (track, album, …): its
// URI and a description.
func (c *client) searchFirst(ctx context.Context, q, kind string) (string, string, error) {
	res, err := c.search(ctx, q, []string{kind}, 1, 0) // kind: play's schema enum, or "track"
	if err != nil {
		return "", "", c.fail(ctx, err, "search")
	}
	items := searchItems(res)
	if len(items) == 0 {
		return "", "", kit.Errorf(kit.CodeNotFound, "no %s found for %q on Spotify", kind, q)
	}
	return items[0].URI, items[0].describe(), nil
}

// pause pauses; with no device named and none active nothing is playing, which is what pause
// asks for.
func (c *client) pause(ctx context.Context, _ *mcp.CallToolRequest, in deviceInput) (*mcp.CallToolResult, doneOutput, error) {
	dev, err := c.resolveDevice(ctx, in.Device)
	if err != nil {
		return nil, doneOutput{}, err
	}
	err = c.command(ctx, "PUT", "me/player/pause", dev, nil, nil)
	switch {
	case dev == "" && noActiveDevice(err):
		return nil, doneOutput{Message: "Nothing is playing: no Spotify device is active"}, nil
	case err != nil:
		return nil, doneOutput{}, c.fail(ctx, err, "playback")
	}
	return nil, doneOutput{Message: "Paused"}, nil
}

func (c *client) nextTrack(ctx context.Context, _ *mcp.CallToolRequest, in deviceInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.control(ctx, in.Device, "Skipped to the next track", "POST", "me/player/next", nil)
}

func (c *client) previousTrack(ctx context.Context, _ *mcp.CallToolRequest, in deviceInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.control(ctx, in.Device, "Went back to the previous track", "POST", "me/player/previous", nil)
}

// control resolves the device and sends one player command.
func (c *client) control(ctx context.Context, deviceName, msg, method, path string, q url.Values) (*mcp.CallToolResult, doneOutput, error) {
	dev, err := c.resolveDevice(ctx, deviceName)
	if err != nil {
		return nil, doneOutput{}, err
	}
	moved, err := c.onDevice(ctx, dev, false, func(dev string) error {
		return c.command(ctx, method, path, dev, q, nil)
	})
	if err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "playback")
	}
	return nil, doneOutput{Message: msg + moved}, nil
}

type seekInput struct {
	PositionMS int    `json:"position_ms" jsonschema:"position in milliseconds from the start of the track" schema:"minimum=0"`
	Device     string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

func (c *client) seek(ctx context.Context, _ *mcp.CallToolRequest, in seekInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.control(ctx, in.Device, "Moved to "+clock(in.PositionMS), "PUT", "me/player/seek", url.Values{"position_ms": {strconv.Itoa(in.PositionMS)}})
}

type volumeInput struct {
	Percent int    `json:"percent" jsonschema:"the volume in percent" schema:"minimum=0,maximum=100"`
	Device  string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

func (c *client) setVolume(ctx context.Context, _ *mcp.CallToolRequest, in volumeInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.control(ctx, in.Device, fmt.Sprintf("Volume set to %d%%", in.Percent), "PUT", "me/player/volume", url.Values{"volume_percent": {strconv.Itoa(in.Percent)}})
}

type shuffleInput struct {
	On     bool   `json:"on" jsonschema:"true to shuffle"`
	Device string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

func (c *client) setShuffle(ctx context.Context, _ *mcp.CallToolRequest, in shuffleInput) (*mcp.CallToolResult, doneOutput, error) {
	msg := map[bool]string{true: "Shuffle on", false: "Shuffle off"}[in.On]
	return c.control(ctx, in.Device, msg, "PUT", "me/player/shuffle", url.Values{"state": {strconv.FormatBool(in.On)}})
}

type repeatInput struct {
	Mode   string `json:"mode" jsonschema:"repeat the current track, its context (the album or playlist), or nothing" schema:"enum=track|context|off"`
	Device string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

func (c *client) setRepeat(ctx context.Context, _ *mcp.CallToolRequest, in repeatInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.control(ctx, in.Device, "Repeat "+in.Mode, "PUT", "me/player/repeat", url.Values{"state": {in.Mode}})
}

type devicesOutput struct {
	Devices []device `json:"devices"`
}

func (o devicesOutput) Text() string {
	if len(o.Devices) == 0 {
		return "No Spotify devices are online: open Spotify on a phone, computer or speaker."
	}
	lines := make([]string, len(o.Devices))
	for i, d := range o.Devices {
		mark := ""
		if d.Active {
			mark = " [active]"
		}
		lines[i] = fmt.Sprintf("%s (%s, volume %d%%, id %s)%s", d.Name, d.Type, d.Volume, d.ID, mark)
	}
	return strings.Join(lines, "\n")
}

func (c *client) listDevices(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, devicesOutput, error) {
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, devicesOutput{}, c.fail(ctx, err, "the device list")
	}
	out := devicesOutput{Devices: make([]device, 0, len(devs))}
	for _, d := range devs {
		out.Devices = append(out.Devices, d.compact())
	}
	return nil, out, nil
}

type transferInput struct {
	Device string `json:"device" jsonschema:"device name or id to move playback to (see list_devices)" schema:"minLength=1"`
	Play   bool   `json:"play,omitempty" jsonschema:"start playing there"`
}

func (c *client) transferPlayback(ctx context.Context, _ *mcp.CallToolRequest, in transferInput) (*mcp.CallToolResult, doneOutput, error) {
	if strings.TrimSpace(in.Device) == "" {
		return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "device is blank: give a name or id from list_devices")
	}
	dev, err := c.resolveDevice(ctx, in.Device)
	if err != nil {
		return nil, doneOutput{}, err
	}
	if err := c.transfer(ctx, dev, in.Play); err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "device "+in.Device)
	}
	return nil, doneOutput{Message: "Playback moved to " + in.Device}, nil
}

type queueOutput struct {
	Current *track  `json:"current,omitempty"`
	Queue   []track `json:"queue"`
}

func (o queueOutput) Text() string {
	var b strings.Builder
	if o.Current != nil {
		b.WriteString("Now: " + o.Current.String() + "\n")
	}
	if len(o.Queue) == 0 {
		b.WriteString("The queue is empty.")
	}
	for i, t := range o.Queue {
		fmt.Fprintf(&b, "%d. %s\n", i+1, t)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (c *client) getQueue(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, queueOutput, error) {
	var q apiQueue
	if err := c.do(ctx, "GET", "me/player/queue", nil, nil, &q); err != nil {
		return nil, queueOutput{}, c.fail(ctx, err, "the queue")
	}
	out := queueOutput{Queue: make([]track, 0, len(q.Queue))}
	if q.CurrentlyPlaying != nil && q.CurrentlyPlaying.URI != "" {
		t := q.CurrentlyPlaying.compact()
		out.Current = &t
	}
	for i := range q.Queue {
		out.Queue = append(out.Queue, q.Queue[i].compact())
	}
	return nil, out, nil
}

type queueInput struct {
	URI    string `json:"uri,omitempty" jsonschema:"track or episode URI or link"`
	Query  string `json:"query,omitempty" jsonschema:"search for a track instead of uri"`
	Device string `json:"device,omitempty" jsonschema:"device name or id (default: the active device)"`
}

func (c *client) addToQueue(ctx context.Context, _ *mcp.CallToolRequest, in queueInput) (*mcp.CallToolResult, doneOutput, error) {
	var uri, what string
	var err error
	switch {
	case in.URI != "" && in.Query != "":
		return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "give uri or query, not both")
	case in.Query != "":
		uri, what, err = c.searchFirst(ctx, in.Query, "track")
	case in.URI != "":
		var kind string
		uri, kind, _, err = parseURI(in.URI, "track")
		if err == nil && kind != "track" && kind != "episode" {
			err = kit.Errorf(kit.CodeInvalidInput, "only tracks and episodes can be queued, not a %s", kind)
		}
		what = uri
	default:
		err = kit.Errorf(kit.CodeInvalidInput, "give uri or query")
	}
	if err != nil {
		return nil, doneOutput{}, err
	}
	dev, err := c.resolveDevice(ctx, in.Device)
	if err != nil {
		return nil, doneOutput{}, err
	}
	moved, err := c.onDevice(ctx, dev, false, func(dev string) error {
		return c.command(ctx, "POST", "me/player/queue", dev, url.Values{"uri": {uri}}, nil)
	})
	if err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, uri)
	}
	return nil, doneOutput{Message: "Queued " + what + moved, URI: uri}, nil
}
