package mime

import (
	"io"
	stdmime "mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
)

func TestDecodeCharset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data    []byte
		charset string
		want    string
	}{
		{[]byte("Gr\xfc\xdfe aus K\xf6ln"), "ISO-8859-1", "Grüße aus Köln"},
		{[]byte("\xcf\xf0\xe8\xe2\xe5\xf2"), "windows-1251", "Привет"},
		{[]byte("\x93quoted\x94"), "", "\u201cquoted\u201d"},
		{[]byte("plain ütf"), "utf-8", "plain ütf"},
		{[]byte("\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd"), "shift_jis", "こんにちは"},
		{[]byte("ok"), "x-unknown", "ok"},
	}
	for _, tt := range tests {
		if got := DecodeCharset(tt.data, tt.charset); got != tt.want {
			t.Errorf("DecodeCharset(%q, %q) = %q, want %q", tt.data, tt.charset, got, tt.want)
		}
	}
}

func TestHTMLToText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`<html><head><style>p{color:red}</style><title>T</title></head><body><h1>Weekly news</h1><p>Hello&nbsp;<b>Ada</b>,</p><p>Read <a href="https://ex.com/a">the post</a>.</p><ul><li>one</li><li>two</li></ul><script>alert(1)</script></body></html>`,
			"Weekly news\n\nHello Ada,\n\nRead the post (https://ex.com/a).\n\n- one\n- two"},
		{`<div>a<br>b</div><img alt="logo" src="x.png"><a href="https://x.y">https://x.y</a>`, "a\nb\n[logo]https://x.y"},
		{`<table><tr><td>Total</td><td>3 &euro;</td></tr></table>`, "Total  3 €"},
	}
	for _, tt := range tests {
		if got := HTMLToText(tt.in); got != tt.want {
			t.Errorf("HTMLToText(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestIsStub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want bool
	}{
		{"", true},
		{"  View this email in your browser: https://ex.com/v/1  ", true},
		{"Your email client does not support HTML messages.", true},
		{"Hi Ada,\n\nlunch on Friday?\n\nBob", false},
		{strings.Repeat("A long real message that mentions view in browser at the end. ", 20), false},
	}
	for _, tt := range tests {
		if got := IsStub(tt.text); got != tt.want {
			t.Errorf("IsStub(%.40q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// parsed is a composed message read back with the standard library.
type parsed struct {
	header mail.Header
	parts  map[string]string // content type (without params) or filename → decoded body
}

func parseBack(t *testing.T, raw []byte) parsed {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, raw)
	}
	p := parsed{header: msg.Header, parts: map[string]string{}}
	var walk func(ct string, cte string, body io.Reader, filename string)
	walk = func(ct, cte string, body io.Reader, filename string) {
		mt, params, err := stdmime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("content type %q: %v", ct, err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				part, err := mr.NextRawPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				_, dp, _ := stdmime.ParseMediaType(part.Header.Get("Content-Disposition"))
				walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part, dp["filename"])
			}
		}
		r := body
		switch strings.ToLower(cte) {
		case "quoted-printable":
			r = quotedPrintableReader(body)
		case "base64":
			r = base64Reader(body)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		key := mt
		if filename != "" {
			key = filename
		}
		p.parts[key] = string(b)
	}
	walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, "")
	return p
}

func TestCompose(t *testing.T) {
	t.Parallel()
	raw, err := Compose(Message{
		From: "Ada Lovelace <ada@example.com>", To: []string{"Bob <bob@example.com>", "carol@example.com"},
		Cc: []string{"dan@example.com"}, Bcc: []string{"eve@example.com"}, ReplyTo: []string{"replies@example.com"},
		Subject: "Grüße — notes", Text: "Hello Bob,\nsee attached.\n", HTML: "<p>Hello Bob,</p><p>see attached.</p>",
		InReplyTo: "<m1@mail.example.com>", References: "<m0@mail.example.com> <m1@mail.example.com>",
		Attach: []Attachment{{Name: "notes.txt", Data: []byte("line 1\nline 2\n")}, {Name: "data.bin", Data: []byte{0, 1, 2, 255}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := parseBack(t, raw)
	dec := new(stdmime.WordDecoder)
	subject, _ := dec.DecodeHeader(p.header.Get("Subject"))
	for k, want := range map[string]string{
		"From": `"Ada Lovelace" <ada@example.com>`, "To": `"Bob" <bob@example.com>, <carol@example.com>`, "Cc": "<dan@example.com>",
		"Bcc": "<eve@example.com>", "Reply-To": "<replies@example.com>", "In-Reply-To": "<m1@mail.example.com>",
		"References": "<m0@mail.example.com> <m1@mail.example.com>", "MIME-Version": "1.0",
	} {
		if got := p.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if subject != "Grüße — notes" {
		t.Errorf("subject %q", subject)
	}
	if !strings.HasSuffix(p.header.Get("Message-ID"), "@example.com>") {
		t.Errorf("Message-ID %q", p.header.Get("Message-ID"))
	}
	want := map[string]string{
		"text/plain": "Hello Bob,\r\nsee attached.\r\n", "text/html": "<p>Hello Bob,</p><p>see attached.</p>",
		"notes.txt": "line 1\nline 2\n", "data.bin": "\x00\x01\x02\xff",
	}
	for k, v := range want {
		if p.parts[k] != v {
			t.Errorf("part %s = %q, want %q", k, p.parts[k], v)
		}
	}
	if len(p.parts) != len(want) {
		t.Errorf("parts %v", p.parts)
	}
	if _, err := Compose(Message{Subject: "x", Text: "y"}); err == nil {
		t.Error("a message without recipients was composed")
	}
	if _, err := Compose(Message{To: []string{"not an address"}, Text: "y"}); err == nil {
		t.Error("a bad address was accepted")
	}
}
