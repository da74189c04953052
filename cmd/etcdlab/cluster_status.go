package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/spf13/cobra"
)

func (a *app) clusterStatusCmd() *cobra.Command {
	var (
		stateFile string
		output    string
		conn      etcdclient.Config
		probe     bool
	)
	c := &cobra.Command{
		Use:   "status",
		Short: "Show each member's role, version, DB size, raft term and index, and health",
		Long: `Ask every member for its status and health, as 'etcdctl endpoint status' and
'endpoint health' do, each within a few seconds. Without --endpoints the
cluster is the one in the state file. Exits 1 when a member is unhealthy.

For an emulated network (cluster up --rtt/--topology) it also lists every
directed link: its configured parameters, the median time the emulator held
its most recent chunks (what the path really added), and a round trip timed
from the source member's address to the destination's peer port and back
(GET /raft/probing, the endpoint etcd's own RTT prober uses), next to the
configured round trip.`,
		Example: "  etcdlab cluster status\n  etcdlab cluster status -o json\n  etcdlab cluster status --endpoints https://10.0.0.1:2379 --cacert ca.crt --cert c.crt --key c.key",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := outputFormat(render.SubjectStatus, output)
			if err != nil {
				return err
			}
			if err := validateConn(conn); err != nil {
				return err
			}
			names := map[string]string{}
			pids := map[string]cluster.MemberState{}
			var links []cluster.LinkView
			if len(conn.Endpoints) == 0 {
				st, err := cluster.ReadStateFile(stateFile)
				if err != nil {
					return err
				}
				if !st.Running() {
					return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited); 'etcdlab cluster down' removes the stale file", stateFile, st.Controller.PID)
				}
				dial := conn.DialTimeout
				conn = st.Client()
				conn.DialTimeout = dial
				for _, m := range st.Members {
					names[m.ClientURL], pids[m.ClientURL] = m.Name, m
				}
				if st.Emulated {
					var err error
					if links, err = cluster.NewControl(st).Links(c.Context(), probe); err != nil {
						return err
					}
				}
			}
			sts := cluster.Status(c.Context(), conn, names)
			for i := range sts {
				if m, ok := pids[sts[i].Endpoint]; ok && !sts[i].Healthy && !m.Process().Alive() {
					sts[i].Error += fmt.Sprintf(" (member process %d has exited)", m.PID)
				}
			}
			if err := a.printStatus(format, sts, links); err != nil {
				return err
			}
			return unhealthy(sts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	fl.StringVarP(&output, "output", "o", "table", "output format: table or json")
	fl.BoolVar(&probe, "probe", true, "emulated network: time a round trip over every member link")
	addConnFlags(fl, &conn)
	return c
}

func (a *app) printStatus(format render.Format, sts []cluster.MemberStatus, links []cluster.LinkView) error {
	if format == render.FormatJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Members []cluster.MemberStatus `json:"members"`
			Links   []cluster.LinkView     `json:"links,omitempty"`
		}{sts, links})
	}
	if len(links) > 0 {
		defer a.printLinks(links)
	}
	rows := make([][]string, 0, len(sts))
	for _, s := range sts {
		health := "healthy"
		if !s.Healthy {
			health = s.Error
		}
		row := []string{s.Name, s.Endpoint, s.ID, s.Version, "", "", s.Role, "", "", health}
		if s.Version != "" {
			row[4] = humanize.Bytes(uint64(s.DBSizeBytes))
			row[5] = humanize.Bytes(uint64(s.DBInUseBytes))
			row[7] = strconv.FormatUint(s.RaftTerm, 10)
			row[8] = strconv.FormatUint(s.RaftIndex, 10)
		}
		rows = append(rows, row)
	}
	return table.Write(a.stdout, []string{"NAME", "ENDPOINT", "ID", "VERSION", "DB SIZE", "IN USE", "ROLE", "RAFT TERM", "RAFT INDEX", "HEALTH"}, rows)
}

// unhealthy returns an error naming the unhealthy members, if any.
func unhealthy(sts []cluster.MemberStatus) error {
	var bad []string
	for _, s := range sts {
		if !s.Healthy {
			who := s.Name
			if who == "" {
				who = s.Endpoint
			}
			bad = append(bad, who+": "+s.Error)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return exitcode.Failuref("%d of %d members unhealthy (%s)", len(bad), len(sts), strings.Join(bad, "; "))
}

// printLinks shows the emulated links after the member table.
func (a *app) printLinks(links []cluster.LinkView) {
	conf := map[wan.Dir]wan.Link{}
	for _, l := range links {
		conf[l.Dir] = l.Link
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	rows := make([][]string, 0, len(links))
	for _, l := range links {
		held := "-"
		if l.Samples > 0 {
			held = fmt.Sprintf("%s (%d)", ms(l.Measured), l.Samples)
		}
		probe, want := "-", "-"
		if l.ProbeRTT > 0 {
			probe = ms(l.ProbeRTT)
			back := conf[wan.Dir{From: l.To, To: l.From}]
			want = ms(l.Link.Delay + back.Delay)
		}
		if l.ProbeError != "" {
			probe = l.ProbeError
		}
		rows = append(rows, []string{l.Dir.String(), l.Link.String(), held, strconv.FormatInt(l.Chunks, 10), want, probe})
	}
	fmt.Fprintln(a.stdout)
	_ = table.Write(a.stdout, []string{"LINK", "CONFIGURED ONE-WAY", "HELD (MEDIAN, N)", "CHUNKS", "CONFIGURED RTT", "PROBED RTT"}, rows)
}
