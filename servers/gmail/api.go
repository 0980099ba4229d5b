package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// The Gmail API's shapes as the server reads and writes them (JSON names as the API's), and the
// calls that carry them. Every call goes through mailbox.call, which resolves paths under
// gmail/v1/users/me/ exactly as google.golang.org/api's generated client does.

// apiHeader is one header of a message part.
type apiHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// apiBody is a part's body: data inline (base64url) or an attachment id to fetch it by.
type apiBody struct {
	AttachmentID string `json:"attachmentId,omitempty"`
	Data         string `json:"data,omitempty"`
	Size         int64  `json:"size,omitempty"`
}

// apiPart is one MIME part of a message, as Gmail parses it.
type apiPart struct {
	PartID   string      `json:"partId,omitempty"`
	MimeType string      `json:"mimeType,omitempty"`
	Filename string      `json:"filename,omitempty"`
	Headers  []apiHeader `json:"headers,omitempty"`
	Body     *apiBody    `json:"body,omitempty"`
	Parts    []*apiPart  `json:"parts,omitempty"`
}

// apiMessage is a message: parsed (payload) when read, raw (base64url RFC 822) when sent.
type apiMessage struct {
	ID           string   `json:"id,omitempty"`
	ThreadID     string   `json:"threadId,omitempty"`
	LabelIDs     []string `json:"labelIds,omitempty"`
	Snippet      string   `json:"snippet,omitempty"`
	InternalDate int64    `json:"internalDate,omitempty,string"`
	Payload      *apiPart `json:"payload,omitempty"`
	Raw          string   `json:"raw,omitempty"`
}

type apiThread struct {
	ID       string        `json:"id"`
	Messages []*apiMessage `json:"messages"`
}

type apiDraft struct {
	ID      string      `json:"id,omitempty"`
	Message *apiMessage `json:"message,omitempty"`
}

type apiLabel struct {
	ID                    string `json:"id,omitempty"`
	Name                  string `json:"name,omitempty"`
	Type                  string `json:"type,omitempty"`
	LabelListVisibility   string `json:"labelListVisibility,omitempty"`
	MessageListVisibility string `json:"messageListVisibility,omitempty"`
}

type apiFilterCriteria struct {
	From          string `json:"from,omitempty"`
	To            string `json:"to,omitempty"`
	Subject       string `json:"subject,omitempty"`
	Query         string `json:"query,omitempty"`
	HasAttachment bool   `json:"hasAttachment,omitempty"`
}

type apiFilterAction struct {
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
	Forward        string   `json:"forward,omitempty"`
}

type apiFilter struct {
	ID       string             `json:"id,omitempty"`
	Criteria *apiFilterCriteria `json:"criteria,omitempty"`
	Action   *apiFilterAction   `json:"action,omitempty"`
}

type apiProfile struct {
	EmailAddress  string `json:"emailAddress"`
	MessagesTotal int64  `json:"messagesTotal"`
	ThreadsTotal  int64  `json:"threadsTotal"`
	HistoryID     uint64 `json:"historyId,omitempty,string"`
}

// apiModify is the body of messages.batchModify (with Ids) and threads.modify (without).
type apiModify struct {
	IDs            []string `json:"ids,omitempty"`
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
}

// apiSendAs is one address the account may send from (settings.sendAs).
type apiSendAs struct {
	SendAsEmail        string `json:"sendAsEmail"`
	DisplayName        string `json:"displayName,omitempty"`
	ReplyToAddress     string `json:"replyToAddress,omitempty"`
	Signature          string `json:"signature,omitempty"`
	IsPrimary          bool   `json:"isPrimary,omitempty"`
	IsDefault          bool   `json:"isDefault,omitempty"`
	TreatAsAlias       bool   `json:"treatAsAlias,omitempty"`
	VerificationStatus string `json:"verificationStatus,omitempty"`
}

// call sends one Gmail API request for the signed-in user; path is below users/me/.
func (m *mailbox) call(ctx context.Context, method, path string, query url.Values, in, out any) error {
	return m.google.Do(ctx, method, "gmail/v1/users/"+me+"/"+path, query, in, out)
}

// readMessage reads one message in a format ("full", "metadata", "raw"); fields, when not
// empty, asks for a partial answer.
func (m *mailbox) readMessage(ctx context.Context, id, format, fields string) (*apiMessage, error) {
	q := url.Values{"format": {format}}
	if fields != "" {
		q.Set("fields", fields)
	}
	var msg apiMessage
	if err := m.call(ctx, http.MethodGet, "messages/"+url.PathEscape(id), q, nil, &msg); err != nil {
		return nil, err
	}
	return &msg, nil
}

// listQuery is a list call's paging parameters.
func listQuery(maxResults int, pageToken string) url.Values {
	q := url.Values{"maxResults": {strconv.Itoa(maxResults)}}
	if pageToken != "" {
		q.Set("pageToken", pageToken)
	}
	return q
}
