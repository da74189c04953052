package proc

import (
	"os"
	"runtime"
	"syscall"
)

// GoLocked runs f in a new goroutine locked to an OS thread of its own that
// is not the process's main thread, and never unlocks it: the thread exits
// when f returns, taking whatever f did to it (namespaces it entered) along.
// The main thread is avoided because /proc/PID shows its namespaces as the
// whole process's, and because Go never ends it: a locked goroutine that
// returns there leaves it parked, in whatever namespaces f entered, until
// the process exits.
func GoLocked(f func()) {
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != os.Getpid() {
			f()
			return
		}
		// Start over from a goroutine that cannot run on this thread: this
		// one holds it until that one has locked a thread of its own.
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			f()
		}()
		<-locked
		runtime.UnlockOSThread()
	}()
}
