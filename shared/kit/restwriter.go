package kit

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// restError is the body of every REST error: {"error":{"code":..,"message":..}}.
type restError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeRESTError answers with status and the error envelope.
func writeRESTError(w http.ResponseWriter, status int, code, msg string) {
	var e restError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

// writeJSON answers with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// statusCode is the REST error code of an HTTP status that a guard answered.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusRequestEntityTooLarge:
		return "too_large"
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	}
	if status >= 500 {
		return CodeInternal
	}
	return "invalid"
}

// isRESTPath reports whether path is one of the REST routes' (or would be, narrowed).
func isRESTPath(path string) bool {
	return path == "/openapi.json" || strings.HasPrefix(path, "/tools/") ||
		strings.HasPrefix(path, "/x/") || strings.HasPrefix(path, "/readonly/")
}

// restErrors gives the REST routes' refusals by the guards in front of them (body limit,
// Host/Origin, the gate), which answer in plain text, the JSON error envelope, headers such as
// WWW-Authenticate kept.
func restErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isRESTPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		ew := &envelopeWriter{ResponseWriter: w}
		next.ServeHTTP(ew, r)
		ew.finish()
	})
}

// envelopeWriter holds back a plain-text error answer and writes it as the envelope.
type envelopeWriter struct {
	http.ResponseWriter
	wrote   bool
	capture int // the status of a held-back answer, 0 when passing through
	body    bytes.Buffer
}

func (e *envelopeWriter) WriteHeader(status int) {
	if e.wrote {
		return
	}
	e.wrote = true
	if status >= 400 && !strings.HasPrefix(e.Header().Get("Content-Type"), "application/json") {
		e.capture = status
		return
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *envelopeWriter) Write(b []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	if e.capture != 0 {
		return e.body.Write(b)
	}
	return e.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (e *envelopeWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// finish writes a held-back answer as the envelope.
func (e *envelopeWriter) finish() {
	if e.capture == 0 {
		return
	}
	writeRESTError(e.ResponseWriter, e.capture, statusCode(e.capture), strings.TrimSpace(e.body.String()))
}

// bufferedResponse is an in-process answer of the MCP route, read by the REST route.
type bufferedResponse struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
