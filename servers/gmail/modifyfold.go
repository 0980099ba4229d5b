package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxThreadIDs bounds a change of whole conversations: each thread is its own Gmail call.
const maxThreadIDs = 100

// modifyLabelsInput is modify_messages' input: label changes on messages, or with threads on
// whole conversations (one tool where modify_messages and modify_threads took the same changes).
type modifyLabelsInput struct {
	IDs     []string `json:"ids" jsonschema:"message ids, or thread ids with threads" schema:"minItems=1,maxItems=1000,minLength=1"`
	Threads bool     `json:"threads,omitempty" jsonschema:"ids are thread_ids: change whole conversations"`
	labelChange
}

// modifyLabels changes labels on messages (modify) or whole threads (modifyThreads).
func (m *mailbox) modifyLabels(ctx context.Context, req *mcp.CallToolRequest, in modifyLabelsInput) (*mcp.CallToolResult, modifyOutput, error) {
	if !in.Threads {
		return m.modify(ctx, req, modifyInput{IDs: in.IDs, labelChange: in.labelChange})
	}
	if len(in.IDs) > maxThreadIDs {
		return nil, modifyOutput{}, kit.Errorf(kit.CodeInvalidInput, "with threads, give at most %d ids, not %d", maxThreadIDs, len(in.IDs))
	}
	return m.modifyThreads(ctx, req, modifyThreadsInput{IDs: in.IDs, labelChange: in.labelChange})
}
