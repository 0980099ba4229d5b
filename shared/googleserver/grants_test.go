package googleserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
)

// TestRequire: a sign-in without a service's scopes is refused before Google is called, with
// the login that adds the service and keeps the others; with them, or with no usable sign-in
// (reported by the call itself), it passes.
func TestRequire(t *testing.T) {
	t.Parallel()
	const drive, gmail, tasks = "https://www.googleapis.com/auth/drive", "https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.settings.basic", "https://www.googleapis.com/auth/tasks"
	for _, tt := range []struct {
		name   string
		scopes []string
		extra  []string
		want   string
	}{
		{"granted", []string{drive, tasks}, nil, ""},
		{"missing", append([]string{drive}, strings.Fields(gmail)...), nil, "the Google sign-in of ada@example.com does not grant Google Drive: run `drive auth login --services drive,gmail,tasks` (the services it has, plus tasks) and call again"},
		{"read-only server", []string{"https://www.googleapis.com/auth/drive.readonly"}, []string{"--read-only"}, "run `drive auth login --services drive,tasks --read-only`"},
		{"read-only grant of tasks is enough read-only", []string{"https://www.googleapis.com/auth/drive.readonly", "https://www.googleapis.com/auth/tasks.readonly"}, []string{"--read-only"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), tt.scopes...), tt.extra...)
			acct, err := open(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			err = acct.Require(context.Background(), "tasks")
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Require = %v, want %q", err, tt.want)
			}
		})
	}
	acct, err := open(t, googletest.SignedOut(t)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := acct.Require(context.Background(), "tasks"); err != nil {
		t.Errorf("no sign-in: %v (the call reports it)", err)
	}
}
