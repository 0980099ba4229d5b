package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestClickVariants clicks with a double click, the right button and a modifier, and checks
// what the page saw.
func TestClickVariants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>Clicks</title>
<button id="b">Target</button>
<p id="dbl">no double click</p>
<p id="ctx">no context menu</p>
<p id="mod">no click</p>
<script>
const b = document.getElementById('b');
const set = (id, text) => { document.getElementById(id).textContent = text; };
b.addEventListener('dblclick', e => set('dbl', 'double click with button ' + e.button));
b.addEventListener('contextmenu', e => { e.preventDefault(); set('ctx', 'context menu with button ' + e.button); });
b.addEventListener('click', e => set('mod', 'click ctrl=' + e.ctrlKey + ' shift=' + e.shiftKey + ' detail=' + e.detail));
</script>`)
	}))
	t.Cleanup(srv.Close)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": srv.URL})
	b := ref(t, snap, `button "Target"`)

	out := callTool(t, cs, "browser_click", map[string]any{"ref": b, "double": true})
	if !strings.Contains(out, "+ double click with button 0") || !strings.Contains(out, "+ click ctrl=false shift=false detail=2") {
		t.Errorf("double click: %s", out)
	}
	out = callTool(t, cs, "browser_click", map[string]any{"ref": b, "button": "right"})
	if !strings.Contains(out, "+ context menu with button 2") {
		t.Errorf("right click: %s", out)
	}
	if strings.Contains(out, "+ click ctrl") {
		t.Errorf("a right click must not fire click: %s", out)
	}
	out = callTool(t, cs, "browser_click", map[string]any{"ref": b, "modifiers": []string{"Control", "Shift"}})
	if !strings.Contains(out, "+ click ctrl=true shift=true detail=1") {
		t.Errorf("click with modifiers: %s", out)
	}
	if e := mcptest.CallError(t, cs, "browser_click", map[string]any{"ref": b, "button": "fourth"}); !strings.Contains(e, `button must be one of "left", "right", "middle"`) {
		t.Errorf("bad button: %s", e)
	}
}
