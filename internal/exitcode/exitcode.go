// Package exitcode gives errors the process exit code they should cause.
//
// Commands return errors; only main turns them into an exit status. An error
// that carries no code exits with Failure. The codes are part of etcdlab's
// interface: scripts branch on them.
package exitcode

import (
	"errors"
	"fmt"
)

// Exit codes used by every etcdlab command.
const (
	// OK means the command did what it was asked.
	OK = 0
	// Failure means the command could not do what it was asked (an unreachable
	// cluster, a member that did not start, an I/O error).
	Failure = 1
	// Usage means the command line or its input was wrong; nothing was done.
	Usage = 2
	// CheckFailed means a check ran to completion and its verdict is FAIL.
	CheckFailed = 3
	// Interrupted is what main exits with after a second interrupt signal.
	Interrupted = 130
)

// Error is an error with an exit code. It is safe to share between goroutines.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// With wraps err with code unless err already carries one. It returns nil for
// a nil err.
func With(err error, code int) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// Usagef returns a usage error (exit code 2) formatted like fmt.Errorf.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Failuref returns a failure (exit code 1) formatted like fmt.Errorf.
func Failuref(format string, args ...any) error {
	return &Error{Code: Failure, Err: fmt.Errorf(format, args...)}
}

// Code returns the exit code err should cause: OK for nil, the carried code
// if there is one, Failure otherwise.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}

// Detailer is implemented by errors that have more to say than their one-line
// message, such as the tail of a log file. The CLI prints the detail after the
// error line.
type Detailer interface {
	Detail() string
}
