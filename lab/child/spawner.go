package child

import (
	"errors"
	"sync"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// ErrSpawnerClosed is returned for work given to a Spawner after Close.
var ErrSpawnerClosed = errors.New("the spawning thread has ended")

// Spawner runs work, child starts among it, on one OS thread that stays
// alive until Close. Its methods are safe for concurrent use and run one
// request at a time.
type Spawner struct {
	reqs chan func(entered error)
	quit chan struct{}
	once sync.Once
}

// NewSpawner starts the spawning thread; enter, in order, runs on it first
// (entering namespaces, say). If one fails, every request fails with its
// error.
func NewSpawner(enter ...func() error) *Spawner {
	s := &Spawner{reqs: make(chan func(error)), quit: make(chan struct{})}
	// A thread of its own, never the main one and never unlocked: it and
	// its namespaces end with the goroutine.
	proc.GoLocked(func() {
		var err error
		for _, f := range enter {
			if err = f(); err != nil {
				break
			}
		}
		for {
			select {
			case r := <-s.reqs:
				r(err)
			case <-s.quit:
				return
			}
		}
	})
	return s
}

// Do runs f on the spawning thread and returns its error (or the error of
// an enter function that failed, or ErrSpawnerClosed after Close).
func (s *Spawner) Do(f func() error) error {
	done := make(chan error, 1)
	select {
	case s.reqs <- func(entered error) {
		if entered != nil {
			done <- entered
			return
		}
		done <- f()
	}:
	case <-s.quit:
		return ErrSpawnerClosed
	}
	return <-done
}

// Close ends the spawning thread, and with it its namespaces. Call it only
// once no child it started is alive and nothing mounted from it is still
// mounted; later calls do nothing.
func (s *Spawner) Close() { s.once.Do(func() { close(s.quit) }) }
