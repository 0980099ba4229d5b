package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// act runs an action that sends input to the page and describes what changed.
func (c *call) act(ctx context.Context, full bool, fn func(ctx context.Context, tg *chromedp.Target) error) (string, error) {
	if d := c.t.openDialog(); d != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "a %s dialog is open (%q); answer it with browser_handle_dialog first", d.Type, d.Message)
	}
	before := c.t.state(ctx)
	if err := c.t.input(ctx, fn); err != nil {
		return "", err
	}
	return c.changes(ctx, before, full, snapshotPageSize), nil
}

// actOn acts on the element a ref names, in the frame that owns it, and reports what changed.
func (c *call) actOn(ctx context.Context, ref string, full bool, fn func(ctx context.Context, tg *chromedp.Target, id nodeRef) error) (string, error) {
	id, err := c.node(ctx, ref)
	if err != nil {
		return "", err
	}
	return c.act(ctx, full, func(ctx context.Context, _ *chromedp.Target) error {
		tg, err := c.on(ctx, id)
		if err != nil {
			return err
		}
		return fn(ctx, tg, id)
	})
}

type clickInput struct {
	where
	Ref       string    `json:"ref,omitempty" jsonschema:"e.g. e12"`
	At        []float64 `json:"at,omitempty" jsonschema:"screenshot [x, y] instead of ref" schema:"minItems=2,maxItems=2,minimum=0"`
	Double    bool      `json:"double,omitempty" schema:"bare=true"`
	Button    string    `json:"button,omitempty" schema:"enum=left|right|middle,default=left,bare=true"`
	Modifiers []string  `json:"modifiers,omitempty" jsonschema:"keys held" schema:"enum=Alt|Control|Meta|Shift"`
	Full      bool      `json:"full,omitempty" jsonschema:"whole snapshot, not a diff"`
}

func addClick(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_click",
		Toolset:     toolsetInteract,
		Description: "Click a ref or point; reports what changed. To set a field's value use browser_type or browser_fill_form.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in clickInput) (string, error) {
		id, err := c.target(ctx, in.Ref, in.At)
		if err != nil {
			return "", err
		}
		mods, err := parseModifiers(in.Modifiers)
		if err != nil {
			return "", err
		}
		button := input.MouseButtonLeft
		switch in.Button { // the schema admits left (the default), right and middle
		case "right":
			button = input.MouseButtonRight
		case "middle":
			button = input.MouseButtonMiddle
		}
		clicks := 1
		if in.Double {
			clicks = 2
		}
		return c.act(ctx, in.Full, func(ctx context.Context, tg *chromedp.Target) error {
			tg, x, y, err := c.point(ctx, tg, id, in.At)
			if err != nil {
				return err
			}
			return mouseClick(ctx, tg, x, y, button, clicks, mods)
		})
	})
}

// target checks that a tool names either an element by ref or a point, and returns the
// element (zero for a point).
func (c *call) target(ctx context.Context, ref string, at []float64) (nodeRef, error) {
	switch {
	case ref != "" && len(at) > 0:
		return nodeRef{}, kit.Errorf(kit.CodeInvalidInput, "give ref or at, not both")
	case len(at) > 0:
		if len(at) != 2 {
			return nodeRef{}, kit.Errorf(kit.CodeInvalidInput, "at is [x, y]: two numbers")
		}
		return nodeRef{}, nil
	case ref == "":
		return nodeRef{}, kit.Errorf(kit.CodeInvalidInput, "give ref (from a snapshot) or at ([x, y] from a screenshot)")
	}
	return c.node(ctx, ref)
}

// point returns where to send mouse input: the middle of the element id (scrolled into view,
// in its frame's session), or the viewport point at in the page's own session. A point
// outside the viewport is an error that gives the viewport's size.
func (c *call) point(ctx context.Context, page *chromedp.Target, id nodeRef, at []float64) (*chromedp.Target, float64, float64, error) {
	if len(at) == 2 {
		w, h, err := viewportSize(ctx, page)
		if err != nil {
			return nil, 0, 0, err
		}
		if at[0] >= w || at[1] >= h {
			return nil, 0, 0, kit.Errorf(kit.CodeInvalidInput, "point %g,%g is outside the %gx%g viewport", at[0], at[1], w, h)
		}
		return page, at[0], at[1], nil
	}
	tg, err := c.on(ctx, id)
	if err != nil {
		return nil, 0, 0, err
	}
	x, y, err := center(ctx, tg, id.id)
	return tg, x, y, err
}

// viewportSize is the size of the page's viewport in CSS pixels.
func viewportSize(ctx context.Context, tg *chromedp.Target) (float64, float64, error) {
	lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return 0, 0, err
	}
	if lm.CSSVisualViewport == nil {
		return 0, 0, kit.Errorf(kit.CodeUnavailable, "the page has no viewport")
	}
	return lm.CSSVisualViewport.ClientWidth, lm.CSSVisualViewport.ClientHeight, nil
}

// wheelParams is Input.dispatchMouseEvent for a wheel event. cdproto's parameters leave out
// a zero deltaX or deltaY, which Chromium requires for a wheel event.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

type hoverInput struct {
	where
	Ref    string    `json:"ref,omitempty" jsonschema:"e.g. e12"`
	At     []float64 `json:"at,omitempty" jsonschema:"screenshot [x, y] instead of ref" schema:"minItems=2,maxItems=2,minimum=0"`
	Scroll []float64 `json:"scroll,omitempty" jsonschema:"wheel [dx, dy] px (dy>0: down)" schema:"minItems=2,maxItems=2"`
}

func addHover(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_hover",
		Toolset:     toolsetInteract,
		Description: "Hover a ref or point (menus, tooltips); with scroll, turn the wheel there: the way to scroll a page or list.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in hoverInput) (string, error) {
		if in.Ref == "" && len(in.At) == 0 && len(in.Scroll) == 2 {
			in.At = []float64{-1, -1} // the middle of the viewport, found below
		}
		id, err := c.target(ctx, in.Ref, in.At)
		if err != nil {
			return "", err
		}
		var scrolled string
		out, err := c.act(ctx, false, func(ctx context.Context, tg *chromedp.Target) error {
			if len(in.At) == 2 && in.At[0] < 0 {
				w, h, err := viewportSize(ctx, tg)
				if err != nil {
					return err
				}
				in.At = []float64{w / 2, h / 2}
			}
			tg, x, y, err := c.point(ctx, tg, id, in.At)
			if err != nil {
				return err
			}
			if _, err := chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)(ctx, tg); err != nil {
				return err
			}
			if len(in.Scroll) != 2 {
				return nil
			}
			wheel := wheelParams{Type: input.DispatchMouseEventTypeMouseWheel, X: x, Y: y, DeltaX: in.Scroll[0], DeltaY: in.Scroll[1]}
			if _, err := cdp.Call(ctx, tg, dispatchWheel, wheel); err != nil {
				return err
			}
			scrolled = "scrolled"
			return nil
		})
		if err != nil || scrolled == "" || c.t.openDialog() != nil {
			return out, err
		}
		// A scroll rarely changes the snapshot: say where the page is now.
		pos, err := evalValue(ctx, c, "[Math.round(scrollX), Math.round(scrollY), document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
		if err == nil {
			var p [4]int
			if json.Unmarshal(pos, &p) == nil {
				out = fmt.Sprintf("Page scrolled to x=%d y=%d of %dx%d.\n%s", p[0], p[1], p[2], p[3], out)
			}
		}
		return out, nil
	})
}

type typeInput struct {
	where
	Ref    string `json:"ref" jsonschema:"e.g. e12"`
	Text   string `json:"text,omitempty" jsonschema:"what to type; empty clears the field"`
	Secret string `json:"secret,omitempty" jsonschema:"owner's secret to type instead of text; never shown"`
	Append bool   `json:"append,omitempty" jsonschema:"keep the value"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter"`
}

func addType(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_type",
		Toolset:     toolsetInteract,
		Description: "Type into one text field by ref, replacing its value; for dates, selects or several fields use browser_fill_form.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in typeInput) (string, error) {
		if in.Secret != "" && (in.Text != "" || in.Append) {
			return "", kit.Errorf(kit.CodeInvalidInput, "give text or secret, not both (a secret replaces what the field holds)")
		}
		var note string
		out, err := c.actOn(ctx, in.Ref, false, func(ctx context.Context, tg *chromedp.Target, id nodeRef) error {
			f := fieldTarget{tg: tg, n: id, label: c.t.refs.label(in.Ref)}
			var err error
			if in.Secret != "" {
				err = c.fillSecret(ctx, f, in.Secret)
			} else {
				note, err = setField(ctx, f, []string{in.Text}, in.Append)
			}
			if err != nil {
				return err
			}
			if in.Submit {
				return pressKey(ctx, tg, "Enter")
			}
			return nil
		})
		return joinNote(note, out), err
	})
}

// joinNote puts a note about what was set before an action's answer.
func joinNote(note, out string) string {
	if note == "" {
		return out
	}
	return note + "\n" + out
}

type formField struct {
	Ref    string `json:"ref" jsonschema:"e.g. e12"`
	Value  string `json:"value,omitempty" jsonschema:"text, option, true/false, date, colour, number"`
	Secret string `json:"secret,omitempty" jsonschema:"owner's secret to type instead of value; never shown"`
}

type fillFormInput struct {
	where
	Fields []formField `json:"fields" jsonschema:"a multi-select once per option" schema:"minItems=1"`
	Submit string      `json:"submit,omitempty" jsonschema:"ref to click after"`
}

func addFillForm(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_fill_form",
		Toolset:     toolsetInteract,
		Description: "Set fields by ref (text, select, check, date, colour, range), each read back, then optionally click submit.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in fillFormInput) (string, error) {
		if len(in.Fields) == 0 {
			return "", kit.Errorf(kit.CodeInvalidInput, "fields is empty")
		}
		for _, f := range in.Fields {
			if f.Secret != "" && f.Value != "" {
				return "", kit.Errorf(kit.CodeInvalidInput, "field %s: give value or secret, not both", f.Ref)
			}
		}
		ids := make([]nodeRef, len(in.Fields))
		for i, f := range in.Fields {
			id, err := c.node(ctx, f.Ref)
			if err != nil {
				return "", err
			}
			ids[i] = id
		}
		var submit nodeRef
		if in.Submit != "" {
			id, err := c.node(ctx, in.Submit)
			if err != nil {
				return "", err
			}
			submit = id
		}
		var notes []string
		out, err := c.act(ctx, false, func(ctx context.Context, _ *chromedp.Target) error {
			var set []string
			done := map[nodeRef]bool{}
			for i, f := range in.Fields {
				if done[ids[i]] {
					continue
				}
				done[ids[i]] = true
				// A select named more than once gets all its values: a multiple select's options.
				var values []string
				for j, g := range in.Fields {
					if ids[j] == ids[i] {
						values = append(values, g.Value)
					}
				}
				tg, err := c.on(ctx, ids[i])
				if err != nil {
					return err
				}
				ft := fieldTarget{tg: tg, n: ids[i], label: c.t.refs.label(f.Ref)}
				var note string
				if f.Secret != "" {
					err = c.fillSecret(ctx, ft, f.Secret)
				} else {
					note, err = setField(ctx, ft, values, false)
				}
				if err != nil {
					if len(set) > 0 {
						return fmt.Errorf("%w (already set: %s; nothing was submitted)", err, strings.Join(set, ", "))
					}
					return fmt.Errorf("%w (nothing was submitted)", err)
				}
				if note != "" {
					notes = append(notes, note)
				}
				set = append(set, f.Ref)
			}
			if submit.id != 0 {
				tg, err := c.on(ctx, submit)
				if err != nil {
					return err
				}
				x, y, err := center(ctx, tg, submit.id)
				if err != nil {
					return err
				}
				return mouseClick(ctx, tg, x, y, input.MouseButtonLeft, 1, 0)
			}
			return nil
		})
		return joinNote(strings.Join(notes, "\n"), out), err
	})
}

type pressKeyInput struct {
	where
	Key string `json:"key" jsonschema:"e.g. Enter, ArrowDown, Control+A" schema:"minLength=1"`
	Ref string `json:"ref,omitempty" jsonschema:"focus first"`
}

func addPressKey(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_press_key",
		Toolset:     toolsetInteract,
		Description: "Press a key or chord, optionally in a ref; to enter text use browser_type.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in pressKeyInput) (string, error) {
		if _, err := keyEvents(in.Key); err != nil {
			return "", err
		}
		var id nodeRef
		if in.Ref != "" {
			var err error
			if id, err = c.node(ctx, in.Ref); err != nil {
				return "", err
			}
		}
		return c.act(ctx, false, func(ctx context.Context, tg *chromedp.Target) error {
			if id.id != 0 {
				var err error
				if tg, err = c.on(ctx, id); err != nil {
					return err
				}
				if _, err := cdp.Call(ctx, tg, dom.Focus, dom.FocusParams{BackendNodeID: id.id}); err != nil {
					return kit.Errorf(kit.CodeInvalidInput, "cannot focus %s: %v", in.Ref, err)
				}
			}
			return pressKey(ctx, tg, in.Key)
		})
	})
}

type dragInput struct {
	where
	Ref string `json:"ref" jsonschema:"source ref"`
	To  string `json:"to" jsonschema:"target ref"`
}

func addDrag(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_drag",
		Toolset:     toolsetInteract,
		Description: "Drag a ref and drop it on another ref.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in dragInput) (string, error) {
		from, err := c.node(ctx, in.Ref)
		if err != nil {
			return "", err
		}
		to, err := c.node(ctx, in.To)
		if err != nil {
			return "", err
		}
		if from.sess != to.sess {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s and %s are in different frames; a drag stays within one", in.Ref, in.To)
		}
		return c.act(ctx, false, func(ctx context.Context, _ *chromedp.Target) error {
			tg, err := c.on(ctx, from)
			if err != nil {
				return err
			}
			p, err := dragPoints(ctx, tg, from.id, to.id)
			if err != nil {
				return err
			}
			_, err = chromedp.DragAndDropXY(p[0], p[1], p[2], p[3])(ctx, tg)
			return err
		})
	})
}

// dragPoints scrolls both elements into view and returns their centers. Scrolling to the
// second can move the first out of view; then the page scrolls to the middle of the two. A
// drag does not scroll, so it fails when the two do not fit in the viewport together.
func dragPoints(ctx context.Context, tg *chromedp.Target, from, to cdp.BackendNodeID) ([4]float64, error) {
	var p [4]float64
	for _, id := range []cdp.BackendNodeID{from, to} {
		if _, _, err := center(ctx, tg, id); err != nil {
			return p, err
		}
	}
	lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return p, err
	}
	vp := lm.CSSVisualViewport
	inView := func(x, y float64) bool {
		return vp == nil || x >= 0 && y >= 0 && x <= vp.ClientWidth && y <= vp.ClientHeight
	}
	for attempt := 0; ; attempt++ {
		var err error
		if p[0], p[1], err = boxCenter(ctx, tg, from); err != nil {
			return p, err
		}
		if p[2], p[3], err = boxCenter(ctx, tg, to); err != nil {
			return p, err
		}
		if inView(p[0], p[1]) && inView(p[2], p[3]) {
			return p, nil
		}
		if attempt > 0 {
			return p, kit.Errorf(kit.CodeInvalidInput, "the two elements do not fit in the viewport together, and a drag cannot scroll")
		}
		dx, dy := (p[0]+p[2]-vp.ClientWidth)/2, (p[1]+p[3]-vp.ClientHeight)/2
		expr := fmt.Sprintf("window.scrollBy(%f, %f)", dx, dy)
		if _, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: expr}); err != nil {
			return p, err
		}
	}
}

type uploadInput struct {
	where
	Ref   string   `json:"ref" jsonschema:"file input ref"`
	Files []string `json:"files" jsonschema:"paths in the upload directory" schema:"minItems=1"`
}

func addUpload(s *kit.Server, m *manager, opts *options) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_upload_file",
		Toolset:     toolsetInteract,
		Description: "Set a file input's files.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in uploadInput) (string, error) {
		id, err := c.node(ctx, in.Ref)
		if err != nil {
			return "", err
		}
		if len(in.Files) == 0 {
			return "", kit.Errorf(kit.CodeInvalidInput, "files is empty")
		}
		paths, staged, err := m.folders.stage(in.Files)
		if err != nil {
			return "", err
		}
		out, err := c.act(ctx, false, func(ctx context.Context, _ *chromedp.Target) error {
			tg, err := c.on(ctx, id)
			if err != nil {
				return err
			}
			_, err = cdp.Call(ctx, tg, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, BackendNodeID: id.id})
			if err != nil {
				return kit.Errorf(kit.CodeInvalidInput, "cannot set files on %s (%v); is it an <input type=file>?", in.Ref, err)
			}
			return nil
		})
		if err != nil {
			m.folders.unstage(staged)
			return out, err
		}
		c.s.addStaged(staged)
		return out, nil
	})
}

type dialogInput struct {
	where
	Accept bool   `json:"accept" jsonschema:"false dismisses"`
	Text   string `json:"text,omitempty" jsonschema:"prompt answer"`
}

func addHandleDialog(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_handle_dialog",
		Toolset:     toolsetInteract,
		Description: "Answer the open alert, confirm or prompt.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in dialogInput) (string, error) {
		d := c.t.openDialog()
		if d == nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "no dialog is open in tab %s", c.t.id)
		}
		before := pageState{url: d.URL}
		if st := c.t.lastURL; st != "" {
			before.url = st
		}
		p := page.HandleJavaScriptDialogParams{Accept: in.Accept}
		if in.Text != "" {
			p.PromptText = in.Text
		}
		if _, err := cdp.Call(ctx, c.t.target(), page.HandleJavaScriptDialog, p); err != nil {
			return "", err
		}
		c.t.mu.Lock()
		if c.t.dialog == d {
			c.t.dialog = nil
		}
		c.t.mu.Unlock()
		verb := "Dismissed"
		if in.Accept {
			verb = "Accepted"
		}
		return fmt.Sprintf("%s the %s %q.\n", verb, d.Type, d.Message) + c.changes(ctx, before, false, snapshotPageSize), nil
	})
}
