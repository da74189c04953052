package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// defragFor is the example of a long-running fault (About.Timeout,
// LongFault) that docs/architecture.md quotes: a member defragmented again
// and again until its user's context ends. Registered (one line in
// registry()), experiment timelines would run `defrag-for: m1` in a
// goroutine of its own and cancel it at the cell's end once a minute had
// passed, with no code of their own for it.
type defragFor struct{}

func (defragFor) About() About {
	return About{Name: "defrag-for", Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help: "defragment the member again and again, for at most a minute", Timeout: time.Minute}
}

func (f defragFor) Apply(c *Cluster, r Request) error {
	_, err := f.Run(context.Background(), c, r)
	return err
}

func (f defragFor) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	out, err := f.RunIn(ctx, st, r)
	return []string{out.Detail}, err
}

func (f defragFor) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return f.RunIn(ctx, c.State(), r)
}

func (f defragFor) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, f.About().Timeout)
	defer cancel()
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return Outcome{}, err
	}
	n := 0
	for ctx.Err() == nil {
		if _, err := defragOnce(ctx, st.Client(), m.Name, m.ClientURL); err != nil && ctx.Err() == nil {
			return Outcome{Detail: fmt.Sprintf("%d defragmentations of %s", n, m.Name)}, err
		}
		n++
	}
	return Outcome{Detail: fmt.Sprintf("%d defragmentations of %s", n, m.Name)}, nil
}

// TestLongFaultExample: the example is a long-running fault, and its run
// ends with its user's context.
func TestLongFaultExample(t *testing.T) {
	t.Parallel()
	var f LongFault = defragFor{}
	if a := f.About(); !a.LongRunning() || !a.TakesMember() {
		t.Fatalf("about %+v", a)
	}
	c := start(t, Options{Members: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := f.Run(ctx, c, Request{Args: []string{"m1"}})
	if err != nil || !strings.HasSuffix(out.Detail, "defragmentations of m1") || out.Upgrade != nil {
		t.Fatalf("%+v, %v", out, err)
	}
}

// TestDowngradeRefusesAnUpgrade: the downgrade fault refuses an etcd that
// is no downgrade, before touching anything, as invalid input.
func TestDowngradeRefusesAnUpgrade(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 1})
	f, err := LookupFault(FaultDowngrade)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(context.Background(), c, Request{Args: []string{"embedded"}})
	if err == nil || !strings.Contains(err.Error(), "is no downgrade") || out.Upgrade != nil {
		t.Fatalf("downgrade to the etcd it runs: %+v, %v", out, err)
	}
}
