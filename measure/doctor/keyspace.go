package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Keyspace census defaults: pages of censusPage keys, censusPace apart, so
// the census costs a busy cluster little; at most censusMax keys.
const (
	censusPage = 500
	censusPace = 20 * time.Millisecond
	censusMax  = 2_000_000
)

// census reads every key and value once, in pages at one revision,
// serializable (the member's own copy, no quorum round), and counts keys
// and bytes per top-level prefix and, under /registry/, per Kubernetes
// resource. It reads nothing else and writes nothing. A census cut short
// (the context, a compaction of the pinned revision, the key limit) says
// so in the returned note.
func census(ctx context.Context, cli *clientv3.Client, page int64, pace time.Duration) (*result.KeyspaceCensus, string) {
	out := &result.KeyspaceCensus{}
	groups := map[string]*result.PrefixUsage{}
	add := func(g string, key, value int) {
		u := groups[g]
		if u == nil {
			u = &result.PrefixUsage{Prefix: g}
			groups[g] = u
		}
		u.Keys++
		u.Bytes += int64(key + value)
	}
	note := ""
	from := "\x00"
	for {
		opts := []clientv3.OpOption{clientv3.WithFromKey(), clientv3.WithLimit(page), clientv3.WithSerializable()}
		if out.Revision > 0 {
			opts = append(opts, clientv3.WithRev(out.Revision))
		}
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		resp, err := cli.Get(rctx, from, opts...)
		cancel()
		if err != nil {
			note = fmt.Sprintf("the census stopped after %d keys: %v", out.Keys, err)
			break
		}
		if out.Revision == 0 {
			out.Revision = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			out.Keys++
			out.Bytes += int64(len(kv.Key) + len(kv.Value))
			for _, g := range prefixGroups(k) {
				add(g, len(kv.Key), len(kv.Value))
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		if out.Keys >= censusMax {
			note = fmt.Sprintf("the census stopped at %d keys (its limit)", out.Keys)
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		select {
		case <-ctx.Done():
			return finishCensus(out, groups), fmt.Sprintf("the census stopped after %d keys: %v", out.Keys, ctx.Err())
		case <-time.After(pace):
		}
	}
	return finishCensus(out, groups), note
}

func finishCensus(out *result.KeyspaceCensus, groups map[string]*result.PrefixUsage) *result.KeyspaceCensus {
	for _, u := range groups {
		out.Prefixes = append(out.Prefixes, *u)
	}
	sort.Slice(out.Prefixes, func(i, j int) bool {
		if out.Prefixes[i].Bytes != out.Prefixes[j].Bytes {
			return out.Prefixes[i].Bytes > out.Prefixes[j].Bytes
		}
		return out.Prefixes[i].Prefix < out.Prefixes[j].Prefix
	})
	return out
}

// prefixGroups are the groups a key counts in: its top-level prefix
// ("/registry/", "/etcdlab/", or for a key without a leading slash the
// part before its first "/", else "(other)") and, under /registry/, its
// Kubernetes resource ("/registry/pods/"; services and endpoints live
// under /registry/services/specs/ and /registry/services/endpoints/).
func prefixGroups(k string) []string {
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
