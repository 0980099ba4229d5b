package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mail to an address the owner has never written to is where a model's mistake, or a prompt
// injection in a message it read, costs most: the mail cannot be called back. Where the client
// can ask, the owner confirms such mail first, seeing what goes to whom. An address counts as
// known once the owner has sent it mail (a message in Sent with it in To, Cc or Bcc); mail from
// it does not count, since anyone can write to the owner, the author of an injection included,
// and neither do drafts, which a model can write.

// knownFor is how long an address found in Sent is taken as known without asking Gmail again.
const knownFor = 10 * time.Minute

// questionBodyChars bounds the body shown in the question; the rest is counted, not shown.
const questionBodyChars = 4000

// correspondents remembers, per account, the addresses found in Sent and until when.
type correspondents struct {
	mu    sync.Mutex
	until map[string]time.Time // account label + "\x00" + address
}

// known reports whether the account behind ctx has sent mail to addr, from the cache or a
// Gmail search of Sent. An address Gmail's search syntax could misread is never known.
func (m *mailbox) known(ctx context.Context, addr string) (bool, error) {
	if strings.ContainsAny(addr, " \t\"(){}:") {
		return false, nil
	}
	key := m.google.Label(ctx) + "\x00" + addr
	c := &m.correspondents
	c.mu.Lock()
	until, ok := c.until[key]
	c.mu.Unlock()
	if ok && time.Now().Before(until) {
		return true, nil
	}
	q := fmt.Sprintf("in:sent {to:%[1]s cc:%[1]s bcc:%[1]s}", addr)
	res, err := m.gm.Users.Messages.List(me).Q(q).MaxResults(1).Context(ctx).Do()
	if err != nil {
		return false, m.google.Fail(err, "the search of Sent for "+addr)
	}
	if len(res.Messages) == 0 {
		return false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.until == nil {
		c.until = map[string]time.Time{}
	}
	c.until[key] = time.Now().Add(knownFor)
	return true, nil
}

// confirmStrangers asks the owner, where the client can ask, before msg goes to an address
// they have never written to, among the addresses in among (nil: every recipient): action
// ("Send this message", "Forward this message", "Send the draft d1") and the message as it
// will go. It returns nil when those addresses are known, the owner accepted, or the client
// cannot ask (the mail goes as it always did); else the error to return before sending.
func (m *mailbox) confirmStrangers(ctx context.Context, req *mcp.CallToolRequest, action string, msg outgoing, among []string) error {
	if !confirm.Possible(ctx, req) {
		return nil
	}
	if err := m.checkRecipients(msg.To, msg.Cc, msg.Bcc); err != nil {
		return err
	}
	if among == nil {
		among = append(append(append([]string{}, msg.To...), msg.Cc...), msg.Bcc...)
	}
	all, err := mime.ParseAddresses(among)
	if err != nil {
		return kit.Errorf(kit.CodeInvalidInput, "%v: give an address (search_contacts finds a person's)", err)
	}
	self := m.myAddress(ctx)
	var strangers []string
	for _, a := range all {
		if a == self {
			continue
		}
		ok, err := m.known(ctx, a)
		if err != nil {
			return err
		}
		if !ok && !slices.Contains(strangers, a) {
			strangers = append(strangers, a)
		}
	}
	if len(strangers) == 0 {
		return nil
	}
	return confirm.Confirm(ctx, req, strangerQuestion(action, strangers, msg))
}

// outgoing is a message as the owner's question shows it.
type outgoing struct {
	To, Cc, Bcc   []string
	Subject, Body string
	Attachments   []string // name (size)
}

// outgoingOf is msg as the question shows it: its text, or its HTML when it has no text.
func outgoingOf(msg mime.Message) outgoing {
	o := outgoing{To: msg.To, Cc: msg.Cc, Bcc: msg.Bcc, Subject: msg.Subject, Body: cmp.Or(msg.Text, msg.HTML)}
	for _, a := range msg.Attach {
		o.Attachments = append(o.Attachments, fmt.Sprintf("%s (%d bytes)", a.Name, len(a.Data)))
	}
	return o
}

// draftOutgoing is a stored draft (format full) as the question shows it.
func draftOutgoing(p *apiPart) outgoing {
	text, _ := bodyText(p, "text")
	o := outgoing{To: splitHeaderList(header(p, "To")), Cc: splitHeaderList(header(p, "Cc")), Bcc: splitHeaderList(header(p, "Bcc")),
		Subject: header(p, "Subject"), Body: text}
	for _, a := range attachments(p) {
		o.Attachments = append(o.Attachments, fmt.Sprintf("%s (%d bytes)", a.Name, a.Size))
	}
	return o
}

// strangerQuestion says what will go to whom: the new addresses, the recipients, the subject,
// the attachments and the body.
func strangerQuestion(action string, strangers []string, msg outgoing) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s? You have never written to %s.\n\n", action, strings.Join(strangers, ", "))
	for _, h := range []struct {
		name string
		list []string
	}{{"To", msg.To}, {"Cc", msg.Cc}, {"Bcc", msg.Bcc}} {
		if len(h.list) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", h.name, strings.Join(h.list, ", "))
		}
	}
	fmt.Fprintf(&b, "Subject: %s\n", msg.Subject)
	for _, a := range msg.Attachments {
		fmt.Fprintf(&b, "Attachment: %s\n", a)
	}
	body := msg.Body
	if r := []rune(body); len(r) > questionBodyChars {
		body = fmt.Sprintf("%s\n[… %d more characters]", string(r[:questionBodyChars]), len(r)-questionBodyChars)
	}
	b.WriteString("\n" + body)
	return b.String()
}
