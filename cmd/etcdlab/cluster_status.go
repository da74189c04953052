package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/cluster"
	"github.com/etcdlab/etcdlab/etcdclient"
	"github.com/etcdlab/etcdlab/exitcode"
	"github.com/etcdlab/etcdlab/table"
	"github.com/spf13/cobra"
)

func (a *app) clusterStatusCmd() *cobra.Command {
	var (
		stateFile string
		output    string
		conn      etcdclient.Config
	)
	c := &cobra.Command{
		Use:   "status",
		Short: "Show each member's role, version, DB size, raft term and index, and health",
		Long: `Ask every member for its status and health, as 'etcdctl endpoint status' and
'endpoint health' do, each within a few seconds. Without --endpoints the
cluster is the one in the state file. Exits 1 when a member is unhealthy.`,
		Example: "  etcdlab cluster status\n  etcdlab cluster status -o json\n  etcdlab cluster status --endpoints https://10.0.0.1:2379 --cacert ca.crt --cert c.crt --key c.key",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return exitcode.Usagef("-o must be table or json, not %q", output)
			}
			names := map[string]string{}
			pids := map[string]cluster.MemberState{}
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
			}
			sts := cluster.Status(c.Context(), conn, names)
			for i := range sts {
				if m, ok := pids[sts[i].Endpoint]; ok && !sts[i].Healthy && !m.Process().Alive() {
					sts[i].Error += fmt.Sprintf(" (member process %d has exited)", m.PID)
				}
			}
			if err := a.printStatus(output, sts); err != nil {
				return err
			}
			return unhealthy(sts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	fl.StringVarP(&output, "output", "o", "table", "output format: table or json")
	addConnFlags(fl, &conn)
	return c
}

func (a *app) printStatus(output string, sts []cluster.MemberStatus) error {
	if output == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Members []cluster.MemberStatus `json:"members"`
		}{sts})
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
