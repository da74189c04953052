package safety

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/proc"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Claim is a prefix that one process at a time takes for itself on a
// cluster, for a writer whose keys it does not name itself (a real
// kube-apiserver writes /registry/): the prefix must be empty, or hold
// the keys of a claim whose process is gone (a kill -9 leaves no time to
// remove them), which the next claim removes. The owner key records the
// claiming process ("PID-STARTTIME", so a recycled PID is not taken for
// it). It is a plain value; its methods are safe for concurrent use as
// the Cluster's client is, though a claim is one process's.
type Claim struct {
	// Prefix is what the claim holds (all of it is removed).
	Prefix string
	// Extra are single keys outside Prefix removed with it (the
	// apiserver's compact_rev_key beside /registry/).
	Extra []string
	// OwnerKey names the process holding the claim.
	OwnerKey string
}

// ClaimHeldError refuses a claim that a live process holds.
type ClaimHeldError struct {
	OwnerKey string
	Owner    proc.ID
}

func (e *ClaimHeldError) Error() string {
	return fmt.Sprintf("%s is held by a live process (pid %d)", e.OwnerKey, e.Owner.PID)
}

// ParseOwner reads an owner key's "PID-STARTTIME".
func ParseOwner(v string) (proc.ID, bool) {
	pid, st, ok := strings.Cut(v, "-")
	p, err1 := strconv.Atoi(pid)
	t, err2 := strconv.ParseUint(st, 10, 64)
	if !ok || err1 != nil || err2 != nil || p <= 0 {
		return proc.ID{}, false
	}
	return proc.ID{PID: p, StartTime: t}, true
}

// owner is the owner key's value for process id.
func owner(id proc.ID) string { return fmt.Sprintf("%d-%d", id.PID, id.StartTime) }

// Claim makes cl this process's: a previous owner's keys whose process is
// gone are removed (swept is that owner's value, "" when there was none),
// a live owner is refused (*ClaimHeldError) and so is a prefix holding
// keys nobody claimed (*PrefixInUseError); then the owner key names this
// process. Each request is bounded by c.Timeout. Nothing is removed when
// the claim is refused.
func (c Cluster) Claim(ctx context.Context, cl Claim) (swept string, err error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout())
	resp, err := c.Cli.Get(rctx, cl.OwnerKey)
	cancel()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", cl.OwnerKey, err)
	}
	if len(resp.Kvs) > 0 {
		prev := string(resp.Kvs[0].Value)
		if id, ok := ParseOwner(prev); ok && id.Alive() {
			return "", &ClaimHeldError{OwnerKey: cl.OwnerKey, Owner: id}
		}
		if err := c.Release(ctx, cl); err != nil {
			return "", err
		}
		swept = prev
	}
	if err := c.checkClaimEmpty(ctx, cl.Prefix); err != nil {
		return swept, err
	}
	self, err := proc.Self()
	if err != nil {
		return swept, fmt.Errorf("claim %s: %w", cl.Prefix, err)
	}
	rctx, cancel = context.WithTimeout(ctx, c.timeout())
	defer cancel()
	if _, err := c.Cli.Put(rctx, cl.OwnerKey, owner(self)); err != nil {
		return swept, fmt.Errorf("write %s: %w", cl.OwnerKey, err)
	}
	return swept, nil
}

// checkClaimEmpty is CheckPrefixEmpty with the claim's wording of a
// failed count.
func (c Cluster) checkClaimEmpty(ctx context.Context, prefix string) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	resp, err := c.Cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return fmt.Errorf("count %s keys: %w", prefix, err)
	}
	if resp.Count > 0 {
		return &PrefixInUseError{Prefix: prefix, Keys: resp.Count}
	}
	return nil
}

// Clear removes what the claim holds (its prefix and extra keys) and
// keeps the claim, within twice c.Timeout: between two writers' turns.
func (c Cluster) Clear(ctx context.Context, cl Claim) error {
	ctx, cancel := context.WithTimeout(ctx, 2*c.timeout())
	defer cancel()
	if _, err := c.Cli.Delete(ctx, cl.Prefix, clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("remove %s: %w", cl.Prefix, err)
	}
	for _, k := range cl.Extra {
		if _, err := c.Cli.Delete(ctx, k); err != nil {
			return fmt.Errorf("remove %s: %w", k, err)
		}
	}
	return nil
}

// Release clears the claim and removes its owner key. It runs even when
// ctx was cancelled (Ctrl-C: call it deferred, on the way out).
func (c Cluster) Release(ctx context.Context, cl Claim) error {
	ctx = context.WithoutCancel(ctx)
	if err := c.Clear(ctx, cl); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	if _, err := c.Cli.Delete(ctx, cl.OwnerKey); err != nil {
		return fmt.Errorf("remove %s: %w", cl.OwnerKey, err)
	}
	return nil
}
