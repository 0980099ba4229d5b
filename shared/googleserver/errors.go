package googleserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/api/googleapi"
)

// APIError is a Google API's error answer as the tools explain it: the HTTP status, the
// message and the reasons of {"error": {"code", "message", "errors": [{"reason"}]}}, and the
// account the call was made as. It wraps the generated client's *googleapi.Error.
type APIError struct {
	Code    int      // the HTTP status
	Message string   // error.message, or the body's start when it is not Google's JSON
	Reasons []string // error.errors[].reason, and error.status ("NOT_FOUND") when present
	Account string   // the label of the signed-in account the call was made as
	err     error
}

// Error implements error.
func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("googleapi: %d %s", e.Code, http.StatusText(e.Code))
	}
	return fmt.Sprintf("googleapi: %d: %s", e.Code, e.Message)
}

// Unwrap returns the *googleapi.Error it was made from, if any.
func (e *APIError) Unwrap() error { return e.err }

// HasReason reports whether the error carries one of the reasons.
func (e *APIError) HasReason(reasons ...string) bool {
	return slices.ContainsFunc(e.Reasons, func(r string) bool { return slices.Contains(reasons, r) })
}

// IsStatus reports whether err is a Google API error with one of the HTTP status codes.
func IsStatus(err error, codes ...int) bool {
	ae, ok := AsAPIError(err)
	return ok && slices.Contains(codes, ae.Code)
}

// accountHeader is set on a failed answer by the account's transport, naming the signed-in
// account the call was made as, so that an error from a generated client can say which
// account to sign in again.
const accountHeader = "X-Mcp-Account"

// AsAPIError finds a Google API error in err's chain: an *APIError, or a generated client's
// *googleapi.Error read as one.
func AsAPIError(err error) (*APIError, bool) {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae, true
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return nil, false
	}
	ae = fromBody(ge.Code, []byte(ge.Body))
	if ae.Message == "" {
		ae.Message = ge.Message
	}
	ae.err = ge
	ae.Account = ge.Header.Get(accountHeader)
	return ae, true
}

// fromBody reads Google's JSON error body answered with status code.
func fromBody(code int, body []byte) *APIError {
	ae := &APIError{Code: code}
	var wire struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &wire) == nil && (wire.Error.Message != "" || len(wire.Error.Errors) > 0) {
		ae.Message = wire.Error.Message
		for _, e := range wire.Error.Errors {
			ae.Reasons = append(ae.Reasons, e.Reason)
		}
		if wire.Error.Status != "" {
			ae.Reasons = append(ae.Reasons, wire.Error.Status)
		}
		return ae
	}
	ae.Message = strings.TrimSpace(string(body))
	if len(ae.Message) > 200 {
		ae.Message = ae.Message[:200] + "…"
	}
	return ae
}
