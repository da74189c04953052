package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// What the maintenance faults (defragment, compact, snapshot, catch-up,
// alarm-disarm) share: each is a LongFault whose Outcome carries a
// result.MaintenanceOp, timed by a member canary and a cluster canary
// (watched). Apply runs it within its About.Timeout; Inject runs it from
// another process and says what it did in one line; Run counts it.

// applyLong is a long fault's Apply: its Run, bounded by its Timeout.
func applyLong(f LongFault, c *Cluster, r Request) error {
	ctx, cancel := context.WithTimeout(context.Background(), f.About().Timeout)
	defer cancel()
	_, err := f.Run(ctx, c, r)
	return err
}

// injectLong is a long fault's Inject: its RunIn, and its Detail as the
// line.
func injectLong(ctx context.Context, f LongFault, st State, r Request) ([]string, error) {
	out, err := f.RunIn(ctx, st, r)
	if out.Detail == "" {
		return nil, err
	}
	return []string{out.Detail}, err
}

// runCounted is a maintenance fault's Run on a cluster this process runs:
// its RunIn on the cluster's state, counted when it succeeded.
func runCounted(ctx context.Context, f LongFault, c *Cluster, r Request) (Outcome, error) {
	out, err := f.RunIn(ctx, c.State(), r)
	return out, c.counted(f.About().Name, err)
}

// maintained is the Outcome of a maintenance operation: rec with detail
// (or the error) as its Detail; err wrapped with the operation's name.
func maintained(rec *result.MaintenanceOp, detail string, err error) (Outcome, error) {
	if err != nil {
		what := rec.Op
		if rec.Member != "" {
			what += " " + rec.Member
		}
		detail = what + ": " + etcdclient.Describe(err)
		rec.Error = detail
		err = fmt.Errorf("%s: %w", what, err)
	}
	rec.Detail = detail
	return Outcome{Detail: detail, Maintenance: rec}, err
}

// memberClient is a client of the member at url alone, checked.
func memberClient(ctx context.Context, conn etcdclient.Config, url string) (*clientv3.Client, error) {
	conn.Endpoints = []string{url}
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	return etcdclient.NewChecked(ctx, conn)
}

// blockedLine says how long the member watched (called who; "": none)
// and the cluster were blocked, for a Detail.
func blockedLine(who string, rec *result.MaintenanceOp) string {
	cluster := 0.0
	if rec.Cluster != nil {
		cluster = rec.Cluster.LongestSeconds
	}
	if who == "" {
		return fmt.Sprintf("; cluster unavailable %.2fs at most", cluster)
	}
	return fmt.Sprintf("; %s blocked %.2fs at most, cluster unavailable %.2fs at most", who, rec.BlockedSeconds(), cluster)
}

// ibytes is n bytes for a person.
func ibytes(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }

// leadingMember returns the member of st that leads, as its members say.
func leadingMember(ctx context.Context, st State) (MemberState, error) {
	names := map[string]string{}
	for _, m := range st.Members {
		names[m.ClientURL] = m.Name
	}
	for _, s := range Status(ctx, st.Client(), names) {
		if s.Role == "leader" {
			for _, m := range st.Members {
				if m.ClientURL == s.Endpoint {
					return m, nil
				}
			}
		}
	}
	return MemberState{}, fmt.Errorf("no member leads")
}

// metricSum reads the metrics a member serves at metricsURL and sums the
// series of the counter or gauge called name; ok is false when they could
// not be read, or when the member does not export it unless absentZero
// (a vector with no series yet: nothing counted).
func metricSum(ctx context.Context, metricsURL, name string, absentZero bool) (v float64, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL+"/metrics", nil)
	if err != nil {
		return 0, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return 0, false
	}
	if fams[name] == nil {
		return 0, absentZero
	}
	for _, m := range fams[name].GetMetric() {
		switch {
		case m.GetCounter() != nil:
			v += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			v += m.GetGauge().GetValue()
		case m.GetUntyped() != nil:
			v += m.GetUntyped().GetValue()
		}
	}
	return v, true
}
