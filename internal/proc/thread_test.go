package proc

import (
	"os"
	"sync"
	"syscall"
	"testing"
)

// TestGoLockedAvoidsMainThread starts many locked goroutines at once, so
// the scheduler needs every idle thread, the main one included: none may
// run on the main thread, and each gets a thread of its own.
func TestGoLockedAvoidsMainThread(t *testing.T) {
	const n = 64
	tids := make(chan int, n)
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		GoLocked(func() {
			defer wg.Done()
			tids <- syscall.Gettid()
			<-release
		})
	}
	seen := map[int]bool{}
	for range n {
		tid := <-tids
		if tid == os.Getpid() {
			t.Error("a GoLocked goroutine runs on the main thread")
		}
		if seen[tid] {
			t.Errorf("two GoLocked goroutines share thread %d", tid)
		}
		seen[tid] = true
	}
	close(release)
	wg.Wait()
}
