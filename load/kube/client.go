package kube

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// client is one component's API client with client-go's client-side rate
// limit: a token bucket of QPS and Burst (client-go's
// flowcontrol.NewTokenBucketRateLimiter is golang.org/x/time/rate). Every
// API request takes one token, whatever etcd requests it causes. Safe for
// concurrent use.
type client struct {
	name string
	lim  *rate.Limiter
	// requests and throttled (nanoseconds waited for a token) are what
	// the result reports per component.
	requests, throttled atomic.Int64
}

func newClient(name string, l ClientLimits) *client {
	return &client{name: name, lim: rate.NewLimiter(rate.Limit(l.QPS), l.Burst)}
}

// wait takes a token for one API request, waiting if the bucket is empty.
func (c *client) wait(ctx context.Context) error {
	c.requests.Add(1)
	start := time.Now()
	err := c.lim.Wait(ctx)
	if d := time.Since(start); d > time.Millisecond {
		c.throttled.Add(int64(d))
	}
	return err
}
