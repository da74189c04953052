package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// downgradeWait bounds the wait for every member's storage to reach the
// downgrade's target after `downgrade enable`.
const downgradeWait = 60 * time.Second

// enableDowngrade does what etcd asks before members get an older minor
// version (3.6 on): `downgrade validate` and `downgrade enable` to to's
// minor, then waits until every member says its storage is at it.
func (c *Cluster) enableDowngrade(ctx context.Context, to string) error {
	ma, mi, _ := etcdbuild.MinorOf(to)
	target := fmt.Sprintf("%d.%d", ma, mi)
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, downgradeWait)
	defer cancel()
	for _, a := range []struct {
		action clientv3.DowngradeAction
		name   string
	}{{clientv3.DowngradeValidate, "validate"}, {clientv3.DowngradeEnable, "enable"}} {
		if _, err := cli.Downgrade(ctx, a.action, target); err != nil {
			return fmt.Errorf("etcd refused `downgrade %s %s`: %s", a.name, target, etcdclient.Describe(err))
		}
	}
	for {
		behind := ""
		for _, ep := range c.Client().Endpoints {
			sctx, scancel := context.WithTimeout(ctx, StatusTimeout)
			r, err := cli.Status(sctx, ep)
			scancel()
			switch {
			case err != nil:
				behind = ep + ": " + etcdclient.Describe(err)
			case !strings.HasPrefix(r.StorageVersion, target+"."):
				behind = fmt.Sprintf("%s: storage version %q", ep, r.StorageVersion)
			}
			if behind != "" {
				break
			}
		}
		if behind == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("downgrade to %s enabled, but the storage did not follow within %s (%s)", target, downgradeWait, behind)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
