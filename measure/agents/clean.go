package agents

import (
	"context"
	"fmt"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load/safety"
)

// CleanMissing deletes the keys of agents that ended without deleting
// them (killed), under their sub-prefixes of prefix (SubPrefix), on the
// cluster conn reaches. It returns one line per agent saying what it did.
func CleanMissing(ctx context.Context, conn etcdclient.Config, prefix string, missing []int) ([]string, error) {
	if len(missing) == 0 {
		return nil, nil
	}
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	c := safety.Cluster{Cli: cli, Endpoints: conn.Endpoints, Timeout: conn.DialTimeout}
	var lines []string
	for _, i := range missing {
		p := SubPrefix(prefix, i)
		msg, err := c.Cleanup(ctx, p, false)
		if err != nil {
			return lines, fmt.Errorf("agent %d's keys under %s: %w", i, p, err)
		}
		lines = append(lines, fmt.Sprintf("agent %d: %s", i, msg))
	}
	return lines, nil
}
