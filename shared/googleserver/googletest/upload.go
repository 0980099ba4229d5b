package googletest

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// SplitUpload splits a Google API request body the way Google's endpoints read it: a
// multipart upload is its JSON metadata part then its media part (with the media's type), a
// simple upload to an /upload/ path is all media, and anything else is JSON metadata.
func SplitUpload(r *http.Request, raw []byte) (meta, media []byte, mediaType string) {
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
		for i := 0; ; i++ {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(p)
			if i == 0 {
				meta = data
			} else {
				media, mediaType = data, p.Header.Get("Content-Type")
			}
		}
		if media == nil {
			media = []byte{}
		}
		return meta, media, mediaType
	case strings.HasPrefix(r.URL.Path, "/upload/"):
		return nil, raw, ct
	}
	return raw, nil, ""
}
