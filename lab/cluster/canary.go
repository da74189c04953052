package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// canary times the cluster's unavailability while it runs: every
// canaryEvery it sends each member a linearizable read (through a client
// of that member alone, within a second); the cluster was unavailable
// from the end of the last round in which any member answered to the
// first such round after it. It writes nothing.
type canary struct {
	cancel context.CancelFunc
	done   chan struct{}
	out    *result.Unavailability
}

// startCanary starts a canary of c's members until stop.
func (c *Cluster) startCanary(ctx context.Context) *canary {
	return startCanaryOf(ctx, c.Client())
}

// startCanaryOf starts a canary of the members at conn's endpoints (a
// cluster another process runs, too) until stop.
func startCanaryOf(ctx context.Context, conn etcdclient.Config) *canary {
	ctx, cancel := context.WithCancel(ctx)
	k := &canary{cancel: cancel, done: make(chan struct{}), out: &result.Unavailability{}}
	var clis []*clientv3.Client
	for _, ep := range conn.Endpoints {
		conn := conn
		conn.Endpoints, conn.DialTimeout = []string{ep}, time.Second
		if cli, err := etcdclient.New(conn); err == nil {
			clis = append(clis, cli)
		}
	}
	go func() {
		defer close(k.done)
		defer func() {
			for _, cli := range clis {
				_ = cli.Close()
			}
		}()
		lastOK := time.Now()
		failing := false
		tick := time.NewTicker(canaryEvery)
		defer tick.Stop()
		for {
			ok := anyAnswers(ctx, clis)
			now := time.Now()
			switch {
			case ok && failing:
				k.out.Add(lastOK, now.Sub(lastOK))
				failing = false
			case !ok && ctx.Err() == nil:
				failing = true
			}
			if ok {
				lastOK = now
			}
			select {
			case <-ctx.Done():
				if failing {
					k.out.Add(lastOK, time.Since(lastOK))
				}
				return
			case <-tick.C:
			}
		}
	}()
	return k
}

// anyAnswers sends every client a linearizable read, in parallel, and
// reports whether any succeeded within a second.
func anyAnswers(ctx context.Context, clis []*clientv3.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := false
	for _, cli := range clis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cli.Get(ctx, "etcdlab-canary"); err == nil {
				mu.Lock()
				ok = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ok
}

// stop ends the canary and returns the windows it saw, nil for none.
func (k *canary) stop() *result.Unavailability {
	k.cancel()
	<-k.done
	if len(k.out.Windows) == 0 {
		return nil
	}
	return k.out
}
