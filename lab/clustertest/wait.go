package clustertest

import (
	"testing"
	"time"
)

// pollEvery is how often WaitFor asks again.
const pollEvery = 20 * time.Millisecond

// WaitFor polls cond until it returns true, and fails the test (t.Fatalf,
// naming what) if it has not within timeout. It is what a test does
// instead of sleeping "long enough" for a condition that can be checked: a
// member ready, a key present, a process gone, a file written. cond runs on
// the calling goroutine and must not call t.Fatal itself if WaitFor runs
// outside the test's goroutine.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Eventually(timeout, cond) {
		t.Fatalf("%s: not within %v", what, timeout)
	}
}

// Eventually polls cond until it returns true or timeout passes, and
// reports whether it did; for the tests that go on (or fail in their own
// words) when the condition never comes.
func Eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}
