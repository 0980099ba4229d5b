package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/jck411/mcp-servers/shared/kit"
)

type snapshotInput struct {
	where
	Ref      string `json:"ref,omitempty" jsonschema:"subtree"`
	Depth    int    `json:"depth,omitempty" jsonschema:"levels; 0 = all" schema:"minimum=0"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"page size" schema:"minimum=100,maximum=100000,default=24000"`
	Offset   int    `json:"offset,omitempty" jsonschema:"next page from" schema:"minimum=0"`
	Find     string `json:"find,omitempty" jsonschema:"text filter"`
	Role     string `json:"role,omitempty" jsonschema:"e.g. button"`
	FullText bool   `json:"full_text,omitempty" jsonschema:"long text whole"`
}

func addSnapshot(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_snapshot",
		Toolset:     toolsetBrowse,
		Description: "The page's elements with [eN] refs to act on; find and role filter, ref scopes. To read prose use browser_get_text.",
		ReadOnly:    true,
		Timeout:     readTimeout,
	}, func(ctx context.Context, c *call, in snapshotInput) (string, error) {
		snap, err := c.snapshot(ctx, strings.Trim(in.Ref, "[]"), in.Depth, in.FullText)
		if err != nil {
			return "", err
		}
		if in.Find != "" || in.Role != "" {
			matches := findLines(snap.whole, in.Find, in.Role)
			if len(matches) == 0 {
				return "No match.", nil
			}
			return paged(fmt.Sprintf("%d matches:\n%s", len(matches), strings.Join(matches, "\n")), in.Offset, in.MaxChars), nil
		}
		st := c.t.state(ctx)
		head := fmt.Sprintf("Page: %s\nTitle: %s\n", st.url, st.title)
		if in.Offset > 0 {
			head = ""
		}
		return head + pagedSnapshot(snap.text(), in.Offset, in.MaxChars), nil
	})
}

// findLines returns the snapshot lines that contain text and start with role.
func findLines(lines []string, text, role string) []string {
	text = strings.ToLower(text)
	role = strings.ToLower(strings.TrimSpace(role))
	if a, ok := aliases[role]; ok {
		role = a
	}
	var out []string
	for _, l := range lines {
		t := strings.TrimPrefix(strings.TrimSpace(l), "- ")
		lt := strings.ToLower(t)
		if text != "" && !strings.Contains(lt, text) {
			continue
		}
		if role != "" {
			first, _, _ := strings.Cut(lt, " ")
			if first != role && (role != "heading" || len(first) != 2 || first[0] != 'h') {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

type getTextInput struct {
	where
	Ref      string `json:"ref,omitempty" jsonschema:"element only"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"page size" schema:"minimum=100,maximum=100000,default=20000"`
	Offset   int    `json:"offset,omitempty" jsonschema:"next page from" schema:"minimum=0"`
}

func addGetText(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_get_text",
		Toolset:     toolsetBrowse,
		Description: "The page's main content as Markdown, to read it; no refs (to act, browser_snapshot). Paged.",
		ReadOnly:    true,
		Timeout:     readTimeout,
	}, func(ctx context.Context, c *call, in getTextInput) (string, error) {
		if d := c.t.openDialog(); d != nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "a %s dialog is open; answer it with browser_handle_dialog first", d.Type)
		}
		var md string
		var err error
		if in.Ref != "" {
			id, tg, err := c.element(ctx, in.Ref)
			if err != nil {
				return "", err
			}
			var raw json.RawMessage
			if raw, err = callOn(ctx, tg, id.id, "function(){ return ("+markdownJS+")(this); }"); err != nil {
				return "", err
			}
			err = json.Unmarshal(raw, &md)
			if err != nil {
				return "", fmt.Errorf("page text: %w", err)
			}
		} else if md, err = pageMarkdown(ctx, c); err != nil {
			return "", err
		}
		return paged(c.clean(md), in.Offset, in.MaxChars), nil
	})
}

func pageMarkdown(ctx context.Context, c *call) (string, error) {
	res, err := cdp.Call(ctx, c.t.target(), runtime.Evaluate, runtime.EvaluateParams{
		Expression:    "(" + markdownJS + ")(null)",
		ReturnByValue: ptr(true),
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", kit.Errorf(kit.CodeInternal, "page text extraction failed: %s", exceptionMessage(res.ExceptionDetails))
	}
	var md string
	if res.Result == nil || json.Unmarshal(res.Result.Value, &md) != nil {
		return "", kit.Errorf(kit.CodeInternal, "page text extraction returned nothing")
	}
	return md, nil
}
