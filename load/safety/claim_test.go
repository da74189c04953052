package safety

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
)

// TestClaim: a killed owner's keys are removed by the next claim, which
// then names this process; a live owner, or keys under the prefix nobody
// claimed, are refused and left alone; Release removes the prefix, the
// extra keys and the owner key.
func TestClaim(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{})
	cli := c.KV()
	ctx := context.Background()
	cl := Claim{Prefix: "/registry/", Extra: []string{"compact_rev_key"}, OwnerKey: "/etcdlab/kubecp/owner"}
	sc := Cluster{Cli: cli, Endpoints: c.Client().Endpoints, Timeout: 5 * time.Second}
	init1, err := proc.Of(1)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := proc.Self()
	for _, tc := range []struct {
		name, owner string
		keys        int
		wantErr     error
		wantSwept   bool
	}{
		{"a killed run's", "999999999-1", 5, nil, true},
		{"a live run's", fmt.Sprintf("%d-%d", init1.PID, init1.StartTime), 5, &ClaimHeldError{}, false},
		{"nobody's", "", 5, &PrefixInUseError{}, false},
		{"empty", "", 0, nil, false},
	} {
		c.PutKeys("/registry/pods/default/", tc.keys)
		if _, err := cli.Put(ctx, "compact_rev_key", "1"); err != nil {
			t.Fatal(err)
		}
		if tc.owner != "" {
			if _, err := cli.Put(ctx, cl.OwnerKey, tc.owner); err != nil {
				t.Fatal(err)
			}
		}
		swept, err := sc.Claim(ctx, cl)
		var held *ClaimHeldError
		var inUse *PrefixInUseError
		switch tc.wantErr.(type) {
		case nil:
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		case *ClaimHeldError:
			if !errors.As(err, &held) || held.Owner.PID != 1 {
				t.Errorf("%s: %v, want a ClaimHeldError naming pid 1", tc.name, err)
			}
		case *PrefixInUseError:
			if !errors.As(err, &inUse) || inUse.Keys != int64(tc.keys) {
				t.Errorf("%s: %v, want a PrefixInUseError with %d keys", tc.name, err, tc.keys)
			}
		}
		if (swept != "") != tc.wantSwept || (tc.wantSwept && swept != tc.owner) {
			t.Errorf("%s: swept %q", tc.name, swept)
		}
		if tc.wantErr == nil {
			if n := c.Count("/registry/"); n != 0 {
				t.Errorf("%s: %d /registry keys after the claim", tc.name, n)
			}
			r, _ := cli.Get(ctx, cl.OwnerKey)
			if len(r.Kvs) != 1 || string(r.Kvs[0].Value) != fmt.Sprintf("%d-%d", self.PID, self.StartTime) {
				t.Errorf("%s: owner %v, want this process", tc.name, r.Kvs)
			}
		} else if n := c.Count("/registry/"); n != int64(tc.keys) {
			t.Errorf("%s: refused, yet %d of %d keys left", tc.name, n, tc.keys)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel() // Release runs on the way out of a cancelled run
		if err := sc.Release(cctx, cl); err != nil {
			t.Fatal(err)
		}
		c.NoKeys("/registry/")
		c.NoKeys(cl.OwnerKey)
		c.NoKeys("compact_rev_key")
	}
}

// TestParseOwner: an owner key's value is "PID-STARTTIME"; anything else
// is nobody's.
func TestParseOwner(t *testing.T) {
	if id, ok := ParseOwner("42-7"); !ok || id.PID != 42 || id.StartTime != 7 {
		t.Errorf("42-7: %v %v", id, ok)
	}
	for _, v := range []string{"", "42", "x-1", "0-1", "-1-2", "1-x"} {
		if _, ok := ParseOwner(v); ok {
			t.Errorf("%q parsed", v)
		}
	}
}
