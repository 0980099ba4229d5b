package main

import (
	"flag"
	"io"
	"net/netip"
	"strings"
	"testing"
)

// TestAllowPrivateHostsSpellings: --allow-private-hosts opens an address to the browser; the
// old --allow-hosts still does, and both at once are refused.
func TestAllowPrivateHostsSpellings(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"new spelling", []string{"--allow-private-hosts", "127.0.0.1/32"}, ""},
		{"old spelling", []string{"--allow-hosts", "127.0.0.1/32"}, ""},
		{"both", []string{"--allow-hosts", "127.0.0.1/32", "--allow-private-hosts", "10.0.0.1"}, "give only --allow-private-hosts"},
		{"bad entry", []string{"--allow-private-hosts", "a b"}, "--allow-private-hosts: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &options{}
			fs := flag.NewFlagSet("browser", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.finish(t.TempDir(), func(string) string { return "" })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("finish: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := o.policy.CheckIP("127.0.0.1", netip.MustParseAddr("127.0.0.1")); err != nil {
				t.Errorf("127.0.0.1 not opened: %v", err)
			}
			if err := o.policy.CheckIP("10.0.0.2", netip.MustParseAddr("10.0.0.2")); err == nil {
				t.Error("10.0.0.2 opened too")
			}
		})
	}
}
