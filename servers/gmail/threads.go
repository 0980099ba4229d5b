package main

import (
	"context"
	"errors"
	"slices"
	"sync"

	"google.golang.org/api/gmail/v1"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modifyThreadsInput caps ids at 100: Gmail has no batch call for threads, so each thread is
// one call (two when it is also trashed).
type modifyThreadsInput struct {
	IDs []string `json:"ids" jsonschema:"thread ids (thread_id from search_messages)" schema:"minItems=1,maxItems=100,minLength=1"`
	labelChange
}

func (m *mailbox) modifyThreads(ctx context.Context, _ *mcp.CallToolRequest, in modifyThreadsInput) (*mcp.CallToolResult, modifyOutput, error) {
	add, remove, err := m.resolve(ctx, in.labelChange)
	if err != nil {
		return nil, modifyOutput{}, err
	}
	if slices.Contains(add, "TRASH") && slices.Contains(remove, "TRASH") {
		return nil, modifyOutput{}, kit.Errorf(kit.CodeInvalidInput, "TRASH is both added and removed; give it once")
	}
	// Gmail moves threads to and from the trash with threads.trash and threads.untrash, which
	// also handle INBOX as the web client does; the other labels go in one threads.modify.
	trash, untrash := slices.Contains(add, "TRASH"), slices.Contains(remove, "TRASH")
	req := &gmail.ModifyThreadRequest{AddLabelIds: slices.DeleteFunc(slices.Clone(add), isTrash), RemoveLabelIds: slices.DeleteFunc(slices.Clone(remove), isTrash)}
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
				return nil, modifyOutput{}, kit.Errorf(ke.Code, "%v (the other %d threads were changed)", err, done)
			}
		}
		return nil, modifyOutput{}, err
	}
	return nil, modifyOutput{Modified: len(in.IDs), Added: orEmpty(add), Removed: orEmpty(remove), unit: "threads"}, nil
}

func isTrash(id string) bool { return id == "TRASH" }

// modifyThread applies one thread's changes: trash or untrash first, then the other labels.
func (m *mailbox) modifyThread(ctx context.Context, id string, trash, untrash bool, req *gmail.ModifyThreadRequest) error {
	threads := m.gm.Users.Threads
	switch {
	case trash:
		if _, err := threads.Trash(me, id).Context(ctx).Do(); err != nil {
			return m.google.Fail(err, "thread "+id)
		}
	case untrash:
		if _, err := threads.Untrash(me, id).Context(ctx).Do(); err != nil {
			return m.google.Fail(err, "thread "+id)
		}
	}
	if len(req.AddLabelIds)+len(req.RemoveLabelIds) == 0 {
		return nil
	}
	if _, err := threads.Modify(me, id, req).Context(ctx).Do(); err != nil {
		return m.google.Fail(err, "thread "+id)
	}
	return nil
}
