package profile

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/census"
	"github.com/etcdlab/etcdlab/result"
)

// leaseSample is how many leases the census reads with LeaseTimeToLive
// (within its request budget).
const leaseSample = 100

// census reads the keyspace and the leases into p, within the request
// budget; a census cut short says so in p.Unattributed and on o.Log, and
// is never an error.
// CensusTime bounds the census: past it, the census stops and says how
// far it got, as when its request budget runs out.
const CensusTime = 20 * time.Second

func (o *Options) census(ctx context.Context, p *replay.Profile) {
	budget := o.CensusMaxRequests
	if budget == 0 {
		budget = DefaultCensusMaxRequests
	}
	cli, err := client(o.Conn)
	if err != nil {
		p.Unattributed = append(p.Unattributed, "census: "+err.Error())
		return
	}
	defer cli.Close()
	// The census comes after the window (its reads would count in it), so
	// it has a time limit of its own: with the default window, profile
	// answers in about a minute and a half at most.
	ctx, cancel := context.WithTimeout(ctx, CensusTime)
	defer cancel()
	c := census.Read(ctx, cli, census.Options{Page: o.CensusPage, MaxRequests: budget, LeaseSample: leaseSample, Timeout: requestTimeout})
	if c.Stopped != "" {
		msg := c.Stopped
		if c.BudgetSpent {
			msg += "; raise --census-max-requests"
		}
		fmt.Fprintln(o.Log, "profile: "+msg)
		p.Unattributed = append(p.Unattributed, msg)
	}
	if c.Keys == 0 && c.Revision == 0 {
		return
	}
	p.Source.Sources = append(p.Source.Sources, "census")
	fromCensus(p, c)
}

// fromCensus puts a census into p: the keyspace's totals and its groups
// as prefixes that do not overlap (/registry/ holds only what no
// resource's group holds), each with its mean key and value sizes; the
// leases' count, median TTL and mean keys per lease; and puts' value size
// less the census's mean key size (etcd's put size counts both).
func fromCensus(p *replay.Profile, c *census.Census) {
	k := p.Keyspace
	if k == nil {
		k = &replay.Keyspace{}
		p.Keyspace = k
	}
	k.Keys, k.Bytes, k.Revision = c.Keys, c.Bytes, c.Revision
	k.From = strings.TrimPrefix(k.From+fmt.Sprintf("; keys, bytes and prefixes: a census at revision %d (serializable ranges)", c.Revision), "; ")
	var under census.Prefix
	rows := []replay.PrefixShape{}
	var reg *census.Prefix
	for _, g := range c.Prefixes {
		if g.Prefix == "/registry/" {
			reg = &g
			continue
		}
		if strings.HasPrefix(g.Prefix, "/registry/") {
			under.Keys += g.Keys
			under.KeyBytes += g.KeyBytes
			under.ValueBytes += g.ValueBytes
		}
		rows = append(rows, shape(g))
	}
	if reg != nil && reg.Keys > under.Keys {
		rows = append(rows, shape(census.Prefix{Prefix: reg.Prefix, Keys: reg.Keys - under.Keys,
			KeyBytes: reg.KeyBytes - under.KeyBytes, ValueBytes: reg.ValueBytes - under.ValueBytes}))
	}
	// Resources the kube-apiservers named and the census did not see stay.
	for _, s := range k.Prefixes {
		if !slices.ContainsFunc(rows, func(r replay.PrefixShape) bool { return r.Prefix == s.Prefix }) {
			rows = append(rows, s)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Prefix < rows[j].Prefix })
	k.Prefixes = rows

	if c.Keys > 0 {
		var keyBytes int64
		for _, g := range c.Prefixes {
			if !strings.HasPrefix(g.Prefix, "/registry/") || g.Prefix == "/registry/" {
				keyBytes += g.KeyBytes
			}
		}
		meanKey := float64(keyBytes) / float64(c.Keys)
		for i := range p.Operations {
			if o := &p.Operations[i]; o.ValueBytes > meanKey && (o.Op == replay.OpPut || o.Op == replay.OpTxn) {
				o.ValueBytes -= meanKey
				o.From += fmt.Sprintf("; less the census's mean key size (%.0f bytes)", meanKey)
			}
		}
	}
	if l := c.Leases; l != nil {
		out := p.Leases
		if out == nil {
			out = &replay.Leases{}
		}
		out.Count = l.Count
		from := fmt.Sprintf("count: LeaseLeases (%d)", l.Count)
		if l.Sampled > 0 {
			ttls := slices.Clone(l.TTLs)
			slices.Sort(ttls)
			out.TTL = result.Duration(time.Duration(ttls[len(ttls)/2]) * time.Second)
			var keys int
			for _, n := range l.Keys {
				keys += n
			}
			out.KeysPerLease = float64(keys) / float64(l.Sampled)
			most := 0
			for g, n := range l.KeyGroups {
				if n > most || n == most && g < out.Prefix {
					out.Prefix, most = g, n
				}
			}
			from += fmt.Sprintf("; ttl (median granted) and keys per lease: LeaseTimeToLive of %d leases", l.Sampled)
		}
		if out.From != "" {
			from += "; " + out.From
		}
		out.From = from
		if out.Count > 0 || out.KeepalivesPerSecond > 0 {
			if out.Count > 0 && out.TTL.D() <= 0 {
				out.TTL = result.Duration(time.Minute)
				out.From += "; ttl: none read, 1m assumed"
			}
			p.Leases = out
		} else {
			p.Leases = nil
		}
	}
}

// shape is a census group as a profile's prefix: mean sizes, and the
// resource of a /registry/<resource>/ group.
func shape(g census.Prefix) replay.PrefixShape {
	s := replay.PrefixShape{Prefix: g.Prefix, Keys: g.Keys}
	if g.Keys > 0 {
		s.KeyBytes = float64(g.KeyBytes) / float64(g.Keys)
		s.ValueBytes = float64(g.ValueBytes) / float64(g.Keys)
	}
	if r, ok := strings.CutPrefix(g.Prefix, "/registry/"); ok && r != "" {
		s.Resource = strings.TrimSuffix(strings.Split(r, "/")[0], "/")
		if s.Resource == "minions" {
			s.Resource = "nodes"
		} else if strings.HasPrefix(r, "services/endpoints/") {
			s.Resource = "endpoints"
		}
	}
	return s
}
