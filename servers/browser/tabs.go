package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
)

type tabsInput struct {
	where
	Action string `json:"action,omitempty" jsonschema:"end: close session" schema:"enum=list|new|select|close|end,default=list"`
	Tab    string `json:"tab,omitempty" jsonschema:"tab id from list, for select and close"`
	URL    string `json:"url,omitempty" jsonschema:"for new"`
}

func (in tabsInput) tabID() string { return in.Tab }

func addTabs(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_tabs",
		Toolset:     toolsetBrowse,
		Description: "List, open, select or close tabs, or end the session.",
		Timeout:     navTimeout,
	}, func(ctx context.Context, c *call, in tabsInput) (string, error) {
		switch in.Action {
		case "end":
			c.m.closeSession(c.s)
			return "Closed session " + c.s.name + ".", nil
		case "list":
		case "new":
			t, err := c.s.openTab(ctx, "")
			if err != nil {
				return "", err
			}
			c.t = t
			if in.URL != "" {
				text, err := c.navigate(ctx, in.URL, true, snapshotPageSize)
				if err != nil {
					return "", err
				}
				return "Opened tab " + t.id + ".\n" + text, nil
			}
		case "select":
			if in.Tab == "" {
				return "", kit.Errorf(kit.CodeInvalidInput, "give the tab to select")
			}
			c.s.cur = c.t
		case "close":
			if in.Tab == "" {
				return "", kit.Errorf(kit.CodeInvalidInput, "give the tab to close")
			}
			c.s.closeTab(c.t)
			if c.s.cur == nil {
				if _, err := c.s.pick(ctx, ""); err != nil {
					return "", err
				}
			}
			c.t = c.s.cur
		}
		c.s.prune()
		var b strings.Builder
		for _, t := range c.s.tabs {
			mark := " "
			if t == c.s.cur {
				mark = "*"
			}
			st := t.state(ctx)
			fmt.Fprintf(&b, "%s %s %s %q\n", mark, t.id, st.url, st.title)
		}
		return strings.TrimSpace(b.String()), nil
	})
}
