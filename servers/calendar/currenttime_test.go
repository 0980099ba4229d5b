package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestCurrentTimeWithoutSignIn: get_current_time answers without a Google sign-in, in the zone
// the argument names or else the server's, and says where the zone came from and why.
func TestCurrentTimeWithoutSignIn(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec(), append(googletest.SignedOut(t), "--time-zone", "Asia/Tokyo")...)
	cs := h.Connect(t, "")
	tests := []struct {
		name       string
		args       map[string]any
		wantZone   string
		wantOffset string
		wantSource string
		wantNote   string
	}{
		{"server zone", nil, "Asia/Tokyo", "+09:00", zoneFromServer, "Google sign-in missing: run `calendar auth login`"},
		{"argument", map[string]any{"time_zone": "America/Sao_Paulo"}, "America/Sao_Paulo", "-03:00", zoneFromArgument, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			got, res := mcptest.CallFor[currentTimeOutput](t, cs, "get_current_time", tt.args)
			if got.TimeZone != tt.wantZone || got.UTCOffset != tt.wantOffset || got.ZoneSource != tt.wantSource {
				t.Errorf("got %+v, want zone %s %s from %s", got, tt.wantZone, tt.wantOffset, tt.wantSource)
			}
			if tt.wantNote == "" && got.Note != "" || !strings.Contains(got.Note, tt.wantNote) {
				t.Errorf("note %q, want %q", got.Note, tt.wantNote)
			}
			now, err := time.Parse(time.RFC3339, got.Now)
			if err != nil || now.Before(before.Truncate(time.Second)) || now.After(time.Now()) || got.Date != now.Format(dateLayout) || got.Weekday != now.Weekday().String() {
				t.Errorf("now %q (%v), date %s %s: not the current time", got.Now, err, got.Date, got.Weekday)
			}
			if text := mcptest.Text(res); !strings.Contains(text, "zone from the "+tt.wantSource) {
				t.Errorf("text %q does not say where the zone came from", text)
			}
		})
	}
	if msg := mcptest.CallError(t, cs, "get_current_time", map[string]any{"time_zone": "Mars/Olympus"}); !strings.Contains(msg, "unknown time zone") {
		t.Errorf("bad zone: %q", msg)
	}
}

func TestServerZone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "localtime")
	if err := os.Symlink("/usr/share/zoneinfo/America/Chicago", link); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("TZif"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, tz, localtime string
		want, wantErr             string
	}{
		{"flag wins", "Europe/Paris", "Asia/Tokyo", link, "Europe/Paris", ""},
		{"TZ", "", "Asia/Tokyo", link, "Asia/Tokyo", ""},
		{"TZ with colon", "", ":Africa/Lagos", link, "Africa/Lagos", ""},
		{"TZ as a path", "", "/usr/share/zoneinfo/Europe/Oslo", link, "Europe/Oslo", ""},
		{"localtime link", "", "", link, "America/Chicago", ""},
		{"localtime not a link", "", "", plain, "UTC", ""},
		{"no localtime", "", "", filepath.Join(dir, "none"), "UTC", ""},
		{"bad flag", "Nowhere/City", "", link, "", "--time-zone: unknown time zone"},
		{"bad TZ", "", "Nowhere/City", link, "", "$TZ: unknown time zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := serverZone(tt.flag, func(k string) string { return map[string]string{"TZ": tt.tz}[k] }, tt.localtime)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || loc.String() != tt.want {
				t.Fatalf("zone %v (%v), want %s", loc, err, tt.want)
			}
		})
	}

	var stderr bytes.Buffer
	if code := kit.Run(t.Context(), spec(), []string{"--time-zone", "Nowhere/City", "--list-tools"}, func(string) string { return "" }, &stderr, &stderr); code != 2 || !strings.Contains(stderr.String(), "--time-zone: unknown time zone") {
		t.Errorf("bad --time-zone: exit %d: %s", code, stderr.String())
	}
}

// TestCurrentTimeGoogleDown: signed in, but Google does not answer: the server's zone, and why.
func TestCurrentTimeGoogleDown(t *testing.T) {
	t.Parallel()
	f := newFakeCalendar(t)
	h := mcptest.Start(t, spec(), append(signIn(t, f), "--calendar-endpoint", "http://127.0.0.1:1/calendar/v3/", "--time-zone", "Asia/Tokyo")...)
	cs := h.Connect(t, "")
	got, _ := mcptest.CallFor[currentTimeOutput](t, cs, "get_current_time", nil)
	if got.TimeZone != "Asia/Tokyo" || got.ZoneSource != zoneFromServer || !strings.Contains(got.Note, "Not the calendar's time zone but the server's: ") {
		t.Errorf("got %+v", got)
	}
}
