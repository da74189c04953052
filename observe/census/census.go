// Package census reads a cluster's keyspace and leases once, read-only:
// every key and value in pages at one revision, serializable (the
// member's own copy, no quorum round), counted per top-level prefix and,
// under /registry/, per Kubernetes resource, with each group's mean key
// and value sizes; and the leases (LeaseLeases, then LeaseTimeToLive with
// the attached keys for a sample of them). It writes nothing. `etcdlab
// doctor --keyspace` and `etcdlab profile` take their census here.
//
// A census is bounded: a key limit, a request budget, the context; one
// cut short says so in its Stopped and keeps what it counted.
package census

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Defaults of Options.
const (
	DefaultPage    = 500
	DefaultPace    = 20 * time.Millisecond
	DefaultMaxKeys = 2_000_000
	// DefaultTimeout bounds each request.
	DefaultTimeout = 3 * time.Second
)

// Options bound a census. The zero value reads pages of DefaultPage keys
// DefaultPace apart, at most DefaultMaxKeys keys, without a request
// budget, and samples no lease.
type Options struct {
	// Page is the keys per Range; Pace the pause between pages.
	Page int64
	Pace time.Duration
	// MaxKeys stops the key census after about this many keys.
	MaxKeys int64
	// MaxRequests, if positive, is the census's request budget: the key
	// pages and the lease requests together.
	MaxRequests int
	// LeaseSample is how many leases' TTL and attached keys are read
	// (LeaseTimeToLive each); 0 reads no lease at all.
	LeaseSample int
	// Timeout bounds each request (DefaultTimeout when 0).
	Timeout time.Duration
}

// Census is what a census counted.
type Census struct {
	// Revision is the revision the keys were read at.
	Revision int64
	// Keys and Bytes are the keys counted and their key and value bytes.
	Keys  int64
	Bytes int64
	// Prefixes are the groups (see Groups), the largest first.
	Prefixes []Prefix
	// Leases is the lease census, when LeaseSample asked for one.
	Leases *Leases
	// Requests is how many requests the census sent.
	Requests int
	// Stopped says why the census was cut short ("" when complete):
	// the context, an error, the key limit or the request budget.
	Stopped string
	// BudgetSpent is true when the request budget stopped it.
	BudgetSpent bool
}

// Prefix is one group's keys.
type Prefix struct {
	Prefix     string
	Keys       int64
	KeyBytes   int64
	ValueBytes int64
}

// Leases is the lease census.
type Leases struct {
	// Count is the leases alive (LeaseLeases).
	Count int
	// Sampled is how many were read with LeaseTimeToLive; TTLs their
	// granted TTLs in seconds and Keys their attached keys, in the order
	// read.
	Sampled int
	TTLs    []int64
	Keys    []int
	// KeyGroups counts the sampled leases' attached keys by group (the
	// most specific of Groups), so that a replay can put its lease keys
	// where the source's were.
	KeyGroups map[string]int
}

// KeyspaceCensus is c as doctor's result model: keys and bytes per group.
func (c *Census) KeyspaceCensus() *result.KeyspaceCensus {
	out := &result.KeyspaceCensus{Revision: c.Revision, Keys: c.Keys, Bytes: c.Bytes}
	for _, p := range c.Prefixes {
		out.Prefixes = append(out.Prefixes, result.PrefixUsage{Prefix: p.Prefix, Keys: p.Keys, Bytes: p.KeyBytes + p.ValueBytes})
	}
	return out
}

// run is one census's state; it is used by one goroutine.
type run struct {
	cli *clientv3.Client
	o   Options
	c   *Census
}

// spend counts one request, false (and Stopped said) when the budget is
// spent.
func (r *run) spend() bool {
	if r.o.MaxRequests > 0 && r.c.Requests >= r.o.MaxRequests {
		r.c.BudgetSpent = true
		if r.c.Stopped == "" {
			r.c.Stopped = fmt.Sprintf("the census stopped after %d requests (its budget): %d keys counted", r.c.Requests, r.c.Keys)
		}
		return false
	}
	r.c.Requests++
	return true
}

// Read takes a census through cli (a client of the one member to read).
// It sends only serializable Ranges, LeaseLeases and LeaseTimeToLive.
func Read(ctx context.Context, cli *clientv3.Client, o Options) *Census {
	if o.Page <= 0 {
		o.Page = DefaultPage
	}
	if o.Pace <= 0 {
		o.Pace = DefaultPace
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	r := &run{cli: cli, o: o, c: &Census{}}
	r.keys(ctx)
	if o.LeaseSample > 0 && !r.c.BudgetSpent && ctx.Err() == nil {
		r.leases(ctx)
	}
	return r.c
}

func (r *run) keys(ctx context.Context) {
	groups := map[string]*Prefix{}
	from := "\x00"
	for r.spend() {
		opts := []clientv3.OpOption{clientv3.WithFromKey(), clientv3.WithLimit(r.o.Page), clientv3.WithSerializable()}
		if r.c.Revision > 0 {
			opts = append(opts, clientv3.WithRev(r.c.Revision))
		}
		rctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
		resp, err := r.cli.Get(rctx, from, opts...)
		cancel()
		if err != nil {
			r.c.Stopped = fmt.Sprintf("the census stopped after %d keys: %v", r.c.Keys, err)
			break
		}
		if r.c.Revision == 0 {
			r.c.Revision = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			r.c.Keys++
			r.c.Bytes += int64(len(kv.Key) + len(kv.Value))
			for _, g := range Groups(string(kv.Key)) {
				u := groups[g]
				if u == nil {
					u = &Prefix{Prefix: g}
					groups[g] = u
				}
				u.Keys++
				u.KeyBytes += int64(len(kv.Key))
				u.ValueBytes += int64(len(kv.Value))
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		if r.c.Keys >= r.o.MaxKeys {
			r.c.Stopped = fmt.Sprintf("the census stopped at %d keys (its limit)", r.c.Keys)
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		select {
		case <-ctx.Done():
			r.c.Stopped = fmt.Sprintf("the census stopped after %d keys: %v", r.c.Keys, ctx.Err())
			r.finish(groups)
			return
		case <-time.After(r.o.Pace):
		}
	}
	r.finish(groups)
}

func (r *run) finish(groups map[string]*Prefix) {
	for _, u := range groups {
		r.c.Prefixes = append(r.c.Prefixes, *u)
	}
	sort.Slice(r.c.Prefixes, func(i, j int) bool {
		a, b := r.c.Prefixes[i], r.c.Prefixes[j]
		if a.KeyBytes+a.ValueBytes != b.KeyBytes+b.ValueBytes {
			return a.KeyBytes+a.ValueBytes > b.KeyBytes+b.ValueBytes
		}
		return a.Prefix < b.Prefix
	})
}

// leases lists the leases and reads a sample of them, spread over the
// list, within the budget.
func (r *run) leases(ctx context.Context) {
	if !r.spend() {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	resp, err := r.cli.Leases(lctx)
	cancel()
	if err != nil {
		if r.c.Stopped == "" {
			r.c.Stopped = fmt.Sprintf("the lease census could not list the leases: %v", err)
		}
		return
	}
	l := &Leases{Count: len(resp.Leases)}
	r.c.Leases = l
	n := min(r.o.LeaseSample, len(resp.Leases))
	for i := range n {
		id := resp.Leases[i*len(resp.Leases)/n].ID
		if !r.spend() {
			return
		}
		tctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
		t, err := r.cli.TimeToLive(tctx, id, clientv3.WithAttachedKeys())
		cancel()
		if err != nil {
			continue // expired since the list, or the context
		}
		if t.TTL < 0 {
			continue
		}
		l.Sampled++
		l.TTLs = append(l.TTLs, t.GrantedTTL)
		l.Keys = append(l.Keys, len(t.Keys))
		for _, k := range t.Keys {
			gs := Groups(string(k))
			if l.KeyGroups == nil {
				l.KeyGroups = map[string]int{}
			}
			l.KeyGroups[gs[len(gs)-1]]++
		}
	}
}

// Groups are the groups a key counts in: its top-level prefix
// ("/registry/", "/etcdlab/", or for a key without a leading slash the
// part before its first "/", else "(other)") and, under /registry/, its
// Kubernetes resource ("/registry/pods/"; services and endpoints live
// under /registry/services/specs/ and /registry/services/endpoints/).
func Groups(k string) []string {
	top := "(other)"
	rest := ""
	switch {
	case strings.HasPrefix(k, "/"):
		seg, r, ok := strings.Cut(k[1:], "/")
		top, rest = "/"+seg+"/", r
		if !ok {
			top, rest = "/"+seg, ""
		}
	default:
		if seg, _, ok := strings.Cut(k, "/"); ok {
			top = seg + "/"
		}
	}
	if top != "/registry/" || rest == "" {
		return []string{top}
	}
	res, r, ok := strings.Cut(rest, "/")
	if !ok {
		return []string{top}
	}
	group := top + res + "/"
	if res == "services" {
		if sub, _, ok := strings.Cut(r, "/"); ok && (sub == "specs" || sub == "endpoints") {
			group += sub + "/"
		}
	}
	return []string{top, group}
}
