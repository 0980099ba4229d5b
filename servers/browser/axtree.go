package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// axNode is one accessibility node, with the content of an iframe hung under the iframe.
type axNode struct {
	role, name, value string
	props             map[string]string
	children          []*axNode
	backend           cdp.BackendNodeID
	sess              target.ID // the session of the node's renderer ("" is the page's)
	ignored           bool
	frameMissing      bool // an iframe whose document could not be read (another process)
}

// fetchAXTree reads the accessibility tree of the session's main frame and of every iframe in
// the same renderer process, joined into one tree. With open, the content of out-of-process
// iframes is read through their own sessions and joined in too.
func fetchAXTree(ctx context.Context, t *chromedp.Target, sess target.ID, open frameOpener) (*axNode, error) {
	return readAXTree(ctx, t, sess, open, 0)
}

func readAXTree(ctx context.Context, t *chromedp.Target, sess target.ID, open frameOpener, depth int) (*axNode, error) {
	ft, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	root, err := frameAXTree(ctx, t, sess, "")
	if err != nil || root == nil {
		return root, err
	}
	// Attach child frames under their owner iframe nodes.
	owners := map[cdp.BackendNodeID]*axNode{}
	var iframes []*axNode
	var collect func(n *axNode)
	collect = func(n *axNode) {
		if n.role == "Iframe" {
			owners[n.backend] = n
			iframes = append(iframes, n)
			n.frameMissing = true
		}
		for _, c := range n.children {
			collect(c)
		}
	}
	collect(root)
	var walk func(tree *page.FrameTree)
	walk = func(tree *page.FrameTree) {
		for _, child := range tree.ChildFrames {
			owner, err := cdp.Call(ctx, t, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: child.Frame.ID})
			if err != nil {
				continue
			}
			host := owners[owner.BackendNodeID]
			if host == nil {
				continue
			}
			sub, err := frameAXTree(ctx, t, sess, child.Frame.ID)
			if err != nil || sub == nil {
				continue
			}
			collect(sub)
			host.children = []*axNode{sub}
			host.frameMissing = false
			walk(child)
		}
	}
	walk(ft.FrameTree)
	if open == nil || depth >= maxFrameDepth {
		return root, nil
	}
	// What is left is in other renderer processes: frames this session does not hold.
	local := map[cdp.FrameID]bool{}
	var mark func(tree *page.FrameTree)
	mark = func(tree *page.FrameTree) {
		local[tree.Frame.ID] = true
		for _, child := range tree.ChildFrames {
			mark(child)
		}
	}
	mark(ft.FrameTree)
	for _, host := range iframes {
		if !host.frameMissing || host.backend == 0 {
			continue
		}
		d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: host.backend})
		if err != nil || d.Node == nil || d.Node.FrameID == "" || local[d.Node.FrameID] {
			continue
		}
		ftg, fsess := open(ctx, sess, host.backend, d.Node.FrameID)
		if ftg == nil {
			continue
		}
		sub, err := readAXTree(ctx, ftg, fsess, open, depth+1)
		if err != nil || sub == nil {
			continue
		}
		host.children = []*axNode{sub}
		host.frameMissing = false
	}
	return root, nil
}

func frameAXTree(ctx context.Context, t *chromedp.Target, sess target.ID, frame cdp.FrameID) (*axNode, error) {
	res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame})
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	if len(res.Nodes) == 0 {
		return nil, nil
	}
	byID := make(map[accessibility.NodeID]*axNode, len(res.Nodes))
	for _, n := range res.Nodes {
		a := &axNode{backend: n.BackendDOMNodeID, sess: sess, ignored: n.Ignored}
		if n.Role != nil {
			a.role = valueString(n.Role.Value)
		}
		if n.Name != nil {
			a.name = valueString(n.Name.Value)
		}
		if n.Value != nil {
			a.value = valueString(n.Value.Value)
		}
		for _, p := range n.Properties {
			if p.Value == nil {
				continue
			}
			if a.props == nil {
				a.props = map[string]string{}
			}
			a.props[string(p.Name)] = valueString(p.Value.Value)
		}
		byID[n.NodeID] = a
	}
	for _, n := range res.Nodes {
		a := byID[n.NodeID]
		for _, id := range n.ChildIDs {
			if c := byID[id]; c != nil {
				a.children = append(a.children, c)
			}
		}
	}
	return byID[res.Nodes[0].NodeID], nil
}

// valueString renders a protocol JSON value as plain text.
func valueString(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return strings.TrimSpace(string(raw))
	}
}
