package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/jck411/mcp-servers/shared/kit"
)

// node returns the element a ref names in the tab's last snapshot, found in the page.
func (c *call) node(ctx context.Context, ref string) (nodeRef, error) {
	ref = strings.Trim(strings.TrimSpace(ref), "[]")
	if ref == "" {
		return nodeRef{}, kit.Errorf(kit.CodeInvalidInput, "ref is empty: give an element ref such as e12 from a snapshot")
	}
	k, ok := c.t.refs.targets[ref]
	if !ok {
		return nodeRef{}, kit.Errorf(kit.CodeNotFound, "no element %s in the last snapshot of tab %s; take a browser_snapshot", ref, c.t.id)
	}
	return c.find(ctx, ref, k)
}

// nodeSeen is node that also finds an element hidden since an earlier snapshot of the tab:
// the element that last held the ref. browser_wait_for waits for such an element to show.
func (c *call) nodeSeen(ctx context.Context, ref string) (nodeRef, error) {
	ref = strings.Trim(strings.TrimSpace(ref), "[]")
	if _, ok := c.t.refs.targets[ref]; ok {
		return c.node(ctx, ref)
	}
	if k, ok := c.t.refs.holders[ref]; ok {
		return c.find(ctx, ref, k)
	}
	return c.node(ctx, ref)
}

// find looks up the element k (the ref's) in its session's page.
func (c *call) find(ctx context.Context, ref string, k elemKey) (nodeRef, error) {
	tg, err := c.t.targetOf(k.sess)
	if err != nil {
		return nodeRef{}, err
	}
	id, err := backendOf(ctx, tg, k)
	if err != nil {
		return nodeRef{}, fmt.Errorf("%s: %w", ref, err)
	}
	return nodeRef{sess: k.sess, frame: k.frame, id: id}, nil
}

// on returns the session of the element's renderer, with the iframes that hold it scrolled
// into view.
func (c *call) on(ctx context.Context, n nodeRef) (*chromedp.Target, error) {
	return c.t.reveal(ctx, n.sess)
}

// element resolves a ref to its node and the target of the frame that owns it.
func (c *call) element(ctx context.Context, ref string) (nodeRef, *chromedp.Target, error) {
	id, err := c.node(ctx, ref)
	if err != nil {
		return nodeRef{}, nil, err
	}
	tg, err := c.on(ctx, id)
	return id, tg, err
}

// center scrolls the element into view and returns the middle of its first visible box.
func center(ctx context.Context, tg *chromedp.Target, id cdp.BackendNodeID) (float64, float64, error) {
	_, _ = cdp.Call(ctx, tg, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id})
	return boxCenter(ctx, tg, id)
}

// boxCenter returns the middle of the element's first visible box, in viewport coordinates.
func boxCenter(ctx context.Context, tg *chromedp.Target, id cdp.BackendNodeID) (float64, float64, error) {
	q, err := cdp.Call(ctx, tg, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	if err != nil {
		return 0, 0, kit.Errorf(kit.CodeNotFound, "the element is gone from the page (%v); take a browser_snapshot", err)
	}
	for _, quad := range q.Quads {
		if len(quad) < 8 {
			continue
		}
		x := (quad[0] + quad[2] + quad[4] + quad[6]) / 4
		y := (quad[1] + quad[3] + quad[5] + quad[7]) / 4
		w := max(quad[0], quad[2], quad[4], quad[6]) - min(quad[0], quad[2], quad[4], quad[6])
		h := max(quad[1], quad[3], quad[5], quad[7]) - min(quad[1], quad[3], quad[5], quad[7])
		if w >= 1 && h >= 1 {
			return x, y, nil
		}
	}
	return 0, 0, kit.Errorf(kit.CodeInvalidInput, "the element has no visible box (hidden or zero-sized)")
}

// callOn runs a JavaScript function in the page's own world with the element as this and
// returns its JSON result.
func callOn(ctx context.Context, tg *chromedp.Target, id cdp.BackendNodeID, fn string, args ...any) (json.RawMessage, error) {
	return callIn(ctx, tg, 0, id, fn, args...)
}

// callServer is callOn in the server's isolated world of the element's frame, where the page's
// scripts cannot see the call or change the DOM's own methods and setters.
func callServer(ctx context.Context, tg *chromedp.Target, n nodeRef, fn string, args ...any) (json.RawMessage, error) {
	world, err := isolatedWorld(ctx, tg, n.frame)
	if err != nil {
		return nil, err
	}
	return callIn(ctx, tg, world, n.id, fn, args...)
}

// callIn is callOn in the execution context world (0: the page's own).
func callIn(ctx context.Context, tg *chromedp.Target, world runtime.ExecutionContextID, id cdp.BackendNodeID, fn string, args ...any) (json.RawMessage, error) {
	obj, err := cdp.Call(ctx, tg, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ExecutionContextID: world})
	if err != nil || obj.Object == nil {
		return nil, kit.Errorf(kit.CodeNotFound, "the element is gone from the page; take a browser_snapshot")
	}
	defer func() {
		_, _ = cdp.Call(context.WithoutCancel(ctx), tg, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
	}()
	var cargs []*runtime.CallArgument
	for _, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: b})
	}
	res, err := cdp.Call(ctx, tg, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ObjectID:            obj.Object.ObjectID,
		Arguments:           cargs,
		ReturnByValue:       ptr(true),
		AwaitPromise:        ptr(true),
		UserGesture:         ptr(true),
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "JavaScript error: %s", exceptionMessage(res.ExceptionDetails))
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(res.Result.Value), nil
}

func exceptionMessage(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return strings.SplitN(d.Exception.Description, "\n", 2)[0]
	}
	return d.Text
}

// Modifier bits of input events.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

func parseModifiers(names []string) (int64, error) {
	var m int64
	for _, n := range names {
		switch strings.ToLower(strings.TrimSpace(n)) {
		case "alt":
			m |= modAlt
		case "control", "ctrl":
			m |= modCtrl
		case "meta", "command", "cmd":
			m |= modMeta
		case "shift":
			m |= modShift
		default:
			return 0, kit.Errorf(kit.CodeInvalidInput, "modifier %q: use Alt, Control, Meta or Shift", n)
		}
	}
	return m, nil
}

// mouseClick presses and releases a button at x,y (twice with clickCount 2 for a double click).
func mouseClick(ctx context.Context, tg *chromedp.Target, x, y float64, button input.MouseButton, clicks int, mods int64) error {
	move := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Modifiers: mods}
	if _, err := cdp.Call(ctx, tg, input.DispatchMouseEvent, move); err != nil {
		return err
	}
	for i := 1; i <= clicks; i++ {
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: button, ClickCount: int64(i), Modifiers: mods}
			if _, err := cdp.Call(ctx, tg, input.DispatchMouseEvent, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// namedKeys maps key names to the runes chromedp's kb package encodes.
var namedKeys = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "arrowup": kb.ArrowUp, "arrowdown": kb.ArrowDown,
	"arrowleft": kb.ArrowLeft, "arrowright": kb.ArrowRight, "up": kb.ArrowUp, "down": kb.ArrowDown,
	"left": kb.ArrowLeft, "right": kb.ArrowRight, "home": kb.Home, "end": kb.End,
	"pageup": kb.PageUp, "pagedown": kb.PageDown, "space": " ", "insert": kb.Insert,
}

// keyEvents encodes a key such as "Enter", "a" or "Control+Shift+K".
func keyEvents(key string) ([]*input.DispatchKeyEventParams, error) {
	parts := strings.Split(key, "+")
	name := parts[len(parts)-1]
	if name == "" && len(parts) > 1 { // "Control++"
		name = "+"
		parts = parts[:len(parts)-1]
	}
	mods, err := parseModifiers(parts[:len(parts)-1])
	if err != nil {
		return nil, err
	}
	var r rune
	if k, ok := namedKeys[strings.ToLower(name)]; ok {
		r = []rune(k)[0]
	} else if rs := []rune(name); len(rs) == 1 {
		r = rs[0]
	} else {
		return nil, kit.Errorf(kit.CodeInvalidInput, "key %q: give one character or a name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, with optional Control+/Shift+/Alt+/Meta+", key)
	}
	evs := kb.Encode(r)
	out := evs[:0]
	for _, e := range evs {
		// kb puts the text on the char event, so the key-down is a raw one, as a real
		// keyboard sends it.
		if e.Type == input.DispatchKeyEventTypeKeyDown {
			e.Type = input.DispatchKeyEventTypeRawKeyDown
			e.Commands = editCommands(r, mods)
		}
		e.Modifiers |= mods
		if mods&(modCtrl|modAlt|modMeta) != 0 {
			if e.Type == input.DispatchKeyEventTypeChar {
				continue
			}
			e.Text, e.UnmodifiedText = "", ""
		}
		out = append(out, e)
	}
	return out, nil
}

// editCommands are the editing commands of a shortcut. A desktop Chromium's window turns these
// keys into commands before the page sees them; a headless one does not, so the key event
// carries them.
func editCommands(r rune, mods int64) []string {
	if mods&(modCtrl|modMeta) == 0 || mods&modAlt != 0 {
		return nil
	}
	switch unicode.ToLower(r) {
	case 'a':
		return []string{"selectAll"}
	case 'c':
		return []string{"copy"}
	case 'x':
		return []string{"cut"}
	case 'v':
		return []string{"paste"}
	case 'z':
		if mods&modShift != 0 {
			return []string{"redo"}
		}
		return []string{"undo"}
	case 'y':
		return []string{"redo"}
	}
	return nil
}

func pressKey(ctx context.Context, tg *chromedp.Target, key string) error {
	evs, err := keyEvents(key)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, *e); err != nil {
			return err
		}
	}
	return nil
}

// keyCommand presses a key that carries an editing command (which works in every kind of
// field, unlike the selection API, which e-mail and number inputs lack).
func keyCommand(ctx context.Context, tg *chromedp.Target, key, command string) error {
	for _, e := range kb.Encode([]rune(key)[0]) {
		if e.Type == input.DispatchKeyEventTypeChar {
			continue
		}
		if e.Type == input.DispatchKeyEventTypeKeyDown {
			e.Type = input.DispatchKeyEventTypeRawKeyDown
			e.Commands = []string{command}
		}
		if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, *e); err != nil {
			return err
		}
	}
	return nil
}

// ptr returns a pointer to v, for the optional fields of protocol parameters.
func ptr[T any](v T) *T { return &v }
