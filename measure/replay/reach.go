package replay

import (
	"fmt"
	"runtime"

	"github.com/etcdlab/etcdlab/result"
)

// reachShare is how much of the profile's rate a replay must send for it
// to count as reached: 90% (an open loop behind schedule by more than its
// rate tolerance).
const reachShare = 0.90

// generatorBusy is the share of its cores past which etcdlab's own CPU is
// taken as the limit.
const generatorBusy = 0.85

// reach says why run did not send want requests per second, or "" when it
// did. It names the measurement that rules the other cause out: a
// generator whose CPU was at its limit is the limit whatever the target
// did; with CPU to spare, a replay behind schedule had every client
// waiting on the cluster (an open loop's clients are only taken by
// requests in flight), so the target was too slow to answer at that rate.
func reach(run result.Run, want float64) string {
	if want <= 0 || run.DurationSeconds <= 0 {
		return ""
	}
	got := float64(run.Requests+run.ErrorCount()) / run.DurationSeconds
	if got >= reachShare*want {
		return ""
	}
	short := fmt.Sprintf("sent %.0f requests/s of the profile's %.0f (%.0f%%)", got, want, 100*got/want)
	limit := run.LoadCoresLimit
	if limit == 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	if run.LoadCPUCores >= generatorBusy*float64(limit) {
		return fmt.Sprintf("%s: generator limit: etcdlab used %.2f of its %d cores (raise --cpus, or spread the load with --agents)", short, run.LoadCPUCores, limit)
	}
	svc := run.Latency
	if run.ServiceTime != nil {
		svc = *run.ServiceTime
	}
	carry := 0.0
	if svc.Mean > 0 {
		carry = float64(run.Clients) / svc.Mean
	}
	if carry > 0 && carry < want {
		return fmt.Sprintf("%s: target saturated: all %d clients were waiting on the cluster, whose answers took %.1f ms on average (p99 %.1f ms), so at most %.0f requests/s could be sent; etcdlab's CPU was %.2f of %d cores, not the limit (more --clients would only queue more)",
			short, run.Clients, svc.Mean*1000, svc.P99*1000, carry, run.LoadCPUCores, limit)
	}
	return fmt.Sprintf("%s: the schedule ran late with clients and CPU free (etcdlab %.2f of %d cores, the machine %.2f cores busy): the machine is shared or overloaded",
		short, run.LoadCPUCores, limit, run.MachineCPUCores)
}
