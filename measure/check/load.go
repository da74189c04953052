package check

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/result"
)

// Every load phase of a check writes check perf's key and value sizes under
// a prefix of its own, with these connections and request timeout.
const (
	maxConns       = 100
	requestTimeout = 5 * time.Second
)

// runLoad runs one open-loop (rate > 0) or closed-loop put phase of d with
// check perf's key and value sizes, under the safety rules for a cluster
// etcdlab did not start (which check applies to its local cluster too): a
// prefix of its own that must be empty, a write estimate within half the
// quota, a guard that stops the phase when the database passes it, and the
// prefix deleted afterwards, also after Ctrl-C.
func runLoad(ctx context.Context, t *target, clients int, rate float64, d time.Duration, name string) (result.Run, error) {
	prefix := "/etcdlab/check/" + safety.RunID(time.Now()) + "/" + name + "/"
	keySize := max(8, keyBytes-len(prefix))
	cli, err := etcdclient.NewChecked(ctx, t.conn)
	if err != nil {
		return result.Run{}, err
	}
	defer cli.Close()
	cl := safety.Cluster{Cli: cli, Endpoints: t.conn.Endpoints, Timeout: t.conn.DialTimeout}
	if err := cl.CheckPrefixEmpty(ctx, prefix); err != nil {
		return result.Run{}, err
	}
	if rate > 0 {
		if err := cl.CheckQuota(ctx, safety.Estimate(rate*d.Seconds(), 1, prefix, keySize, valBytes)); err != nil {
			return result.Run{}, err
		}
	}
	guard := cl.StartGuard(ctx)
	run, runErr := putPhase(ctx, t, prefix, keySize, clients, rate, d, guard)
	guard.Close()
	if _, err := cl.Cleanup(ctx, prefix, false); err != nil {
		return result.Run{}, fmt.Errorf("clean up: %w", err)
	}
	return run, runErr
}

// putPhase sends the load: random keys (as many as the key size can name,
// at most 2^40) and one random value.
func putPhase(ctx context.Context, t *target, prefix string, keySize, clients int, rate float64, d time.Duration, guard *safety.Guard) (result.Run, error) {
	space := int64(math.Min(math.Pow(16, float64(keySize)), 1<<40))
	w := load.Put{Keys: load.Keys{Prefix: prefix, KeySize: keySize, KeySpaceSize: space}, Value: load.RandomValue(valBytes)}
	sess, err := load.Open(ctx, load.Options{Conn: t.conn, Conns: min(clients, maxConns)}, w)
	if err != nil {
		return result.Run{}, err
	}
	defer sess.Close()
	if ctx.Err() != nil {
		return result.Run{}, errors.New("no measurement")
	}
	return sess.Run(ctx, load.Spec{Clients: clients, Rate: rate, Duration: d, RequestTimeout: requestTimeout,
		Stop: guard.Stop(), StopReason: guard.Reason})
}
