package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// doctorView fills a doctor result's page: the diagnosis, the members,
// every step's checks (as the verdict table), the keyspace and logs
// censuses, and two charts per member: the disk's p99s and read latency.
func doctorView(v *docView, doc *result.Document, prefix string) error {
	d := doc.Doctor
	if d == nil {
		return fmt.Errorf("a doctor result without its diagnosis")
	}
	v.Env = append(v.Env, [2]string{"window", units.Seconds(d.WindowSeconds) + " of metrics and probes"})
	diag := Table{Header: []string{"rank", "status", "cause", "member", "finding", "evidence", "fix", "source"}}
	for _, f := range d.Findings {
		diag.Rows = append(diag.Rows, []string{strconv.Itoa(f.Rank), f.Status, f.Cause, f.Member, f.Summary, strings.Join(f.Evidence, "; "), f.Fix, f.Source})
	}
	if len(diag.Rows) == 0 {
		v.Notes = append(v.Notes, "the diagnosis found nothing wrong in what it could see")
	}
	mt := Table{Header: []string{"member", "endpoint", "version", "role", "db (in use)", "serializable read p50 / max", "linearizable read p50 / max", "TCP connect"}}
	var names []string
	fsync, commit, serial, linear := []float64{}, []float64{}, []float64{}, []float64{}
	for _, m := range d.Members {
		role := map[bool]string{true: "leader", false: "follower"}[m.IsLeader]
		if !m.Reachable {
			role = "unreachable: " + m.Error
		}
		mt.Rows = append(mt.Rows, []string{m.Name, hostOf(m.Endpoint), m.Version, role, dbCell(m), readCell(m.ReadSerial), readCell(m.ReadLinear), secondsOr(m.ConnectSeconds)})
		names = append(names, m.Name)
		var f, c, s, l float64
		if x := m.Metrics; x != nil {
			f, c = x.WALFsyncP99*1000, x.CommitP99*1000
		}
		if m.ReadSerial != nil {
			s = m.ReadSerial.P50 * 1000
		}
		if m.ReadLinear != nil {
			l = m.ReadLinear.P50 * 1000
		}
		fsync, commit, serial, linear = append(fsync, f), append(commit, c), append(serial, s), append(linear, l)
	}
	v.Tables = append(v.Tables, namedTable{"Diagnosis", diag}, namedTable{"Members", mt})
	for _, st := range d.Steps {
		v.Verdicts = append(v.Verdicts, st.Checks...)
		for _, u := range st.Unseen {
			v.Notes = append(v.Notes, "not seen ("+st.Name+"): "+u)
		}
	}
	if k := d.Keyspace; k != nil {
		kt := Table{Header: []string{"prefix", "keys", "bytes"}}
		for _, p := range k.Prefixes {
			kt.Rows = append(kt.Rows, []string{p.Prefix, humanize.Comma(p.Keys), humanize.IBytes(uint64(p.Bytes))})
		}
		v.Tables = append(v.Tables, namedTable{fmt.Sprintf("Keyspace at revision %d", k.Revision), kt})
	}
	if l := d.Logs; l != nil {
		lt := Table{Header: []string{"member", "message", "cause", "count", "took min / median / max"}}
		for _, m := range l.Messages {
			took := "-"
			if m.Took != nil {
				took = units.Seconds(m.Took.Min) + " / " + units.Seconds(m.Took.Median) + " / " + units.Seconds(m.Took.Max)
			}
			lt.Rows = append(lt.Rows, []string{m.Member, m.Text, m.Cause, strconv.Itoa(m.Count), took})
		}
		v.Tables = append(v.Tables, namedTable{fmt.Sprintf("Logs (%d lines, %d in no known format)", l.Lines, l.Unrecognised), lt})
	}
	if len(names) == 0 {
		return nil
	}
	c, err := barChart(prefix+"doctor-disk", "WAL fsync and backend commit p99 per member", "p99 (ms)", names, []string{"WAL fsync", "backend commit"}, [][]float64{fsync, commit})
	if err != nil {
		return err
	}
	v.Charts = append(v.Charts, c)
	c, err = barChart(prefix+"doctor-reads", "Read latency p50 per member", "p50 (ms)", names, []string{"serializable", "linearizable"}, [][]float64{serial, linear})
	if err != nil {
		return err
	}
	v.Charts = append(v.Charts, c)
	return nil
}
