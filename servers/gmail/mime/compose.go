package mime

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	stdmime "mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
)

// Attachment is a file to attach.
type Attachment struct {
	Name string
	Type string // MIME type; guessed from Name when empty
	Data []byte
}

// Message is what Compose writes. At least one of Text and HTML should be set.
type Message struct {
	From       string
	To, Cc     []string
	Bcc        []string
	ReplyTo    []string
	Subject    string
	Text       string
	HTML       string
	InReplyTo  string // Message-ID of the message answered
	References string // its References plus its Message-ID
	Attach     []Attachment
	Date       time.Time
}

// Compose writes the message as RFC 5322 bytes: headers encoded as needed, text/plain and
// text/html as multipart/alternative, attachments in multipart/mixed. Bcc is written as a header
// because Gmail reads recipients from it and removes it before delivery.
func Compose(m Message) ([]byte, error) {
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return nil, errors.New("no recipients: give to, cc or bcc")
	}
	var buf bytes.Buffer
	h := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&buf, "%s: %s\r\n", k, v)
		}
	}
	for _, f := range []struct {
		key  string
		list []string
	}{{"From", nonEmpty(m.From)}, {"To", m.To}, {"Cc", m.Cc}, {"Bcc", m.Bcc}, {"Reply-To", m.ReplyTo}} {
		v, err := formatAddresses(f.list)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.ToLower(f.key), err)
		}
		h(f.key, v)
	}
	h("Subject", stdmime.QEncoding.Encode("utf-8", m.Subject))
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	h("Date", date.Format(time.RFC1123Z))
	h("Message-ID", newMessageID(m.From))
	h("In-Reply-To", m.InReplyTo)
	h("References", m.References)
	h("MIME-Version", "1.0")

	body, bodyHeader, err := bodyPart(m.Text, m.HTML)
	if err != nil {
		return nil, err
	}
	if len(m.Attach) == 0 {
		writeHeader(&buf, bodyHeader)
		buf.WriteString("\r\n")
		buf.Write(body)
		return buf.Bytes(), nil
	}
	mw := multipart.NewWriter(&buf)
	fmt.Fprintf(&buf, "Content-Type: multipart/mixed; boundary=%q\r\n\r\n", mw.Boundary())
	w, err := mw.CreatePart(bodyHeader)
	if err != nil {
		return nil, err
	}
	_, _ = w.Write(body)
	for _, a := range m.Attach {
		typ := a.Type
		if typ == "" {
			typ = TypeByName(a.Name)
		}
		ph := textproto.MIMEHeader{}
		mt, params, err := stdmime.ParseMediaType(typ)
		if err != nil {
			mt, params = "application/octet-stream", map[string]string{}
		}
		params["name"] = a.Name
		ph.Set("Content-Type", stdmime.FormatMediaType(mt, params))
		ph.Set("Content-Disposition", stdmime.FormatMediaType("attachment", map[string]string{"filename": a.Name}))
		ph.Set("Content-Transfer-Encoding", "base64")
		w, err := mw.CreatePart(ph)
		if err != nil {
			return nil, err
		}
		writeBase64Lines(w, a.Data)
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// bodyPart returns the body bytes and the headers that describe them.
func bodyPart(text, html string) ([]byte, textproto.MIMEHeader, error) {
	hdr := textproto.MIMEHeader{}
	if html == "" {
		hdr.Set("Content-Type", "text/plain; charset=utf-8")
		hdr.Set("Content-Transfer-Encoding", "quoted-printable")
		return qp(text), hdr, nil
	}
	if text == "" {
		text = HTMLToText(html)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range []struct{ typ, body string }{{"text/plain", text}, {"text/html", html}} {
		ph := textproto.MIMEHeader{}
		ph.Set("Content-Type", p.typ+"; charset=utf-8")
		ph.Set("Content-Transfer-Encoding", "quoted-printable")
		w, err := mw.CreatePart(ph)
		if err != nil {
			return nil, nil, err
		}
		_, _ = w.Write(qp(p.body))
	}
	if err := mw.Close(); err != nil {
		return nil, nil, err
	}
	hdr.Set("Content-Type", fmt.Sprintf("multipart/alternative; boundary=%q", mw.Boundary()))
	return buf.Bytes(), hdr, nil
}

func writeHeader(buf *bytes.Buffer, h textproto.MIMEHeader) {
	for _, k := range []string{"Content-Type", "Content-Transfer-Encoding"} {
		if v := h.Get(k); v != "" {
			fmt.Fprintf(buf, "%s: %s\r\n", k, v)
		}
	}
}

func qp(s string) []byte {
	var buf bytes.Buffer
	w := quotedprintable.NewWriter(&buf)
	_, _ = w.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")))
	_ = w.Close()
	return buf.Bytes()
}

func writeBase64Lines(w interface{ Write([]byte) (int, error) }, data []byte) {
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 76 {
		_, _ = w.Write([]byte(enc[:76] + "\r\n"))
		enc = enc[76:]
	}
	_, _ = w.Write([]byte(enc + "\r\n"))
}

// formatAddresses parses and re-encodes a list of addresses ("Name <a@b>" or "a@b").
func formatAddresses(list []string) (string, error) {
	out := make([]string, 0, len(list))
	for _, a := range list {
		addrs, err := mail.ParseAddressList(a)
		if err != nil {
			return "", fmt.Errorf("%q is not an email address: %w", a, err)
		}
		for _, p := range addrs {
			out = append(out, p.String())
		}
	}
	return strings.Join(out, ", "), nil
}

// ParseAddresses parses addresses ("Name <a@b>", "a@b", comma lists) into bare lower-case addresses.
func ParseAddresses(list []string) ([]string, error) {
	var out []string
	for _, a := range list {
		addrs, err := mail.ParseAddressList(a)
		if err != nil {
			return nil, fmt.Errorf("%q is not an email address: %w", a, err)
		}
		for _, p := range addrs {
			out = append(out, strings.ToLower(p.Address))
		}
	}
	return out, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func newMessageID(from string) string {
	domain := "mail.gmail.com"
	if a, err := mail.ParseAddress(from); err == nil {
		if _, d, ok := strings.Cut(a.Address, "@"); ok {
			domain = d
		}
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "<" + base64.RawURLEncoding.EncodeToString(b) + "@" + domain + ">"
}

// TypeByName guesses a MIME type from a file name; application/octet-stream when unknown.
func TypeByName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if t := stdmime.TypeByExtension(name[i:]); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}
