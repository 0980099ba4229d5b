package mime

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// blockTags end a line of text before and after themselves.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "tr": true, "li": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "table": true, "ul": true, "ol": true, "blockquote": true, "hr": true, "section": true,
	"article": true, "header": true, "footer": true, "pre": true, "address": true, "center": true,
}

// skipTags hold no readable text.
var skipTags = map[string]bool{"script": true, "style": true, "head": true, "title": true, "noscript": true, "template": true}

var (
	spaces     = regexp.MustCompile(`[ \t\f\r\x{00a0}\x{200b}\x{200c}\x{034f}]+`)
	blankLines = regexp.MustCompile(`\n{3,}`)
)

// HTMLToText renders HTML as plain text: paragraphs and list items on their own lines, links as
// "text (url)" when the URL adds something, images by their alt text, scripts and styles dropped.
func HTMLToText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	var href string
	linkStart := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken: // io.EOF, or input the tokenizer gives up on: keep what was read
			return tidy(b.String())
		case html.TextToken:
			if skip == 0 {
				b.WriteString(spaces.ReplaceAllString(strings.ReplaceAll(string(z.Text()), "\n", " "), " "))
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			if skipTags[tag] {
				switch tt {
				case html.StartTagToken:
					skip++
				case html.EndTagToken:
					skip = max(skip-1, 0)
				}
				continue
			}
			if skip > 0 {
				continue
			}
			switch {
			case tag == "a" && tt == html.StartTagToken:
				href, linkStart = attrs["href"], b.Len()
			case tag == "a" && tt == html.EndTagToken:
				text := strings.TrimSpace(b.String()[min(linkStart, b.Len()):])
				if href != "" && !strings.HasPrefix(href, "mailto:") && !strings.HasPrefix(href, "#") && text != href && text != "" {
					b.WriteString(" (" + href + ")")
				}
				href = ""
			case tag == "img" && attrs["alt"] != "":
				b.WriteString("[" + attrs["alt"] + "]")
			case tag == "li":
				if tt != html.EndTagToken {
					b.WriteString("\n- ")
				}
			case tag == "td" || tag == "th":
				b.WriteString(" ")
			case blockTags[tag]:
				b.WriteString("\n")
				if tag == "p" || strings.HasPrefix(tag, "h") && len(tag) == 2 {
					b.WriteString("\n")
				}
			}
		}
	}
}

// tidy trims every line and collapses runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}

var stubPhrases = []string{"view in browser", "view this email in your browser", "view it in your browser", "view online",
	"view as a web page", "view as webpage", "having trouble viewing", "can't see this email", "html version", "email client does not support html", "does not support html"}

// IsStub reports whether a plain-text body is only a pointer to the HTML version ("view in
// browser", "your client does not support HTML"): short, and saying so.
func IsStub(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return true
	}
	if len(t) > 600 {
		return false
	}
	for _, p := range stubPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}
