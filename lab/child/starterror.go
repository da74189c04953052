package child

import (
	"fmt"
	"strings"
)

// StartError says which child kept what it belongs to from starting, and
// why. Its Error is one line; Detail has the tail of the child's log.
type StartError struct {
	// Name is what messages call the child ("member m1",
	// "kube-apiserver").
	Name string
	// Err is why it did not start (it exited, it was not ready in time).
	Err     error
	LogFile string
	// Tail is the last lines of LogFile, made readable (Tail).
	Tail []string
}

func (e *StartError) Error() string {
	return fmt.Sprintf("%s did not start: %v (log: %s)", e.Name, e.Err, e.LogFile)
}

// Unwrap returns why the child did not start.
func (e *StartError) Unwrap() error { return e.Err }

// Detail returns the last lines of the child's log.
func (e *StartError) Detail() string {
	if len(e.Tail) == 0 {
		return ""
	}
	return "last lines of " + e.LogFile + ":\n  " + strings.Join(e.Tail, "\n  ")
}

// LogSays reports whether a line of the log's tail contains s ("address
// already in use").
func (e *StartError) LogSays(s string) bool {
	for _, l := range e.Tail {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
