package oauth

import (
	"net/http"

	"github.com/jck411/mcp-servers/shared/admin"
)

// maxAdminRequest bounds a sign-in request from the console.
const maxAdminRequest = 16 << 10

// Handler serves the sign-ins' routes of the admin surface (admin.PathAccounts and below).
// The kit's admin gate in front of it admits only the console's token.
func (s *SignIns) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+admin.PathAccounts, func(w http.ResponseWriter, _ *http.Request) {
		out, err := s.Accounts()
		if err != nil {
			admin.Write(w, http.StatusInternalServerError, admin.Problem{Error: err.Error()})
			return
		}
		admin.Write(w, http.StatusOK, out)
	})
	mux.HandleFunc("POST "+admin.PathAccountsStart, func(w http.ResponseWriter, r *http.Request) {
		var req admin.SignInStart
		if !decode(w, r, &req) {
			return
		}
		out, err := s.Start(req)
		if err != nil {
			admin.Write(w, http.StatusBadRequest, admin.Problem{Error: err.Error()})
			return
		}
		admin.Write(w, http.StatusOK, out)
	})
	mux.HandleFunc("POST "+admin.PathAccountsFinish, func(w http.ResponseWriter, r *http.Request) {
		var req admin.SignInFinish
		if !decode(w, r, &req) {
			return
		}
		out, err := s.Finish(r.Context(), req.Redirect)
		if err != nil {
			admin.Write(w, http.StatusBadRequest, admin.Problem{Error: err.Error()})
			return
		}
		admin.Write(w, http.StatusOK, out)
	})
	mux.HandleFunc("POST "+admin.PathAccountsSignOut, func(w http.ResponseWriter, r *http.Request) {
		var req admin.SignOut
		if !decode(w, r, &req) {
			return
		}
		if err := s.SignOut(r.Context(), req.Label); err != nil {
			admin.Write(w, http.StatusBadRequest, admin.Problem{Error: err.Error()})
			return
		}
		out, err := s.Accounts()
		if err != nil {
			admin.Write(w, http.StatusInternalServerError, admin.Problem{Error: err.Error()})
			return
		}
		admin.Write(w, http.StatusOK, out)
	})
	return mux
}

// decode reads a JSON request body into v, refusing unknown fields; it answers the error itself.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := admin.Read(w, r, v, maxAdminRequest); err != nil {
		admin.Write(w, http.StatusBadRequest, admin.Problem{Error: "the request is not understood: " + err.Error()})
		return false
	}
	return true
}
