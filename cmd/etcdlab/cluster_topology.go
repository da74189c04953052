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
// it. --rtt replaces the topology's member-to-member links and
// --client-rtt its client links. Nil when nothing is emulated.
func (f *upFlags) topologyOf() (*topology.Topology, error) {
	var tp *topology.Topology
	if f.topology != "" {
		t, err := topology.Load(f.topology)
		if err != nil {
			return nil, err
		}
		tp = t
	}
	if f.rtt == "" && f.clientRTT == "" && !f.etcdDefaults {
		return tp, nil
	}
	if tp == nil {
		tp = &topology.Topology{}
	}
	parse := func(flag, v string) (*result.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, exitcode.Usagef("--%s %q: give a round trip like 40ms", flag, v)
		}
		td := result.Duration(d)
		return &td, nil
	}
	// drop removes the topology's client links (client) or member links.
	drop := func(client bool) {
		var out []topology.Link
		for _, l := range tp.Links {
			ends := append(append([]string{}, l.Between...), l.From, l.To)
			isClient := false
			for _, e := range ends {
				isClient = isClient || e == cluster.ClientNode
			}
			if isClient != client {
				out = append(out, l)
			}
		}
		tp.Links = out
	}
	if f.rtt != "" {
		d, err := parse("rtt", f.rtt)
		if err != nil {
			return nil, err
		}
		tp.RTT = d
		drop(false)
	}
	if f.clientRTT != "" {
		d, err := parse("client-rtt", f.clientRTT)
		if err != nil {
			return nil, err
		}
		tp.ClientRTT = d
		drop(true)
	}
	if f.etcdDefaults {
		tp.Etcd.Defaults = true
	}
	return tp, nil
}

// printLinkMatrix shows the configured one-way delays, rows from, columns to.
func (a *app) printLinkMatrix(cl *cluster.Cluster) {
	names := append(cl.Names(), cluster.ClientNode)
	cfg := map[[2]string]string{}
	for _, l := range cl.Links() {
		cfg[[2]string{l.From, l.To}] = l.Link.String()
	}
	var rows [][]string
	for _, from := range names {
		row := []string{from}
		for _, to := range names {
			v := cfg[[2]string{from, to}]
			switch {
			case from == to:
				v = "-"
			case v == "":
				v = "0s"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(a.stdout, "emulated network, one-way (row -> column); tuning: heartbeat %d ms, election timeout %d ms\n",
		cl.Tuning().HeartbeatMs, cl.Tuning().ElectionMs)
	_ = table.Write(a.stdout, append([]string{"FROM \\ TO"}, names...), rows)
	fmt.Fprintln(a.stdout, "change links: etcdlab cluster fault link|partition|heal ...; see them: etcdlab cluster status")
}
