package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modifyThreadsInput caps ids at 100: Gmail has no batch call for threads, so each thread is
// one call (two when it is also trashed).
type modifyThreadsInput struct {
	IDs          []string `json:"ids" jsonschema:"thread ids (thread_id from search_messages)" schema:"minItems=1,maxItems=100,minLength=1"`
	AddLabels    []string `json:"add_labels,omitempty" jsonschema:"label names or ids to add: STARRED, UNREAD, TRASH (to the trash), or your own"`
	RemoveLabels []string `json:"remove_labels,omitempty" jsonschema:"label names or ids to remove: INBOX archives, UNREAD marks read, TRASH restores from the trash"`
}

type modifyThreadsOutput struct {
	Modified int      `json:"modified"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
}

func (o modifyThreadsOutput) Text() string {
	return fmt.Sprintf("Modified %d threads (every message in them): added [%s], removed [%s].", o.Modified, strings.Join(o.Added, ","), strings.Join(o.Removed, ","))
}

func addThreadTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "modify_threads", Title: "Change thread labels", Idempotent: true, OpenWorld: true,
		Description: "Add/remove labels on whole conversations: archive (-INBOX), read (-UNREAD), unread (+UNREAD), star (+STARRED), trash (+TRASH), untrash (-TRASH)."}, m.modifyThreads)
}

func (m *mailbox) modifyThreads(ctx context.Context, _ *mcp.CallToolRequest, in modifyThreadsInput) (*mcp.CallToolResult, modifyThreadsOutput, error) {
	if len(in.AddLabels)+len(in.RemoveLabels) == 0 {
		return nil, modifyThreadsOutput{}, kit.Errorf(kit.CodeInvalidInput, "give add_labels or remove_labels")
	}
	add, err := m.labelIDs(ctx, in.AddLabels)
	if err != nil {
		return nil, modifyThreadsOutput{}, err
	}
	remove, err := m.labelIDs(ctx, in.RemoveLabels)
	if err != nil {
		return nil, modifyThreadsOutput{}, err
	}
	if slices.Contains(add, "TRASH") && slices.Contains(remove, "TRASH") {
		return nil, modifyThreadsOutput{}, kit.Errorf(kit.CodeInvalidInput, "TRASH is both added and removed; give it once")
	}
	// Gmail moves threads to and from the trash with threads.trash and threads.untrash, which
	// also handle INBOX as the web client does; the other labels go in one threads.modify.
	trash, untrash := slices.Contains(add, "TRASH"), slices.Contains(remove, "TRASH")
	req := apiModify{AddLabelIDs: slices.DeleteFunc(slices.Clone(add), isTrash), RemoveLabelIDs: slices.DeleteFunc(slices.Clone(remove), isTrash)}
	errs := make([]error, len(in.IDs))
	var wg sync.WaitGroup
	for i, id := range in.IDs {
		wg.Go(func() { errs[i] = m.modifyThread(ctx, id, trash, untrash, req) })
	}
	wg.Wait()
	done := 0
	for _, err := range errs {
		if err == nil {
			done++
		}
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		if done > 0 {
			var ke *kit.Error
			if errors.As(err, &ke) {
				return nil, modifyThreadsOutput{}, kit.Errorf(ke.Code, "%v (the other %d threads were changed)", err, done)
			}
		}
		return nil, modifyThreadsOutput{}, err
	}
	return nil, modifyThreadsOutput{Modified: len(in.IDs), Added: orEmpty(add), Removed: orEmpty(remove)}, nil
}

func isTrash(id string) bool { return id == "TRASH" }

// modifyThread applies one thread's changes: trash or untrash first, then the other labels.
func (m *mailbox) modifyThread(ctx context.Context, id string, trash, untrash bool, req apiModify) error {
	path := "threads/" + url.PathEscape(id)
	switch {
	case trash:
		if err := m.call(ctx, http.MethodPost, path+"/trash", nil, nil, nil); err != nil {
			return m.google.Fail(err, "thread "+id)
		}
	case untrash:
		if err := m.call(ctx, http.MethodPost, path+"/untrash", nil, nil, nil); err != nil {
			return m.google.Fail(err, "thread "+id)
		}
	}
	if len(req.AddLabelIDs)+len(req.RemoveLabelIDs) == 0 {
		return nil
	}
	if err := m.call(ctx, http.MethodPost, path+"/modify", nil, req, nil); err != nil {
		return m.google.Fail(err, "thread "+id)
	}
	return nil
}
