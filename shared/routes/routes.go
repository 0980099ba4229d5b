// Package routes is an http.ServeMux that remembers the patterns it serves, so that a test can
// try every route of a server and a route added later cannot be left out of it.
package routes

import (
	"net/http"
	"slices"
	"sync"
)

// Mux is an http.ServeMux that records each pattern it is given.
type Mux struct {
	*http.ServeMux
	mu       sync.Mutex
	patterns []string
}

// New returns an empty Mux.
func New() *Mux { return &Mux{ServeMux: http.NewServeMux()} }

// Handle registers h for pattern, as http.ServeMux.Handle does, and records the pattern.
func (m *Mux) Handle(pattern string, h http.Handler) {
	m.mu.Lock()
	m.patterns = append(m.patterns, pattern)
	m.mu.Unlock()
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc registers f for pattern, as http.ServeMux.HandleFunc does, and records the pattern.
func (m *Mux) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(f))
}

// Patterns returns every pattern registered so far, sorted.
func (m *Mux) Patterns() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(slices.Values(m.patterns))
}
