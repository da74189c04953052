// Package invalid is the one error type every etcdlab library returns for
// input that cannot run: a bad option value, a missing argument, options
// that contradict each other. Such an error means nothing was done.
//
// Messages name the options by their Go field names in braces, such as
// "{Clients} must be at least 1, not 0". A library user reads them as they
// are ("Clients must be at least 1, not 0"); the CLI renders them with its
// own flag names ("--clients must be at least 1, not 0") through Text, so no
// library needs to know how a command spells its flags.
//
// An *Error is immutable and safe to share between goroutines.
package invalid

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Error is an invalid-input error.
type Error struct {
	format string
	args   []any
}

// placeholder matches {Name}: an exported Go identifier in braces.
var placeholder = regexp.MustCompile(`\{([A-Z][A-Za-z0-9]*)\}`)

// Errorf returns an invalid-input error. format is fmt's, and may name
// options as {Field}; only the format is searched for placeholders, never
// the arguments, so values from the user cannot be mistaken for names.
func Errorf(format string, args ...any) error {
	return &Error{format: format, args: args}
}

// Error renders the message with the options' Go field names.
func (e *Error) Error() string { return e.Text(nil) }

// Text renders the message, naming each option with name(field); a nil
// name (or one that returns "") keeps the field name.
func (e *Error) Text(name func(field string) string) string {
	f := placeholder.ReplaceAllStringFunc(e.format, func(m string) string {
		field := m[1 : len(m)-1]
		if name != nil {
			if n := name(field); n != "" {
				field = n
			}
		}
		return strings.ReplaceAll(field, "%", "%%")
	})
	return fmt.Sprintf(f, e.args...)
}

// Params returns the fields the message names, in order.
func (e *Error) Params() []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(e.format, -1) {
		out = append(out, m[1])
	}
	return out
}

// Is reports whether err is, or wraps, an invalid-input error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// As returns the invalid-input error err is or wraps, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
