package units

// Error reports an invalid conversion request; Msg tells the caller what to change.
type Error struct {
	Msg string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

func errorf(msg string) *Error { return &Error{Msg: msg} }
