package googlefake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

func contextWith(r *http.Request, rq Request) context.Context {
	return context.WithValue(r.Context(), requestKey{}, rq)
}

// WriteJSON answers v as JSON, as Google's APIs do.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}

// googleError is the error body every Google JSON API answers with.
type googleError struct {
	Error struct {
		Code    int         `json:"code"`
		Message string      `json:"message"`
		Errors  []errorItem `json:"errors,omitempty"`
		Status  string      `json:"status,omitempty"`
	} `json:"error"`
}

// errorItem is one entry of an error body's errors list.
type errorItem struct {
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// WriteError answers status with Google's JSON error body carrying message and reason.
func WriteError(w http.ResponseWriter, status int, message, reason string) {
	var e googleError
	e.Error.Code, e.Error.Message, e.Error.Status = status, message, statusNames[status]
	if reason != "" {
		e.Error.Errors = append(e.Error.Errors, errorItem{"global", reason, message})
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(&e)
}

// statusNames are the canonical status names Google puts beside the HTTP code.
var statusNames = map[int]string{
	http.StatusBadRequest:          "INVALID_ARGUMENT",
	http.StatusUnauthorized:        "UNAUTHENTICATED",
	http.StatusForbidden:           "PERMISSION_DENIED",
	http.StatusNotFound:            "NOT_FOUND",
	http.StatusTooManyRequests:     "RESOURCE_EXHAUSTED",
	http.StatusInternalServerError: "INTERNAL",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
}

// writeFailure answers an injected failure the way Google words it.
func writeFailure(w http.ResponseWriter, status int) {
	switch status {
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "0")
		WriteError(w, status, "Too many concurrent requests for user", "rateLimitExceeded")
	case http.StatusInternalServerError, http.StatusServiceUnavailable:
		WriteError(w, status, "Backend Error", "backendError")
	default:
		WriteError(w, status, http.StatusText(status), "")
	}
}

// notFound answers Google's 404 with message.
func notFound(w http.ResponseWriter, message string) {
	WriteError(w, http.StatusNotFound, message, "notFound")
}

// page cuts n items into the page a list call asks for: its size parameter (def when absent)
// and its pageToken "pN", which continues at item N. It returns the slice bounds and the token
// of the next page, "" on the last.
func page(q url.Values, sizeParam string, def, n int) (start, end int, next string) {
	size := def
	if s := q.Get(sizeParam); s != "" {
		_, _ = fmt.Sscan(s, &size)
	}
	if tok := q.Get("pageToken"); tok != "" {
		_, _ = fmt.Sscanf(tok, "p%d", &start)
	}
	start = min(max(start, 0), n)
	end = min(start+size, n)
	if end < n {
		next = fmt.Sprintf("p%d", end)
	}
	return start, end, next
}

// splitUpload splits a request body the way Google's endpoints read it: a multipart upload is
// its JSON metadata part then its media part (with the media's type), a simple upload to an
// /upload/ path is all media, and anything else is JSON metadata.
func splitUpload(r *http.Request, raw []byte) (meta, media []byte, mediaType string) {
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
	case r.URL.Query().Get("upload_id") != "":
		return nil, raw, ct // a chunk of a resumable session's content
	case r.URL.Query().Get("uploadType") == "resumable" && r.Method != http.MethodPut:
		return raw, nil, "" // a resumable session opens with the metadata alone
	case strings.HasPrefix(r.URL.Path, "/upload/"):
		return nil, raw, ct
	}
	return raw, nil, ""
}
