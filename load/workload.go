package load

import (
	"context"
	mrand "math/rand/v2"
)

// Workload is a kind of request (put, range, txn...). It is immutable and
// shared by all workers.
type Workload interface {
	// Ops names the kinds of operation it records; Worker.Do returns an
	// index into it. Most workloads have one.
	Ops() []string
	// NewWorker returns the state of worker id. A Worker is used by one
	// goroutine only.
	NewWorker(id int) Worker
}

// Worker sends requests for one simulated client.
type Worker interface {
	// Do sends request seq on c and returns the index of the operation it
	// performed and its error. ctx carries the request deadline.
	Do(ctx context.Context, c *Conn, seq int64) (op int, err error)
}

// Cleaner is implemented by workloads that hold server state besides keys
// under their prefix (leases): Clean releases it.
type Cleaner interface {
	Clean(ctx context.Context, pool Pool) error
}

func newRand(id int) *mrand.Rand {
	return mrand.New(mrand.NewPCG(uint64(id)+1, mrand.Uint64()))
}
