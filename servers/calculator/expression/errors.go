package expression

import (
	"context"
	"errors"
	"fmt"
)

// Error kinds reported in Error.Kind.
const (
	KindSyntax         = "syntax"           // the source is not a valid expression
	KindDomain         = "domain"           // an argument is outside a function's domain
	KindDivisionByZero = "division_by_zero" // a divisor or modulus is zero
	KindTooLarge       = "too_large"        // a result would exceed the size limits
	KindLimit          = "limit"            // an input, time or internal limit was hit
	KindUnknownName    = "unknown_name"     // a name is not a constant, function or variable
	KindArity          = "arity"            // a function got the wrong number of arguments
)

// Error is a user-facing evaluation error.
type Error struct {
	Kind string // one of the Kind constants
	Pos  int    // 1-based character position of the problem in the source, 0 if not positional
	Msg  string // what is wrong and what to do about it
	Err  error  // underlying cause, set when the context ended the evaluation
	Name string // for KindUnknownName: the name
	Call bool   // for KindUnknownName: the name was called as a function
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying cause, such as context.DeadlineExceeded.
func (e *Error) Unwrap() error { return e.Err }

// errorf builds an Error whose message is what went wrong, the position, then an optional hint.
func errorf(kind string, pos int, hint string, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if pos > 0 {
		msg += fmt.Sprintf(" at position %d", pos)
	}
	if hint != "" {
		msg += "; " + hint
	}
	return &Error{Kind: kind, Pos: pos, Msg: msg}
}

// contextError reports that the context ended the evaluation.
func contextError(err error) *Error {
	msg := "evaluation took too long and was stopped; simplify the expression or lower the precision"
	if errors.Is(err, context.Canceled) {
		msg = "evaluation was cancelled before it finished"
	}
	return &Error{Kind: KindLimit, Msg: msg, Err: err}
}

// internalError reports a failure that is a bug rather than a problem with the input.
func internalError() *Error {
	return &Error{Kind: KindLimit, Msg: "internal error evaluating expression"}
}

// asError converts any error met during evaluation into an *Error.
func asError(err error) *Error {
	var ee *Error
	switch {
	case errors.As(err, &ee):
		return ee
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return contextError(err)
	default:
		return internalError()
	}
}
