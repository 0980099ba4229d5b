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
	"github.com/chromedp/chromedp"
)

// axNode is one accessibility node, with the content of an iframe hung under the iframe.
type axNode struct {
	role, name, value string
	props             map[string]string
	children          []*axNode
	backend           cdp.BackendNodeID
	ignored           bool
	frameMissing      bool // an iframe whose document could not be read (another process)
}

// fetchAXTree reads the accessibility tree of the tab's main frame and of every iframe in the
// same renderer process, joined into one tree.
func fetchAXTree(ctx context.Context, t *chromedp.Target) (*axNode, error) {
	ft, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	root, err := frameAXTree(ctx, t, "")
	if err != nil {
		return nil, err
	}
	// Attach child frames under their owner iframe nodes.
	owners := map[cdp.BackendNodeID]*axNode{}
	var collect func(n *axNode)
	collect = func(n *axNode) {
		if n.role == "Iframe" {
			owners[n.backend] = n
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
			sub, err := frameAXTree(ctx, t, child.Frame.ID)
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
	return root, nil
}

func frameAXTree(ctx context.Context, t *chromedp.Target, frame cdp.FrameID) (*axNode, error) {
	res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame})
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	if len(res.Nodes) == 0 {
		return nil, nil
	}
	byID := make(map[accessibility.NodeID]*axNode, len(res.Nodes))
	for _, n := range res.Nodes {
		a := &axNode{backend: n.BackendDOMNodeID, ignored: n.Ignored}
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
