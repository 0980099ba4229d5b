// Package googlefake serves fakes of the Google APIs the fleet calls (Gmail, Calendar, Drive)
// over real HTTP on loopback, with the APIs' paths, JSON shapes and error bodies, so that tests
// run the production client code against them. The common parts live here once: the bearer
// token check, request recording, injected failures, Google's error bodies, paging and ids.
package googlefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Token is the only access token the fakes accept (the one googletest.SignIn writes).
const Token = "live-token"

// Request is one call a fake saw.
type Request struct {
	Method, Path string
	Pattern      string // the route it matched, e.g. "GET /drive/v3/files/{id}"
	Query        url.Values
	Body         map[string]any // the JSON body, or the metadata part of an upload
	Raw          []byte         // that JSON as sent
	Media        []byte         // the media part of an upload
	MediaType    string
	ContentType  string
	UploadType   string // X-Upload-Content-Type: the content type a resumable upload announces
	Auth         string // the Authorization header: which account's token it came with
}

// Decode unmarshals the request's JSON body into v.
func (r Request) Decode(v any) error {
	if err := json.Unmarshal(r.Raw, v); err != nil {
		return fmt.Errorf("decode %s %s body: %w", r.Method, r.Path, err)
	}
	return nil
}

// handler serves one route with the request already recorded.
type handler func(w http.ResponseWriter, r *http.Request, rq Request)

// Server is the HTTP half every fake shares. Its URL is the API's root.
type Server struct {
	URL string
	// Intercept, when set, sees every signed-in request first and may answer it itself (to
	// fail in a way FailNext cannot, or to act before or after the API); next is the API, which
	// records the request. Set it before the first request.
	Intercept func(w http.ResponseWriter, r *http.Request, next http.Handler)

	t     testing.TB
	name  string
	mux   *http.ServeMux
	mu    sync.Mutex // guards the fields below and the state of the API built on it
	reqs  []Request
	fails map[string][]int // route → statuses to answer with first, in order
	ids   int
	extra []string // access tokens accepted besides Token (Accept)
}

func newServer(t testing.TB, name string) *Server {
	s := &Server{t: t, name: name, mux: http.NewServeMux(), fails: map[string][]int{}}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake %s: unexpected %s %s", name, r.Method, r.URL)
		WriteError(w, http.StatusNotFound, "Not Found", "notFound")
	})
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// handle routes pattern to h.
func (s *Server) handle(pattern string, h handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h(w, r, r.Context().Value(requestKey{}).(Request))
	})
}

type requestKey struct{}

// serve checks the token, records the request, answers an injected failure if one is due,
// and routes the rest.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ok := r.Header.Get("Authorization") == "Bearer "+Token || slices.Contains(s.extra, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	s.mu.Unlock()
	if !ok {
		WriteError(w, http.StatusUnauthorized, "Request had invalid authentication credentials. Expected OAuth 2 access token.", "authError")
		return
	}
	if s.Intercept != nil {
		s.Intercept(w, r, http.HandlerFunc(s.dispatch))
		return
	}
	s.dispatch(w, r)
}

// dispatch records a request, answers an injected failure if one is due, and routes the rest.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	_, pattern := s.mux.Handler(r)
	rq := s.record(r, pattern)
	s.mu.Lock()
	var status int
	if q := s.fails[pattern]; len(q) > 0 {
		status, s.fails[pattern] = q[0], q[1:]
	}
	s.mu.Unlock()
	if status != 0 {
		writeFailure(w, status)
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(contextWith(r, rq)))
}

// record keeps a request, splitting an upload into its metadata and media.
func (s *Server) record(r *http.Request, pattern string) Request {
	rq := Request{Method: r.Method, Path: r.URL.Path, Pattern: pattern, Query: r.URL.Query(), Body: map[string]any{}, ContentType: r.Header.Get("Content-Type"),
		UploadType: r.Header.Get("X-Upload-Content-Type"), Auth: r.Header.Get("Authorization")}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("fake %s: read body: %v", s.name, err)
	}
	rq.Raw, rq.Media, rq.MediaType = splitUpload(r, raw)
	if len(rq.Raw) > 0 {
		if err := json.Unmarshal(rq.Raw, &rq.Body); err != nil {
			s.t.Errorf("fake %s: bad body %q: %v", s.name, rq.Raw, err)
		}
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rq)
	s.mu.Unlock()
	return rq
}

// Calls returns the recorded requests with the method (any, when "") whose path ends in
// suffix, oldest first.
func (s *Server) Calls(method, suffix string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.reqs {
		if (method == "" || r.Method == method) && strings.HasSuffix(r.Path, suffix) {
			out = append(out, r)
		}
	}
	return out
}

// Accept makes the fake take these access tokens as well as Token: other signed-in accounts'
// (googletest.AddAccount). Requests record which one came (Request.Auth).
func (s *Server) Accept(tokens ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra = append(s.extra, tokens...)
}

// Requests counts every request recorded so far.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Hits counts the recorded requests that matched the route pattern, e.g. "GET /drive/v3/files".
func (s *Server) Hits(pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if r.Pattern == pattern {
			n++
		}
	}
	return n
}

// FailNext makes the next n requests to the route pattern answer status with Google's error
// body for it (a 429 also says Retry-After: 0), as Google does at times.
func (s *Server) FailNext(pattern string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.fails[pattern] = append(s.fails[pattern], status)
	}
}

// FailsLeft is how many injected failures the route pattern has still to answer.
func (s *Server) FailsLeft(pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fails[pattern])
}

// newID returns prefix and a number no other id of this fake has; the caller holds mu.
func (s *Server) newID(prefix string) string {
	s.ids++
	return fmt.Sprintf("%s%d", prefix, s.ids)
}

// Client is an HTTP client that sends the token the fakes accept, for tests that build an API
// client themselves instead of signing a server in.
func Client() *http.Client { return &http.Client{Transport: bearer{}} }

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+Token)
	return http.DefaultTransport.RoundTrip(r)
}
