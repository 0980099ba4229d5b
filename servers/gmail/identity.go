package main

import (
	"context"
	"fmt"
	"net/mail"
	"strings"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// identityInput chooses the sender of mail the server writes: an alias of the account, and
// whether its Gmail signature goes along.
type identityInput struct {
	From        string `json:"from,omitempty" jsonschema:"address from list_send_as"`
	NoSignature bool   `json:"no_signature,omitempty" jsonschema:"leave out the Gmail signature"`
}

type sendAsInfo struct {
	Email     string `json:"email"`
	Name      string `json:"name,omitempty"`
	ReplyTo   string `json:"reply_to,omitempty"`
	Primary   bool   `json:"primary"`
	Default   bool   `json:"default"`
	Status    string `json:"status"` // accepted (usable) or pending (not verified yet)
	Signature string `json:"signature,omitempty"`
}

type listSendAsOutput struct {
	Addresses []sendAsInfo `json:"addresses"`
}

func (o listSendAsOutput) Text() string {
	var b strings.Builder
	for _, a := range o.Addresses {
		var tags []string
		if a.Primary {
			tags = append(tags, "primary")
		}
		if a.Default {
			tags = append(tags, "default")
		}
		if a.Status != "accepted" {
			tags = append(tags, a.Status)
		}
		if a.Signature != "" {
			tags = append(tags, "signature")
		}
		name := a.Email
		if a.Name != "" {
			name = fmt.Sprintf("%s <%s>", a.Name, a.Email)
		}
		fmt.Fprintf(&b, "%s [%s]\n", name, strings.Join(tags, ", "))
	}
	return strings.TrimSpace(b.String())
}

func addIdentityTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "list_send_as", Toolset: toolsetRead, Title: "Send-as addresses", ReadOnly: true, OpenWorld: true,
		Description: "The addresses this account can send from, with name, reply-to and signature."}, m.listSendAs)
}

// sendAs lists the account's send-as identities.
func (m *mailbox) sendAs(ctx context.Context) ([]*apiSendAs, error) {
	res, err := m.gm.Users.Settings.SendAs.List(me).Context(ctx).Do()
	if err != nil {
		return nil, m.google.Fail(err, "send-as addresses")
	}
	return res.SendAs, nil
}

func (m *mailbox) listSendAs(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, listSendAsOutput, error) {
	list, err := m.sendAs(ctx)
	if err != nil {
		return nil, listSendAsOutput{}, err
	}
	out := listSendAsOutput{Addresses: make([]sendAsInfo, len(list))}
	for i, a := range list {
		out.Addresses[i] = sendAsInfo{Email: a.SendAsEmail, Name: a.DisplayName, ReplyTo: a.ReplyToAddress, Primary: a.IsPrimary,
			Default: a.IsDefault, Status: verification(a), Signature: mime.HTMLToText(a.Signature)}
	}
	return nil, out, nil
}

// verification is an identity's verification: the primary address has none and is always usable.
func verification(a *apiSendAs) string {
	if a.IsPrimary || a.VerificationStatus == "" {
		return "accepted"
	}
	return a.VerificationStatus
}

// applyIdentity sets the sender the caller chose (From, and its Reply-To unless one is given)
// and appends its signature, or the default identity's, as Gmail does when composing. A body
// that already holds the signature (a draft being rewritten) does not get it twice.
func (m *mailbox) applyIdentity(ctx context.Context, msg *mime.Message, id identityInput) error {
	if id.From == "" && id.NoSignature {
		return nil // Gmail fills in the default sender itself
	}
	var want string
	if id.From != "" {
		addr, err := mail.ParseAddress(id.From)
		if err != nil {
			return kit.Errorf(kit.CodeInvalidInput, "from %q is not an email address", id.From)
		}
		want = strings.ToLower(addr.Address)
	}
	list, err := m.sendAs(ctx)
	if err != nil {
		return err
	}
	var who *apiSendAs
	for i, a := range list {
		if want != "" && strings.EqualFold(a.SendAsEmail, want) || want == "" && a.IsDefault {
			who = list[i]
			break
		}
	}
	switch {
	case who == nil && want != "":
		return kit.Errorf(kit.CodeInvalidInput, "%s is not a send-as address of this account; list_send_as shows them", want)
	case who == nil:
		return nil // no default identity listed: Gmail's own sender, no signature
	case verification(who) != "accepted":
		return kit.Errorf(kit.CodeInvalidInput, "%s is not verified yet (%s): confirm it from the mail Gmail sent it, then try again", who.SendAsEmail, verification(who))
	}
	if want != "" {
		msg.From = (&mail.Address{Name: who.DisplayName, Address: who.SendAsEmail}).String()
	}
	if len(msg.ReplyTo) == 0 && who.ReplyToAddress != "" {
		msg.ReplyTo = []string{who.ReplyToAddress}
	}
	if !id.NoSignature && who.Signature != "" {
		appendSignature(msg, who.Signature)
	}
	return nil
}

// appendSignature adds an HTML signature below the body as Gmail's composer does: after a "-- "
// line in the text part, in a gmail_signature block in the HTML part. A part that already ends
// with it (a draft read back and rewritten) is left alone; one that only quotes it is not.
func appendSignature(msg *mime.Message, sig string) {
	plain := mime.HTMLToText(sig) // empty for a signature that is only an image
	text := "-- \n" + plain
	if body := strings.TrimRight(strings.ReplaceAll(msg.Text, "\r\n", "\n"), "\n "); body != "" && plain != "" && !strings.HasSuffix(body, text) {
		msg.Text = body + "\n\n" + text
	}
	block := `<span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">` + sig + `</div>`
	if body := strings.TrimSpace(msg.HTML); body != "" && !strings.HasSuffix(body, block) {
		msg.HTML = body + `<br clear="all"><div><br></div>` + block
	}
}
