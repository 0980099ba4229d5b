package main

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The Web API shapes the tools read, as the February 2026 API sends them, and the calls that
// fetch them. Every call goes through client.do.

type apiArtist struct {
	Name   string   `json:"name"`
	URI    string   `json:"uri"`
	Genres []string `json:"genres"`
}

type apiAlbum struct {
	Name        string      `json:"name"`
	URI         string      `json:"uri"`
	AlbumType   string      `json:"album_type"` // album, single or compilation
	TotalTracks int         `json:"total_tracks"`
	ReleaseDate string      `json:"release_date"`
	Artists     []apiArtist `json:"artists"`
	Genres      []string    `json:"genres"`
	Tracks      struct {
		Items []apiTrack `json:"items"`
		Total int        `json:"total"`
	} `json:"tracks"`
}

// apiTrack is a track or an episode (an episode has a show instead of artists and an album).
type apiTrack struct {
	Name        string      `json:"name"`
	URI         string      `json:"uri"`
	Type        string      `json:"type"`
	DurationMS  int         `json:"duration_ms"`
	ReleaseDate string      `json:"release_date"`
	Artists     []apiArtist `json:"artists"`
	Album       *apiAlbum   `json:"album"`
	Show        *apiShow    `json:"show"`
}

type apiShow struct {
	Name      string `json:"name"`
	URI       string `json:"uri"`
	Publisher string `json:"publisher"`
}

type apiDevice struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Type          string `json:"type"`
	IsActive      bool   `json:"is_active"`
	IsRestricted  bool   `json:"is_restricted"`
	VolumePercent int    `json:"volume_percent"`
}

type apiPlayback struct {
	Device       *apiDevice `json:"device"`
	IsPlaying    bool       `json:"is_playing"`
	ProgressMS   int        `json:"progress_ms"`
	ShuffleState bool       `json:"shuffle_state"`
	RepeatState  string     `json:"repeat_state"`
	Context      *struct {
		URI string `json:"uri"`
	} `json:"context"`
	Item *apiTrack `json:"item"`
}

type apiQueue struct {
	CurrentlyPlaying *apiTrack  `json:"currently_playing"`
	Queue            []apiTrack `json:"queue"`
}

// apiPage is one page of a paged answer.
type apiPage[T any] struct {
	Items []T    `json:"items"`
	Total int    `json:"total"`
	Next  string `json:"next"`
}

type apiSearch struct {
	Tracks    *apiPage[apiTrack]    `json:"tracks"`
	Albums    *apiPage[apiAlbum]    `json:"albums"`
	Artists   *apiPage[apiArtist]   `json:"artists"`
	Playlists *apiPage[apiPlaylist] `json:"playlists"`
	Shows     *apiPage[apiShow]     `json:"shows"`
	Episodes  *apiPage[apiTrack]    `json:"episodes"`
}

// apiSaved is an entry of GET /me/tracks, /me/albums or /me/shows: one of the three is set.
type apiSaved struct {
	Track *apiTrack `json:"track"`
	Album *apiAlbum `json:"album"`
	Show  *apiShow  `json:"show"`
}

type apiPlayed struct {
	Track    apiTrack  `json:"track"`
	PlayedAt time.Time `json:"played_at"`
}

func artistNames(as []apiArtist) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

func (t *apiTrack) compact() track {
	out := track{Name: t.Name, URI: t.URI, Artists: artistNames(t.Artists), DurationMS: t.DurationMS}
	if t.Album != nil {
		out.Album = t.Album.Name
	}
	if t.Show != nil {
		out.Artists = t.Show.Name
	}
	return out
}

func (d apiDevice) compact() device {
	return device{ID: d.ID, Name: d.Name, Type: d.Type, Active: d.IsActive, Restricted: d.IsRestricted, Volume: d.VolumePercent}
}

func (c *client) devices(ctx context.Context) ([]apiDevice, error) {
	var out struct {
		Devices []apiDevice `json:"devices"`
	}
	err := c.do(ctx, "GET", "me/player/devices", nil, nil, &out)
	return out.Devices, err
}

// playback is the player's state; nil when nothing is playing and no device is active (204).
func (c *client) playback(ctx context.Context) (*apiPlayback, error) {
	var st *apiPlayback
	err := c.do(ctx, "GET", "me/player", url.Values{"additional_types": {"track,episode"}}, nil, &st)
	return st, err
}

// command sends one player command to a device ("" is the active one).
func (c *client) command(ctx context.Context, method, path, deviceID string, q url.Values, body any) error {
	if q == nil {
		q = url.Values{}
	}
	if deviceID != "" {
		q.Set("device_id", deviceID)
	}
	return c.do(ctx, method, path, q, body, nil)
}

func (c *client) search(ctx context.Context, query string, types []string, limit, offset int) (*apiSearch, error) {
	var res apiSearch
	q := url.Values{"q": {query}, "type": {strings.Join(types, ",")}, "limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}}
	if err := c.do(ctx, "GET", "search", q, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// object fetches one catalog object (tracks/ID, albums/ID, artists/ID) into out.
func (c *client) object(ctx context.Context, kind, id string, out any) error {
	return c.do(ctx, "GET", kind+"s/"+url.PathEscape(id), nil, nil, out)
}
