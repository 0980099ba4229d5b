package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// pageTreeJS computes a frame's tree in the page (pagetree.js).
//
//go:embed pagetree.js
var pageTreeJS string

// serverWorld is the isolated world the server's scripts run in: the page's own scripts can
// neither see nor change what runs there, and its DOM prototypes are the browser's own.
const serverWorld = "mcp"

// axNode is one node of a snapshot's tree: an element with its ARIA role, accessible name,
// value and states, or a run of text (role StaticText), with the content of an iframe hung
// under the iframe.
type axNode struct {
	role, name, value string
	props             map[string]string
	children          []*axNode
	el                elemKey // the element, when it may be acted on; zero otherwise
	ignored           bool
	frameMissing      bool // an iframe whose document could not be read
}

// elemKey names an element a snapshot saw: its number in its frame's document (which the
// document's server world keeps), the document, the frame and the session of its renderer
// ("" is the page's own). A key outlives its document only as a key that finds nothing.
type elemKey struct {
	sess  target.ID
	frame cdp.FrameID
	doc   string
	id    int64
}

// fetchTree reads the tree of the session's main frame and of every iframe in it: iframes in
// the same renderer through this session and, with open, out-of-process ones through their own.
func fetchTree(ctx context.Context, t *chromedp.Target, sess target.ID, open frameOpener) (*axNode, error) {
	return readTree(ctx, t, sess, open, 0)
}

func readTree(ctx context.Context, t *chromedp.Target, sess target.ID, open frameOpener, depth int) (*axNode, error) {
	ft, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	local := map[cdp.FrameID]bool{}
	var mark func(tree *page.FrameTree)
	mark = func(tree *page.FrameTree) {
		local[tree.Frame.ID] = true
		for _, child := range tree.ChildFrames {
			mark(child)
		}
	}
	mark(ft.FrameTree)
	return frameTree(ctx, t, sess, ft.FrameTree.Frame.ID, local, open, depth)
}

// frameTree reads one frame's tree and the trees of the iframes in it.
func frameTree(ctx context.Context, t *chromedp.Target, sess target.ID, frame cdp.FrameID, local map[cdp.FrameID]bool, open frameOpener, depth int) (*axNode, error) {
	world, err := isolatedWorld(ctx, t, frame)
	if err != nil {
		return nil, err
	}
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: pageTreeJS, ContextID: world, ReturnByValue: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("page tree: %w", err)
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page tree: %s", exceptionMessage(res.ExceptionDetails))
	}
	var text string
	if res.Result == nil || json.Unmarshal(res.Result.Value, &text) != nil {
		return nil, fmt.Errorf("page tree: the page returned no tree")
	}
	root, iframes, err := parseTree(text, elemKey{sess: sess, frame: frame})
	if err != nil {
		return nil, err
	}
	for _, host := range iframes {
		host.frameMissing = true
		d, err := describeElement(ctx, t, world, host.el)
		if err != nil || d.FrameID == "" {
			continue
		}
		var sub *axNode
		switch {
		case local[d.FrameID]:
			sub, err = frameTree(ctx, t, sess, d.FrameID, local, open, depth)
		case open != nil && depth < maxFrameDepth:
			// In another renderer process: the frame is a target of its own.
			ftg, fsess := open(ctx, sess, d.BackendNodeID, d.FrameID)
			if ftg == nil {
				continue
			}
			sub, err = readTree(ctx, ftg, fsess, open, depth+1)
		default:
			continue
		}
		if err != nil || sub == nil {
			continue
		}
		host.children = []*axNode{sub}
		host.frameMissing = false
	}
	return root, nil
}

// parseTree reads the answer of pagetree.js: the document's token and title, then one node a
// line. key is the frame's; the iframes found are returned to be read in turn.
func parseTree(text string, key elemKey) (*axNode, []*axNode, error) {
	doc, rest, ok1 := strings.Cut(text, "\n")
	title, rest, ok2 := strings.Cut(rest, "\n")
	if !ok1 || !ok2 && title == "" {
		return nil, nil, fmt.Errorf("page tree: an answer without its header")
	}
	key.doc = doc
	root := &axNode{role: "RootWebArea", name: title}
	stack := []*axNode{root}
	var iframes []*axNode
	for line := range strings.SplitSeq(rest, "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		depth, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 3 || depth < 0 || depth >= len(stack) {
			return nil, nil, fmt.Errorf("page tree: a bad line %.80q", line)
		}
		n := &axNode{role: f[1], name: f[2]}
		if n.role == "" {
			n.role = "StaticText"
		}
		if len(f) >= 5 {
			n.value = f[3]
			if f[4] != "" {
				if n.el.id, err = strconv.ParseInt(f[4], 10, 64); err != nil {
					return nil, nil, fmt.Errorf("page tree: a bad element number in %.80q", line)
				}
				n.el.sess, n.el.frame, n.el.doc = key.sess, key.frame, key.doc
			}
			for _, kv := range f[5:] {
				k, v, _ := strings.Cut(kv, "=")
				n.props = setProp(n.props, k, v)
			}
		}
		parent := stack[depth]
		parent.children = append(parent.children, n)
		stack = append(stack[:depth+1], n)
		if n.role == "Iframe" && n.el.id != 0 {
			iframes = append(iframes, n)
		}
	}
	return root, iframes, nil
}

// isolatedWorld returns the execution context of the server's world in frame, creating the
// world when the frame's document has none yet (the same world is returned while the document
// lives, so what the server's scripts keep there lasts as long).
func isolatedWorld(ctx context.Context, t *chromedp.Target, frame cdp.FrameID) (runtime.ExecutionContextID, error) {
	w, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: serverWorld})
	if err != nil {
		return 0, fmt.Errorf("the page's frame is gone: %w", err)
	}
	return w.ExecutionContextID, nil
}

// describeElement finds k in its document (through the server world world of its frame) and
// describes it; an element no longer in the page is an error that says to take a snapshot.
func describeElement(ctx context.Context, t *chromedp.Target, world runtime.ExecutionContextID, k elemKey) (*cdp.Node, error) {
	docJSON, _ := json.Marshal(k.doc)
	expr := fmt.Sprintf("(e => e && e.isConnected ? e : null)(globalThis.__mcp && __mcp.doc === %s ? __mcp.el(%d) : null)", docJSON, k.id)
	r, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world})
	if err != nil {
		return nil, err
	}
	if r.Result == nil || r.Result.ObjectID == "" {
		return nil, kit.Errorf(kit.CodeNotFound, "the element is gone from the page; take a browser_snapshot")
	}
	defer func() {
		_, _ = cdp.Call(context.WithoutCancel(ctx), t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: r.Result.ObjectID})
	}()
	d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: r.Result.ObjectID})
	if err != nil || d.Node == nil {
		return nil, kit.Errorf(kit.CodeNotFound, "the element is gone from the page; take a browser_snapshot")
	}
	return d.Node, nil
}

// backendOf finds the element k names and returns its backend node id in its session.
func backendOf(ctx context.Context, t *chromedp.Target, k elemKey) (cdp.BackendNodeID, error) {
	world, err := isolatedWorld(ctx, t, k.frame)
	if err != nil {
		return 0, kit.Errorf(kit.CodeNotFound, "the frame that held the element is gone; take a browser_snapshot")
	}
	n, err := describeElement(ctx, t, world, k)
	if err != nil {
		return 0, err
	}
	return n.BackendNodeID, nil
}
