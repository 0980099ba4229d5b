package googlefake

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/gmail/v1"
)

// Gmail is the Gmail API (users/me) over HTTP. A test fills the exported state before its
// first call and reads what the calls recorded after they returned.
type Gmail struct {
	*Server
	Profile     *gmail.Profile
	Messages    map[string]*gmail.Message // by id
	Order       []string                  // message ids in list order, newest first
	Attachments map[string][]byte         // by attachment id
	Labels      []*gmail.Label
	Filters     []*gmail.Filter
	SendAs      []*gmail.SendAs // settings.sendAs; empty lists none
	Drafts      map[string]*gmail.Draft
	// DraftView is the message drafts.get answers for any draft (the fake does not parse the
	// raw MIME a draft is stored as).
	DraftView *gmail.Message
	Sent      []*gmail.Message // messages.send bodies
	Modified  []*gmail.BatchModifyMessagesRequest
}

// NewGmail starts a Gmail fake with no messages, closed when the test ends. Its endpoint is
// URL+"/".
func NewGmail(t testing.TB) *Gmail {
	g := &Gmail{Server: newServer(t, "Gmail"), Messages: map[string]*gmail.Message{}, Attachments: map[string][]byte{}, Drafts: map[string]*gmail.Draft{}}
	const base = "/gmail/v1/users/me"
	g.handle("GET "+base+"/profile", func(w http.ResponseWriter, _ *http.Request, _ Request) { WriteJSON(w, g.Profile) })
	g.handle("GET "+base+"/messages", g.listMessages)
	g.handle("GET "+base+"/messages/{id}", g.getMessage)
	g.handle("GET "+base+"/messages/{id}/attachments/{aid}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		data, ok := g.Attachments[r.PathValue("aid")]
		if !ok {
			notFound(w, "Requested entity was not found.")
			return
		}
		WriteJSON(w, &gmail.MessagePartBody{Data: base64.URLEncoding.EncodeToString(data), Size: int64(len(data))})
	})
	g.handle("GET "+base+"/threads/{id}", g.getThread)
	g.handle("POST "+base+"/threads/{id}/modify", func(w http.ResponseWriter, r *http.Request, rq Request) {
		var req gmail.ModifyThreadRequest
		g.decode(rq, &req)
		g.changeThread(w, r.PathValue("id"), req.AddLabelIds, req.RemoveLabelIds)
	})
	g.handle("POST "+base+"/threads/{id}/trash", func(w http.ResponseWriter, r *http.Request, _ Request) {
		g.changeThread(w, r.PathValue("id"), []string{"TRASH"}, []string{"INBOX"})
	})
	g.handle("POST "+base+"/threads/{id}/untrash", func(w http.ResponseWriter, r *http.Request, _ Request) {
		g.changeThread(w, r.PathValue("id"), nil, []string{"TRASH"})
	})
	g.handle("POST "+base+"/messages/send", g.send)
	g.handle("POST "+base+"/messages/batchModify", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		var req gmail.BatchModifyMessagesRequest
		g.decode(rq, &req)
		g.mu.Lock()
		g.Modified = append(g.Modified, &req)
		g.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	g.labelRoutes(base)
	g.draftRoutes(base)
	g.handle("GET "+base+"/settings/filters", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		WriteJSON(w, &gmail.ListFiltersResponse{Filter: g.Filters})
	})
	g.handle("POST "+base+"/settings/filters", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		var fl gmail.Filter
		g.decode(rq, &fl)
		g.mu.Lock()
		defer g.mu.Unlock()
		fl.Id = fmt.Sprintf("f%d", len(g.Filters)+1)
		g.Filters = append(g.Filters, &fl)
		WriteJSON(w, &fl)
	})
	g.handle("GET "+base+"/settings/sendAs", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		WriteJSON(w, &gmail.ListSendAsResponse{SendAs: g.SendAs})
	})
	g.handle("DELETE "+base+"/settings/filters/{id}", func(w http.ResponseWriter, _ *http.Request, _ Request) { w.WriteHeader(http.StatusNoContent) })
	return g
}

func (g *Gmail) decode(rq Request, v any) {
	if err := rq.Decode(v); err != nil {
		g.t.Errorf("fake Gmail: %v", err)
	}
}

func (g *Gmail) listMessages(w http.ResponseWriter, r *http.Request, _ Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := g.Order
	if match, ok := addressQuery(r.URL.Query().Get("q")); ok {
		ids = nil
		for _, id := range g.Order {
			if match(g.Messages[id]) {
				ids = append(ids, id)
			}
		}
	}
	start, end, next := page(r.URL.Query(), "maxResults", 100, len(ids))
	res := &gmail.ListMessagesResponse{ResultSizeEstimate: int64(len(ids)), NextPageToken: next}
	for _, id := range ids[start:end] {
		res.Messages = append(res.Messages, &gmail.Message{Id: id, ThreadId: g.Messages[id].ThreadId})
	}
	WriteJSON(w, res)
}

// addressQuery understands the searches for mail with an address: in:sent and from:, to:,
// cc:, bcc: terms, the address terms taken as alternatives (Gmail's {…}). Any other query is
// not searched: the list holds every message, as it always did.
func addressQuery(q string) (func(*gmail.Message) bool, bool) {
	inSent := false
	var terms [][2]string // header, address
	for _, tok := range strings.Fields(strings.NewReplacer("{", " ", "}", " ").Replace(q)) {
		op, addr, _ := strings.Cut(strings.ToLower(tok), ":")
		switch {
		case tok == "in:sent":
			inSent = true
		case addr != "" && (op == "from" || op == "to" || op == "cc" || op == "bcc"):
			terms = append(terms, [2]string{op, addr})
		default:
			return nil, false
		}
	}
	if !inSent && len(terms) == 0 {
		return nil, false
	}
	return func(m *gmail.Message) bool {
		if inSent && !slices.Contains(m.LabelIds, "SENT") {
			return false
		}
		for _, t := range terms {
			if strings.Contains(strings.ToLower(headerOf(m.Payload, t[0])), t[1]) {
				return true
			}
		}
		return len(terms) == 0
	}, true
}

func (g *Gmail) getMessage(w http.ResponseWriter, r *http.Request, _ Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.Messages[r.PathValue("id")]
	switch {
	case !ok:
		notFound(w, "Requested entity was not found.")
	case r.URL.Query().Get("format") == "raw":
		raw := "From: " + headerOf(m.Payload, "From") + "\r\nSubject: raw\r\n\r\nraw body"
		WriteJSON(w, &gmail.Message{Id: m.Id, Raw: base64.URLEncoding.EncodeToString([]byte(raw))})
	default:
		WriteJSON(w, m)
	}
}

// metadataOf is a stored raw message as format=metadata shows it: ids and top-level headers.
func metadataOf(m *gmail.Message) *gmail.Message {
	out := &gmail.Message{Id: m.Id, ThreadId: m.ThreadId, Payload: &gmail.MessagePart{}}
	raw, err := base64.URLEncoding.DecodeString(m.Raw)
	if err != nil {
		return out
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return out
	}
	for name, values := range msg.Header {
		for _, v := range values {
			out.Payload.Headers = append(out.Payload.Headers, &gmail.MessagePartHeader{Name: name, Value: v})
		}
	}
	return out
}

func headerOf(p *gmail.MessagePart, name string) string {
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func (g *Gmail) getThread(w http.ResponseWriter, r *http.Request, _ Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	th := &gmail.Thread{Id: r.PathValue("id")}
	for _, id := range g.Order {
		if g.Messages[id].ThreadId == th.Id {
			th.Messages = append(th.Messages, g.Messages[id])
		}
	}
	if len(th.Messages) == 0 {
		notFound(w, "Requested entity was not found.")
		return
	}
	WriteJSON(w, th)
}

// changeThread adds and removes labels on every message of a thread, as threads.modify,
// threads.trash and threads.untrash do, and answers the thread's ids and labels. A label that is
// neither a system label (upper case) nor one of Labels is refused as Gmail refuses it.
func (g *Gmail) changeThread(w http.ResponseWriter, id string, add, remove []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range append(slices.Clone(add), remove...) {
		known := l == strings.ToUpper(l)
		for _, x := range g.Labels {
			known = known || x.Id == l
		}
		if !known {
			WriteError(w, http.StatusBadRequest, "Invalid label: "+l, "invalidArgument")
			return
		}
	}
	th := &gmail.Thread{Id: id}
	for _, mid := range g.Order {
		m := g.Messages[mid]
		if m.ThreadId != id {
			continue
		}
		labels := slices.DeleteFunc(slices.Clone(m.LabelIds), func(l string) bool { return slices.Contains(remove, l) })
		for _, l := range add {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
		m.LabelIds = labels
		th.Messages = append(th.Messages, &gmail.Message{Id: m.Id, ThreadId: id, LabelIds: labels})
	}
	if len(th.Messages) == 0 {
		notFound(w, "Requested entity was not found.")
		return
	}
	WriteJSON(w, th)
}

func (g *Gmail) send(w http.ResponseWriter, _ *http.Request, rq Request) {
	var m gmail.Message
	g.decode(rq, &m)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Sent = append(g.Sent, &m)
	thread := m.ThreadId
	if thread == "" {
		thread = fmt.Sprintf("t-sent%d", len(g.Sent))
	}
	WriteJSON(w, &gmail.Message{Id: fmt.Sprintf("sent%d", len(g.Sent)), ThreadId: thread, LabelIds: []string{"SENT"}})
}

func (g *Gmail) labelRoutes(base string) {
	g.handle("GET "+base+"/labels", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		WriteJSON(w, &gmail.ListLabelsResponse{Labels: g.Labels})
	})
	g.handle("POST "+base+"/labels", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		var l gmail.Label
		g.decode(rq, &l)
		g.mu.Lock()
		defer g.mu.Unlock()
		l.Id, l.Type = g.newID("Label_"), "user"
		g.Labels = append(g.Labels, &l)
		WriteJSON(w, &l)
	})
	g.handle("PATCH "+base+"/labels/{id}", func(w http.ResponseWriter, r *http.Request, rq Request) {
		var l gmail.Label
		g.decode(rq, &l)
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, x := range g.Labels {
			if x.Id == r.PathValue("id") {
				x.Name = l.Name
				WriteJSON(w, x)
				return
			}
		}
		notFound(w, "Requested entity was not found.")
	})
	g.handle("DELETE "+base+"/labels/{id}", func(w http.ResponseWriter, _ *http.Request, _ Request) { w.WriteHeader(http.StatusNoContent) })
}

func (g *Gmail) draftRoutes(base string) {
	g.handle("POST "+base+"/drafts", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		var d gmail.Draft
		g.decode(rq, &d)
		g.mu.Lock()
		defer g.mu.Unlock()
		d.Id = fmt.Sprintf("d%d", len(g.Drafts)+1)
		d.Message.Id = "dm-" + d.Id
		if d.Message.ThreadId == "" { // a draft answering a message stays in its thread
			d.Message.ThreadId = "t-" + d.Id
		}
		g.Drafts[d.Id] = &d
		WriteJSON(w, &d)
	})
	g.handle("PUT "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request, rq Request) {
		var d gmail.Draft
		g.decode(rq, &d)
		g.mu.Lock()
		defer g.mu.Unlock()
		id := r.PathValue("id")
		if g.Drafts[id] == nil {
			notFound(w, "Requested entity was not found.")
			return
		}
		d.Id, d.Message.Id = id, "dm2-"+id
		if d.Message.ThreadId == "" {
			d.Message.ThreadId = "t-" + id
		}
		g.Drafts[id] = &d
		WriteJSON(w, &d)
	})
	g.handle("GET "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		d := g.Drafts[r.PathValue("id")]
		if d == nil {
			notFound(w, "Requested entity was not found.")
			return
		}
		if r.URL.Query().Get("format") == "metadata" && d.Message != nil && d.Message.Raw != "" {
			WriteJSON(w, &gmail.Draft{Id: d.Id, Message: metadataOf(d.Message)})
			return
		}
		WriteJSON(w, &gmail.Draft{Id: r.PathValue("id"), Message: g.DraftView})
	})
	g.handle("GET "+base+"/drafts", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		res := &gmail.ListDraftsResponse{}
		for id := range g.Drafts {
			res.Drafts = append(res.Drafts, &gmail.Draft{Id: id})
		}
		WriteJSON(w, res)
	})
	g.handle("POST "+base+"/drafts/send", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		var d gmail.Draft
		g.decode(rq, &d)
		WriteJSON(w, &gmail.Message{Id: "sent-" + d.Id, ThreadId: "t-" + d.Id})
	})
	g.handle("DELETE "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.Drafts, r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
}
