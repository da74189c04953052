package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// StartError says which member kept the cluster from starting, and why. Its
// Error is one line; Detail has the tail of the member's log.
type StartError struct {
	Member  string
	Reason  string
	LogFile string
	Tail    []string
}

func (e *StartError) Error() string {
	return fmt.Sprintf("member %s did not start: %s (log: %s)", e.Member, e.Reason, e.LogFile)
}

// Detail returns the last lines of the member's log.
func (e *StartError) Detail() string {
	if len(e.Tail) == 0 {
		return ""
	}
	return "last lines of " + e.LogFile + ":\n  " + strings.Join(e.Tail, "\n  ")
}

// bindFailure reports whether the member failed because a port was taken.
func (e *StartError) bindFailure() bool {
	for _, l := range e.Tail {
		if strings.Contains(l, "address already in use") {
			return true
		}
	}
	return false
}

// tailLog returns up to n readable lines from the end of a member log. etcd
// logs JSON; each line is shortened to its level, message and error.
func tailLog(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const window = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > window {
		_, _ = f.Seek(st.Size()-window, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, readableLogLine(l))
	}
	return out
}

func readableLogLine(l []byte) string {
	var e struct {
		Level string `json:"level"`
		Msg   string `json:"msg"`
		Error string `json:"error"`
	}
	if json.Unmarshal(l, &e) != nil || e.Msg == "" {
		return string(l)
	}
	s := e.Level + ": " + e.Msg
	if e.Error != "" {
		s += ": " + e.Error
	}
	return s
}
