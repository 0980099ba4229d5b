package routes_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/jck411/mcp-servers/shared/routes"
)

func TestMux(t *testing.T) {
	m := routes.New()
	m.HandleFunc("GET /b", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	m.Handle("/a/", http.NotFoundHandler())
	if got, want := m.Patterns(), []string{"/a/", "GET /b"}; !slices.Equal(got, want) {
		t.Errorf("Patterns() = %v, want %v", got, want)
	}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/b", nil))
	if rec.Code != http.StatusTeapot {
		t.Errorf("GET /b: %d, want the handler's 418", rec.Code)
	}
}
