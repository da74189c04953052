package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// clusterVersionWait bounds the wait for the cluster version to follow
// the members' (the leader raises it every few seconds once every member
// runs the newer minor).
const clusterVersionWait = 60 * time.Second

// waitClusterVersion waits until every member says the cluster version is
// want ("3.6"), from its etcd_cluster_version gauge (3.4 on).
func (c *Cluster) waitClusterVersion(ctx context.Context, want string) error {
	ctx, cancel := context.WithTimeout(ctx, clusterVersionWait)
	defer cancel()
	for {
		behind := ""
		for _, cfg := range c.cfgs {
			got, err := clusterVersion(ctx, cfg.MetricsURL)
			if err != nil || got != want {
				behind = fmt.Sprintf("%s says %q (%v)", cfg.Name, got, err)
				break
			}
		}
		if behind == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the cluster version did not become %s within %s: %s", want, clusterVersionWait, behind)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// clusterVersion reads the cluster version a member's metrics at
// metricsURL state: the etcd_cluster_version series set to 1.
func clusterVersion(ctx context.Context, metricsURL string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return "", err
	}
	f := fams["etcd_cluster_version"]
	if f == nil {
		return "", fmt.Errorf("no etcd_cluster_version")
	}
	for _, m := range f.GetMetric() {
		if m.GetGauge().GetValue() == 1 {
			for _, l := range m.GetLabel() {
				if l.GetName() == "cluster_version" {
					return l.GetValue(), nil
				}
			}
		}
	}
	return "", fmt.Errorf("no cluster version set")
}
