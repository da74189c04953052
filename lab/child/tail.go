package child

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// tailWindow is how much of a log's end Tail reads.
const tailWindow = 64 << 10

// Tail returns up to n readable lines from the end of the log at path (nil
// when it cannot be read). A JSON line (etcd's and other zap loggers') is
// shortened to its level, message and error; other lines are kept whole.
func Tail(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > tailWindow {
		_, _ = f.Seek(st.Size()-tailWindow, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, readableLine(l))
	}
	return out
}

// readableLine shortens a JSON log line to "level: msg: error".
func readableLine(l []byte) string {
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
