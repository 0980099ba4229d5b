package mime

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
)

// DecodeCharset converts data in the named charset to UTF-8. An unknown charset, or none, is
// taken as UTF-8 when valid and as Windows-1252 otherwise (what mislabelled mail usually is).
func DecodeCharset(data []byte, charset string) string {
	charset = strings.ToLower(strings.Trim(strings.TrimSpace(charset), `"`))
	switch charset {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		if utf8.Valid(data) {
			return string(data)
		}
		charset = "windows-1252"
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		if utf8.Valid(data) {
			return string(data)
		}
		enc, _ = htmlindex.Get("windows-1252")
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}
