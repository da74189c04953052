package main

import (
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// topologyOf builds the topology `cluster up` is asked for: the --topology
// file or preset, with --rtt, --client-rtt and --etcd-defaults laid over
// it (topology.WithOverlay). --rtt replaces the topology's member-to-member
// links and --client-rtt its client links. Nil when nothing is emulated.
func (f *upFlags) topologyOf() (*topology.Topology, error) {
	var tp *topology.Topology
	if f.topology != "" {
		t, err := topology.Load(f.topology)
		if err != nil {
			return nil, err
		}
		tp = t
	}
	parse := func(flag, v string) (*result.Duration, error) {
		if v == "" {
			return nil, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, exitcode.Usagef("--%s %q: give a round trip like 40ms", flag, v)
		}
		td := result.Duration(d)
		return &td, nil
	}
	o := topology.Overlay{EtcdDefaults: f.etcdDefaults}
	var err error
	if o.RTT, err = parse("rtt", f.rtt); err != nil {
		return nil, err
	}
	if o.ClientRTT, err = parse("client-rtt", f.clientRTT); err != nil {
		return nil, err
	}
	return topology.WithOverlay(tp, o), nil
}

// printLinkMatrix shows the configured one-way delays, rows from, columns to.
func (a *app) printLinkMatrix(cl *cluster.Cluster) {
	header, rows := topology.LinkMatrix(cl.Names(), cl.Links())
	fmt.Fprintf(a.stdout, "emulated network, one-way (row -> column); tuning: heartbeat %d ms, election timeout %d ms\n",
		cl.Tuning().HeartbeatMs, cl.Tuning().ElectionMs)
	_ = table.Write(a.stdout, header, rows)
	fmt.Fprintln(a.stdout, "change links: etcdlab cluster fault link|partition|heal ...; see them: etcdlab cluster status")
}
