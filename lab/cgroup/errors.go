package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// UnavailableError says the lab cannot use cgroups here, and why: no
// hierarchy holds the cpu controller, the cgroup file system is read-only,
// this process may not write it (not root), or the controller cannot be
// enabled where the groups would go. Callers skip or refuse with Reason.
type UnavailableError struct {
	// Reason is one line for a person ("the cgroup file system at
	// /sys/fs/cgroup/cpu is read-only").
	Reason string
	// Err is the error beneath, if any.
	Err error
}

func (e *UnavailableError) Error() string { return "cgroups unavailable: " + e.Reason }

func (e *UnavailableError) Unwrap() error { return e.Err }

// unavailable returns an *UnavailableError with a formatted reason.
func unavailable(err error, format string, args ...any) *UnavailableError {
	return &UnavailableError{Reason: fmt.Sprintf(format, args...), Err: err}
}

// IsUnavailable reports whether err is (or wraps) an *UnavailableError.
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}

// permission turns a write's error into an *UnavailableError when it says
// cgroups cannot be written here (permission, read-only); other errors are
// wrapped with what was written.
func permission(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EPERM):
		return unavailable(err, "not permitted to write %s (run as root, or delegate the cgroup to this user)", what)
	case errors.Is(err, syscall.EROFS):
		return unavailable(err, "%s is on a read-only cgroup file system", what)
	}
	return fmt.Errorf("write %s: %w", what, err)
}
