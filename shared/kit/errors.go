package kit

import "fmt"

// Error codes carried by tool errors into logs and metrics.
const (
	CodeInvalidInput = "invalid_input" // the arguments are wrong; the message says how to fix them
	CodeNotFound     = "not_found"     // the thing named does not exist
	CodeUnavailable  = "unavailable"   // a dependency (token, upstream, browser) cannot be used now
	CodeLimit        = "limit"         // a size, count or time limit was hit
	CodeTimeout      = "timeout"       // the call outlived its timeout
	CodeInternal     = "internal"      // a bug: a panic or an impossible state
	CodeCancelled    = "cancelled"     // the client cancelled the call, went away, or the server is stopping
	CodeDeclined     = "declined"      // the owner declined to confirm the action (package confirm)
	codeTool         = "tool_error"    // an error without a code
	codeArguments    = "invalid_arguments"
)

// Error is a tool error with a code for logs and metrics; the model sees only the message.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a tool error with a code; %w wraps as in fmt.Errorf.
func Errorf(code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}
