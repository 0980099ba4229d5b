package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// basicChallenge makes the token and revocation endpoints answer a failed client
// authentication as RFC 6749 §5.2 requires: invalid_client with status 401 and a
// WWW-Authenticate header naming the scheme (Basic, with the issuer as realm). The library
// answers 400 without the header, from several places (a malformed Authorization header, an
// unknown client, a wrong secret), so the answer is corrected here, where all of them pass.
// Error bodies are small JSON objects; successful answers pass through unbuffered.
func basicChallenge(realm string, next http.Handler) http.Handler {
	challenge := "Basic realm=" + strconv.Quote(realm) + `, charset="UTF-8"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A Basic header that does not decode is a failed authentication too; the library
		// would take it for none and ask for a client_id.
		if scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " "); strings.EqualFold(scheme, "Basic") {
			if _, _, ok := r.BasicAuth(); !ok {
				w.Header().Set("WWW-Authenticate", challenge)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":"invalid_client","error_description":"the Authorization header is not valid HTTP Basic: send base64(client_id:client_secret)"}`)
				return
			}
		}
		cw := &challengeWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if !cw.held {
			return
		}
		status := cw.status
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(cw.body.Bytes(), &e) == nil && e.Error == "invalid_client" {
			status = http.StatusUnauthorized
		}
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", challenge)
		}
		w.WriteHeader(status)
		_, _ = w.Write(cw.body.Bytes())
	})
}

// challengeWriter holds back an error answer (status 400 or 401) until basicChallenge has
// looked at it; other answers go straight through.
type challengeWriter struct {
	http.ResponseWriter
	status int
	held   bool
	wrote  bool
	body   bytes.Buffer
}

func (c *challengeWriter) WriteHeader(status int) {
	if c.wrote || c.held {
		return
	}
	if status == http.StatusBadRequest || status == http.StatusUnauthorized {
		c.status, c.held = status, true
		return
	}
	c.wrote = true
	c.ResponseWriter.WriteHeader(status)
}

func (c *challengeWriter) Write(b []byte) (int, error) {
	if !c.wrote && !c.held {
		c.WriteHeader(http.StatusOK)
	}
	if c.held {
		return c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}
