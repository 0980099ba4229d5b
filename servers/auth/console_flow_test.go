package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// fleetAnswer is /console/api/fleet's answer.
type fleetAnswer struct {
	Switches fleetSwitches `json:"switches"`
	Servers  []serverState `json:"servers"`
}

func (e *fleetEnv) fleetJSON(t *testing.T, cookie string) fleetAnswer {
	t.Helper()
	status, body, _ := e.consoleReq(t, http.MethodGet, consoleFleetAPIPath, cookie, nil, nil)
	var f fleetAnswer
	if status != http.StatusOK || json.Unmarshal([]byte(body), &f) != nil {
		t.Fatalf("fleet JSON: %d %s", status, body)
	}
	return f
}

func serverOf(f fleetAnswer, name string) serverState {
	for _, s := range f.Servers {
		if s.Name == name {
			return s
		}
	}
	return serverState{}
}

// TestConsoleOverHTTP drives the console as the owner's browser would, over real HTTP against
// two running servers and one that is down: the fleet's state, a tool, a server and the fleet's
// read-only switch turned off and on again (seen in tools/list and in calls that answer
// disabled), the activity of those calls and of the console itself, a server that missed a
// change catching up, and a device revoked (its refresh stops at once).
func TestConsoleOverHTTP(t *testing.T) {
	e := startFleet(t, withConsole(t))
	alphaTok, _ := e.tokenFor(t, "alpha", e.Alpha)
	betaTok, betaRefresh := e.tokenFor(t, "beta", e.Beta)
	cookie := e.consoleSession(t)

	f := e.fleetJSON(t, cookie)
	for _, name := range []string{"alpha", "beta"} {
		s := serverOf(f, name)
		if s.Error != "" || s.Status == nil || s.Status.Health.Status != "ok" || s.Status.Name != name {
			t.Errorf("%s in the fleet: %+v", name, s)
		}
	}
	if g := serverOf(f, "gamma"); g.Status != nil || !strings.Contains(g.Error, "unreachable") {
		t.Errorf("gamma (not running) in the fleet: %+v, want unreachable", g)
	}
	status, page, _ := e.consoleReq(t, http.MethodGet, consolePath, cookie, nil, nil)
	if txt := text(page); status != http.StatusOK || !strings.Contains(txt, "alpha ok") || !strings.Contains(txt, "beta ok") ||
		!strings.Contains(txt, "gamma The console cannot tell this server's state: unreachable") {
		t.Errorf("fleet page: %d %s", status, txt)
	}

	want := func(base, token string, listed []string) {
		t.Helper()
		if got := listTools(t, base, token); !slices.Equal(got, listed) {
			t.Errorf("tools/list of %s: %v, want %v", base, got, listed)
		}
	}
	disabled := func(base, token, tool string) {
		t.Helper()
		if status, _, body := callTool(t, base, token, tool); status != http.StatusOK || !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "disabled: "+tool) {
			t.Errorf("call %s: %d %s, want a disabled error", tool, status, body)
		}
	}
	want(e.Alpha, alphaTok, []string{"alpha_read", "alpha_write"})

	e.switchTo(t, cookie, "tool", "alpha", "alpha_write", "off")
	want(e.Alpha, alphaTok, []string{"alpha_read"})
	disabled(e.Alpha, alphaTok, "alpha_write")
	want(e.Beta, betaTok, []string{"beta_read", "beta_write"})
	_, page, _ = e.consoleReq(t, http.MethodGet, consoleSwitchesPath, cookie, nil, nil)
	if !strings.Contains(page, `id="tool-alpha_write" data-off="true"`) || !strings.Contains(page, `id="tool-alpha_read" data-off="false"`) {
		t.Errorf("switches page does not show alpha_write off:\n%s", text(page))
	}
	e.switchTo(t, cookie, "tool", "alpha", "alpha_write", "on")
	want(e.Alpha, alphaTok, []string{"alpha_read", "alpha_write"})

	e.switchTo(t, cookie, "read_only", "", "", "off")
	want(e.Alpha, alphaTok, []string{"alpha_read"})
	want(e.Beta, betaTok, []string{"beta_read"})
	disabled(e.Beta, betaTok, "beta_write")
	if status, _, body := callTool(t, e.Beta, betaTok, "beta_read"); status != http.StatusOK || strings.Contains(body, `"isError":true`) {
		t.Errorf("read tool in a read-only fleet: %d %s", status, body)
	}
	e.switchTo(t, cookie, "read_only", "", "", "on")
	want(e.Beta, betaTok, []string{"beta_read", "beta_write"})

	e.switchTo(t, cookie, "server", "beta", "", "off")
	want(e.Beta, betaTok, nil)
	disabled(e.Beta, betaTok, "beta_read")
	e.switchTo(t, cookie, "server", "beta", "", "on")
	want(e.Beta, betaTok, []string{"beta_read", "beta_write"})

	// A server that missed changes (here: given an old state behind the console's back) is
	// given the console's switches the next time the console looks.
	f = e.fleetJSON(t, cookie)
	alpha := consoleServer{}
	for _, c := range e.app.Console {
		if c.Name == "alpha" {
			alpha = c
		}
	}
	if _, err := alpha.client.SetSwitches(t.Context(), switches.State{Format: switches.Format, Version: 1, Tools: []string{"alpha_read"}}); err != nil {
		t.Fatal(err)
	}
	want(e.Alpha, alphaTok, []string{"alpha_write"})
	if a := serverOf(e.fleetJSON(t, cookie), "alpha"); !a.Behind || a.Status.Switches.Version != f.Switches.Version {
		t.Errorf("alpha behind: %+v, want it caught up to version %d", a, f.Switches.Version)
	}
	want(e.Alpha, alphaTok, []string{"alpha_read", "alpha_write"})

	// Activity: the calls (never their arguments) and the console's own actions.
	status, body, _ := e.consoleReq(t, http.MethodGet, consoleActivityAPIPath+"?server=beta&tool=beta_write", cookie, nil, nil)
	var act struct {
		Calls       []call            `json:"calls"`
		Unreachable map[string]string `json:"unreachable"`
		Console     []auditEntry      `json:"console"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &act) != nil {
		t.Fatalf("activity: %d %s", status, body)
	}
	if len(act.Calls) != 1 || act.Calls[0].Code != "disabled" || act.Calls[0].Server != "beta" || strings.Contains(body, `"hi"`) {
		t.Errorf("beta_write calls: %+v", act.Calls)
	}
	if !strings.Contains(act.Unreachable["gamma"], "unreachable") {
		t.Errorf("activity does not say gamma is unreachable: %v", act.Unreachable)
	}
	if len(act.Console) != 6 || act.Console[0].Who != "test-passkey" || !strings.Contains(act.Console[0].Detail, "server beta on (version 6)") {
		t.Errorf("console actions: %+v", act.Console)
	}
	_, page, _ = e.consoleReq(t, http.MethodGet, consoleActivityPath+"?outcome=error", cookie, nil, nil)
	if txt := text(page); !strings.Contains(txt, "beta beta_write") || strings.Contains(txt, "alpha_read") || !strings.Contains(txt, "fleet read-only on (version 3)") {
		t.Errorf("activity page filtered to errors:\n%s", txt)
	}

	// Devices: revoke beta's grant; its refresh token stops at once.
	devs, err := (&console{db: e.app.db}).devices(t.Context())
	if err != nil || len(devs) != 2 {
		t.Fatalf("devices: %v %+v", err, devs)
	}
	var grant, client string
	for _, d := range devs {
		if strings.HasPrefix(d.Resource, e.Beta) {
			grant, client = d.Grant, d.ClientID
		}
	}
	_, page, _ = e.consoleReq(t, http.MethodGet, consoleDevicesPath, cookie, nil, nil)
	if !strings.Contains(page, `id="revoke-`+grant+`"`) || !strings.Contains(text(page), "Test App") {
		t.Errorf("devices page lacks beta's grant %s:\n%s", grant, text(page))
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {betaRefresh}, "client_id": {client}}
	if status, out := e.postForm(t, "/token", refresh); status != http.StatusOK {
		t.Fatalf("refresh before revoke: %d %v", status, out)
	}
	form := url.Values{"csrf": {csrfFor(cookie)}, "grant": {grant}}
	if status, _, loc := e.consoleReq(t, http.MethodPost, consoleRevokePath, cookie, form, nil); status != http.StatusSeeOther || loc != consoleDevicesPath {
		t.Fatalf("revoke: %d %s", status, loc)
	}
	if status, out := e.postForm(t, "/token", refresh); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("refresh after revoke: %d %v", status, out)
	}
	if status, _, _ := e.consoleReq(t, http.MethodPost, consoleRevokePath, cookie, form, nil); status != http.StatusNotFound {
		t.Errorf("revoke twice: %d, want 404", status)
	}
	_, page, _ = e.consoleReq(t, http.MethodGet, consoleDevicesPath, cookie, nil, nil)
	if !strings.Contains(text(page), "revoked by the owner in the console") {
		t.Errorf("devices page does not show the revocation:\n%s", text(page))
	}
}
