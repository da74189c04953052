package kube

import (
	"context"
	"sync"
	"time"
)

// Per-item retry backoff of client-go's default controller rate limiter
// (workqueue.DefaultTypedControllerRateLimiter: 5 ms doubling to 1000 s),
// and of the EndpointSlice controller's (defaultSyncBackOff 1 s doubling
// to maxSyncBackOff 1000 s, pkg/controller/endpointslice/
// endpointslice_controller.go).
const (
	retryBase          = 5 * time.Millisecond
	retryMax           = 1000 * time.Second
	sliceSyncRetryBase = time.Second
)

// queue is client-go's workqueue as controllers use it: a key is queued at
// most once, is never processed by two workers at once, and a key added
// while it is processed is processed again after. Safe for concurrent use.
type queue struct {
	mu         sync.Mutex
	cond       *sync.Cond
	items      []string
	dirty      map[string]bool
	processing map[string]bool
	failures   map[string]int
	down       bool
	// base is the first retry's backoff, doubled with each failure.
	base time.Duration
}

// newQueue is a workqueue with the default controller rate limiter.
func newQueue() *queue { return newQueueBackoff(retryBase) }

// newQueueBackoff is a workqueue whose per-item retry backoff starts at
// base.
func newQueueBackoff(base time.Duration) *queue {
	q := &queue{dirty: map[string]bool{}, processing: map[string]bool{}, failures: map[string]int{}, base: base}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.down || q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if !q.processing[key] {
		q.items = append(q.items, key)
		q.cond.Signal()
	}
}

// retry adds key again after its backoff.
func (q *queue) retry(key string) {
	q.mu.Lock()
	n := q.failures[key]
	q.failures[key] = n + 1
	q.mu.Unlock()
	d := q.base << min(n, 30)
	time.AfterFunc(min(d, retryMax), func() { q.add(key) })
}

func (q *queue) forget(key string) {
	q.mu.Lock()
	delete(q.failures, key)
	q.mu.Unlock()
}

// get blocks until a key is ready or the queue shuts down.
func (q *queue) get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.down {
		q.cond.Wait()
	}
	if q.down {
		return "", false
	}
	key := q.items[0]
	q.items = q.items[1:]
	q.processing[key] = true
	delete(q.dirty, key)
	return key, true
}

func (q *queue) done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	if q.dirty[key] {
		q.items = append(q.items, key)
		q.cond.Signal()
	}
}

func (q *queue) shutDown() {
	q.mu.Lock()
	q.down = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// runWorkers starts n workers that sync keys from q until ctx ends; wg
// tracks them. A failed sync is retried with backoff.
func runWorkers(ctx context.Context, wg *sync.WaitGroup, n int, q *queue, sync func(context.Context, string) error) {
	wg.Go(func() { <-ctx.Done(); q.shutDown() })
	for range n {
		wg.Go(func() {
			for {
				key, ok := q.get()
				if !ok {
					return
				}
				if err := sync(ctx, key); err != nil && ctx.Err() == nil {
					q.retry(key)
				} else {
					q.forget(key)
				}
				q.done(key)
			}
		})
	}
}
