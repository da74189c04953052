package bench

import (
	"context"
	"errors"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/safety"
)

// The safety rules for clusters etcdlab did not start live in package
// load/safety (etcdlab check applies them too); these are bench's words
// for them: a prefix in use and a run too large are invalid input.

// safety returns the rules' view of the target.
func (t *target) safety() safety.Cluster {
	return safety.Cluster{Cli: t.cli, Endpoints: t.conn.Endpoints, Timeout: dialTimeout(t.conn)}
}

// checkPrefixEmpty refuses a prefix that already holds keys: etcdlab deletes
// its prefix when done and must not delete anybody's data.
func checkPrefixEmpty(ctx context.Context, t *target, prefix string) error {
	err := t.safety().CheckPrefixEmpty(ctx, prefix)
	var inUse *safety.PrefixInUseError
	if errors.As(err, &inUse) {
		return invalid.Errorf("{Prefix} %s already holds %d keys; choose an empty {Prefix} (etcdlab deletes its prefix when done)", inUse.Prefix, inUse.Keys)
	}
	return err
}

// checkQuota refuses a run whose estimated writes could push the database
// past half its quota, with the numbers.
func checkQuota(ctx context.Context, t *target, estimate int64) error {
	err := t.safety().CheckQuota(ctx, estimate)
	var over *safety.QuotaError
	if errors.As(err, &over) {
		return invalid.Errorf("%v; lower {Total} or {ValSize}", err)
	}
	return err
}

// checkSafety applies the rules for a cluster etcdlab did not start
// before anything is written: an empty prefix of the run's own, and a load
// that fits the quota (all the agents' load, for an agent).
func (cfg *Config) checkSafety(ctx context.Context, t *target, estimate int64) error {
	if err := checkPrefixEmpty(ctx, t, cfg.Prefix); err != nil {
		return err
	}
	if est := estimate * int64(max(1, cfg.Agent.Count)); est > 0 {
		return checkQuota(ctx, t, est)
	}
	return nil
}
