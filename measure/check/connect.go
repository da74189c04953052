package check

import (
	"context"
	"net"
	"net/url"
	"sort"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// connectTimes measures the TCP connect time to each endpoint: the median of
// five connects, each within timeout.
func connectTimes(ctx context.Context, endpoints []string, timeout time.Duration) []result.Connect {
	out := make([]result.Connect, 0, len(endpoints))
	for _, ep := range endpoints {
		host := ep
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			host = u.Host
		}
		c := result.Connect{Endpoint: ep}
		var ds []float64
		for range 5 {
			d := net.Dialer{Timeout: timeout}
			t0 := time.Now()
			conn, err := d.DialContext(ctx, "tcp", host)
			if err != nil {
				c.Error = err.Error()
				break
			}
			ds = append(ds, time.Since(t0).Seconds())
			conn.Close()
		}
		if len(ds) > 0 {
			sort.Float64s(ds)
			c.Seconds, c.Error = ds[len(ds)/2], ""
		}
		out = append(out, c)
	}
	return out
}
