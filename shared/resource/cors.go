package resource

import "net/http"

// corsAllowHeaders are the request headers a browser-based MCP client may send with a
// metadata request: MCP-Protocol-Version is what makes its fetch need a preflight.
const corsAllowHeaders = "Content-Type, MCP-Protocol-Version, Authorization"

// PublicMetadata serves next to any origin for GET and HEAD, answers a CORS preflight
// (OPTIONS) with 204 and the Access-Control-* headers, and refuses other methods with 405.
// It is for public documents: OAuth metadata and the 404 that points at it.
func PublicMetadata(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			next.ServeHTTP(w, r)
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "Method Not Allowed: this is a public metadata document; use GET", http.StatusMethodNotAllowed)
		}
	})
}
