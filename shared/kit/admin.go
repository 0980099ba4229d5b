package kit

import (
	"context"
	"crypto/subtle"
	"net/http"
	"slices"
	"strconv"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/routes"
)

// maxAdminBody bounds what the console may send to /admin/.
const maxAdminBody = 64 << 10

// adminHandler is the admin surface, /admin/, which the owner's console on the auth server
// uses: the server's status, its recent calls and its run-time switches. It is off (404) without --admin-token-sha256; see adminGate for who may use it.
func (s *Server) adminHandler(mux *routes.Mux) http.Handler {
	mux.HandleFunc("GET "+admin.PathStatus, func(w http.ResponseWriter, r *http.Request) {
		admin.Write(w, http.StatusOK, s.AdminStatus(r.Context()))
	})
	mux.HandleFunc("PUT "+admin.PathSwitches, s.adminSwitches)
	mux.HandleFunc("GET "+admin.PathCalls, s.adminCalls)
	for _, r := range s.adminRoutes {
		mux.Handle(r.pattern, r.h)
	}
	mux.HandleFunc("/admin/", func(w http.ResponseWriter, r *http.Request) {
		admin.Write(w, http.StatusNotFound, admin.Problem{Error: "no such admin route: " + r.Method + " " + r.URL.Path})
	})
	return s.adminGate(mux)
}

// adminRoute is a route a server adds to its admin surface (HandleAdmin).
type adminRoute struct {
	pattern string
	h       http.Handler
}

// HandleAdmin adds a route to the server's admin surface, behind the same gate as the kit's
// own (the console token, directly): a Google or Spotify server's sign-ins. Call it from
// Setup; pattern is an http.ServeMux pattern under /admin/.
func (s *Server) HandleAdmin(pattern string, h http.Handler) {
	s.adminRoutes = append(s.adminRoutes, adminRoute{pattern, h})
}

// adminGate admits a request to the admin surface only with the console token, whose SHA-256
// the server was given, compared in constant time. It refuses, before looking at any token, a
// request a browser sends (it has an Origin header: the console token never lives in a browser)
// and one that came through a proxy or tunnel (guard.Proxied: the admin surface is for the
// console on the LAN, the host or the container network, never for the internet). It does not
// ask the Host check the MCP routes pass: the console reaches servers by container names too,
// and with no browser involved there is no DNS rebinding to stop.
func (s *Server) adminGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.AdminTokenHash == "" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Origin") != "" || guard.Proxied(r) {
			s.metrics.Refused(guard.ReasonNotLocal)
			admin.Write(w, http.StatusForbidden, admin.Problem{Error: "the admin surface answers only the console, directly: not a browser, not through a proxy or tunnel"})
			return
		}
		tok, ok := guard.BearerToken(r)
		if !ok || subtle.ConstantTimeCompare([]byte(admin.HashToken(tok)), []byte(s.cfg.AdminTokenHash)) != 1 {
			reason := guard.ReasonInvalidToken
			if !ok {
				reason = guard.ReasonMissingToken
			}
			s.metrics.Refused(reason)
			w.Header().Set("WWW-Authenticate", `Bearer realm="admin"`)
			admin.Write(w, http.StatusUnauthorized, admin.Problem{Error: "the admin surface needs the console token (its SHA-256 is this server's --admin-token-sha256)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// AdminStatus is what the server reports of itself to the console.
func (s *Server) AdminStatus(ctx context.Context) admin.Status {
	st := admin.Status{
		Name: s.spec.Name, Title: s.spec.Title, Version: s.version, Boot: s.boot, Started: s.started.UTC(),
		Health: s.Health(ctx), Switches: s.inv.Switches(), Totals: s.metrics.Totals(),
		LastCall: s.recent.last(), Errors: s.recent.errors(5), ReadOnly: s.cfg.ReadOnly,
	}
	s.switchMu.Lock()
	st.Unknown = slices.Clone(s.switchUnknown)
	s.switchMu.Unlock()
	tool := func(name string) admin.Tool {
		e, _ := s.inv.Lookup(name)
		return admin.Tool{Name: name, ReadOnly: e.ReadOnly, Offered: s.inv.Offered(name), Off: s.inv.SwitchedOff(name)}
	}
	for _, ts := range s.inv.Toolsets() {
		set := admin.Toolset{Name: ts.Name, Description: ts.Description, Optional: ts.Optional}
		for _, n := range ts.Tools {
			set.Tools = append(set.Tools, tool(n))
		}
		st.Toolsets = append(st.Toolsets, set)
	}
	if len(st.Toolsets) == 0 { // a server that declares no toolsets
		set := admin.Toolset{Description: "every tool"}
		for _, n := range s.inv.Declared() {
			set.Tools = append(set.Tools, tool(n))
		}
		st.Toolsets = append(st.Toolsets, set)
	}
	return st
}

// adminSwitches puts the console's switches in force: PUT a switches.State; the answer is the
// status after it. Unknown fields are refused, as a newer format would be.
func (s *Server) adminSwitches(w http.ResponseWriter, r *http.Request) {
	var st switches.State
	if err := admin.Read(w, r, &st, maxAdminBody); err != nil {
		admin.Write(w, http.StatusBadRequest, admin.Problem{Error: "switches: " + err.Error()})
		return
	}
	if _, err := s.SetSwitches(st); err != nil {
		status := http.StatusBadRequest
		if st.Validate() == nil { // valid, but it could not be kept
			status = http.StatusInternalServerError
			s.log.Error("run-time switches not kept", "error", err.Error())
		}
		admin.Write(w, status, admin.Problem{Error: err.Error()})
		return
	}
	admin.Write(w, http.StatusOK, s.AdminStatus(r.Context()))
}

// adminCalls answers GET /admin/calls?after=SEQ with the calls the ring holds after SEQ.
func (s *Server) adminCalls(w http.ResponseWriter, r *http.Request) {
	after := int64(0)
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			admin.Write(w, http.StatusBadRequest, admin.Problem{Error: "after: give a call's sequence number, 0 or more"})
			return
		}
		after = n
	}
	calls, lost := s.recent.after(after, recentCallsKept)
	if calls == nil {
		calls = []admin.Call{}
	}
	admin.Write(w, http.StatusOK, admin.Calls{Boot: s.boot, Calls: calls, Lost: lost})
}
