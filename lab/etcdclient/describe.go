package etcdclient

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Describe turns a client error into a short, human phrase suitable for one
// line of output: "connection refused", "timed out", "TLS: certificate signed
// by unknown authority". It never includes credentials.
func Describe(err error) string {
	if err == nil {
		return "ok"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	msg := err.Error()
	deadline := false
	if s, ok := status.FromError(err); ok {
		msg = s.Message()
		deadline = s.Code() == codes.DeadlineExceeded
	}
	if h, ok := hint(msg); ok {
		return h
	}
	if deadline {
		return "timed out"
	}
	return firstLine(msg)
}

// hint extracts the part of a gRPC transport message a person can act on.
func hint(msg string) (string, bool) {
	for _, k := range []struct{ needle, say string }{
		{"connection refused", "connection refused"},
		{"certificate signed by unknown authority", "TLS: certificate signed by unknown authority"},
		{"bad certificate", "TLS: the server refused our client certificate"},
		{"certificate required", "TLS: the server requires a client certificate"},
		{"first record does not look like a TLS handshake", "TLS: the server does not speak TLS"},
		{"authentication failed", "authentication failed: invalid user name or password"},
		{"no such host", "no such host"},
		{"i/o timeout", "timed out"},
	} {
		if strings.Contains(msg, k.needle) {
			return k.say, true
		}
	}
	return "", false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Explain is err as one line of output: its Error is Describe's phrase,
// and it wraps err, so errors.Is and errors.As still see the cause
// (context.DeadlineExceeded, a gRPC status). Nil for a nil err.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	return &explained{err: err}
}

// explained is Explain's error.
type explained struct{ err error }

func (e *explained) Error() string { return Describe(e.err) }
func (e *explained) Unwrap() error { return e.err }
