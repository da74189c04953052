package metrics

// shortened is an error shown as a short message (shortErr, firstLine)
// that still wraps the error it shortens, so that callers can tell a
// deadline or a refused connection with errors.Is. Immutable.
type shortened struct {
	msg string
	err error
}

func (e *shortened) Error() string { return e.msg }
func (e *shortened) Unwrap() error { return e.err }

// short is err shown as shortErr's few words.
func short(err error) error { return &shortened{msg: shortErr(err), err: err} }

// firstLineOf is err shown as its first line.
func firstLineOf(err error) error { return &shortened{msg: firstLine(err.Error()), err: err} }
