package main

import (
	"context"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
)

// The Gmail API's types, as google.golang.org/api/gmail/v1 generates them, under the names the
// server's code reads them by.
type (
	apiPart    = gmail.MessagePart
	apiMessage = gmail.Message
	apiDraft   = gmail.Draft
	apiLabel   = gmail.Label
	apiFilter  = gmail.Filter
	apiSendAs  = gmail.SendAs
)

// readMessage reads one message in a format ("full", "metadata", "raw"); fields, when not
// empty, asks for a partial answer.
func (m *mailbox) readMessage(ctx context.Context, id, format, fields string) (*apiMessage, error) {
	call := m.gm.Users.Messages.Get(me, id).Format(format).Context(ctx)
	if fields != "" {
		call.Fields(googleapi.Field(fields))
	}
	return call.Do()
}
