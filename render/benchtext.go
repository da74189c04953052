// Package render renders result documents for people and programs: etcd
// benchmark's text layout, the text of disk and check, CSV, Markdown, and
// self-contained HTML with charts.
package render

import (
	"fmt"
	"github.com/dustin/go-humanize"
	"io"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/result"
)

// TextOptions are etcd benchmark's output flags.
type TextOptions struct {
	// Precise prints full floating point precision (%g) instead of %4.4f.
	Precise bool
	// Sample adds the per-second CSV block.
	Sample bool
}

// BenchText writes a bench result laid out exactly like etcd benchmark's
// report (Summary, Response time histogram, Latency distribution, Error
// distribution), one per run, so existing habits and parsers keep working.
// Several runs (sweeps, iterations) get a header each and a closing table.
// Runs with server series get a "Server (per member)" block after all
// that, outside etcd benchmark's layout.
func BenchText(w io.Writer, doc *result.Document, opt TextOptions) error {
	var b strings.Builder
	p := "%4.4f"
	if opt.Precise {
		p = "%g"
	}
	for _, run := range doc.Runs {
		if len(doc.Runs) > 1 {
			fmt.Fprintf(&b, "\n=== %s ===\n", run.Name)
		}
		if doc.Bench != nil && (doc.Bench.Command == "range" || doc.Bench.Command == "txn-mixed") {
			if w := doc.Bench.Workload; w != nil && w.Consistency == "s" {
				b.WriteString("bench with serializable range\n")
			} else {
				b.WriteString("bench with linearizable range\n")
			}
		}
		switch {
		case run.Kube != nil && run.Kube.ControlPlane != "":
			fmt.Fprintf(&b, "\netcd requests from the apiservers (their etcd_requests_total): %s in %s, %.1f/s; latencies: their means by verb and resource below\n",
				humanize.Comma(run.Requests), secs3(run.DurationSeconds), run.ThroughputRPS)
		case len(run.Ops) == 2 && run.Ops[0].Name == "read":
			fmt.Fprintf(&b, "Total Read Ops: %d\nDetails:", opCount(run.Ops[0].Stats))
			b.WriteString(stats(run.Ops[0].Stats, p, opt.Sample) + "\n")
			fmt.Fprintf(&b, "Total Write Ops: %d\nDetails:", opCount(run.Ops[1].Stats))
			b.WriteString(stats(run.Ops[1].Stats, p, opt.Sample) + "\n")
		case len(run.Ops) == 2 && run.Ops[1].Name == "watch":
			fmt.Fprintf(&b, "\nPut summary:\n%s", stats(run.Ops[0].Stats, p, opt.Sample))
			fmt.Fprintf(&b, "\nWatch events summary:\n%s", stats(run.Ops[1].Stats, p, opt.Sample))
		default:
			b.WriteString(stats(run.Stats, p, opt.Sample) + "\n")
		}
		if run.ServiceTime != nil {
			fmt.Fprintf(&b, "Open loop: latencies above are from each request's intended send time; service time (from the actual send): p50 %s, p99 %s, max %s.\n",
				sec(p, run.ServiceTime.P50), sec(p, run.ServiceTime.P99), sec(p, run.ServiceTime.Max))
		}
		b.WriteString(availability(run))
		if doc.Bench != nil {
			b.WriteString(kubeText(run, doc.Bench.Kube))
		}
		b.WriteString(replayText(run))
		if run.StoppedEarly != "" {
			fmt.Fprintf(&b, "Stopped early: %s.\n", run.StoppedEarly)
		}
	}
	if len(doc.Runs) > 1 {
		b.WriteString("\n" + runsTable(doc))
		b.WriteString(kubeIterations(doc))
	}
	b.WriteString(serverText(doc))
	_, err := io.WriteString(w, b.String())
	return err
}

func opCount(s result.Stats) int64 { return s.Requests + s.ErrorCount() }

func sec(p string, v float64) string { return fmt.Sprintf(p+" secs", v) }

// stats renders one report block like etcd's pkg/report.
func stats(s result.Stats, p string, sample bool) string {
	var b strings.Builder
	if s.Requests > 0 {
		l := s.Latency
		b.WriteString("\nSummary:\n")
		fmt.Fprintf(&b, "  Total:\t%s.\n", sec(p, s.DurationSeconds))
		fmt.Fprintf(&b, "  Slowest:\t%s.\n", sec(p, l.Max))
		fmt.Fprintf(&b, "  Fastest:\t%s.\n", sec(p, l.Min))
		fmt.Fprintf(&b, "  Average:\t%s.\n", sec(p, l.Mean))
		fmt.Fprintf(&b, "  Stddev:\t%s.\n", sec(p, l.Stddev))
		fmt.Fprintf(&b, "  Requests/sec:\t"+p+"\n", s.ThroughputRPS)
		b.WriteString(histogram(s, p))
		b.WriteString("\nLatency distribution:\n")
		for _, q := range []struct {
			name string
			v    float64
		}{{"10", l.P10}, {"25", l.P25}, {"50", l.P50}, {"75", l.P75}, {"90", l.P90}, {"95", l.P95}, {"99", l.P99}, {"99.9", l.P999}} {
			if q.v > 0 {
				fmt.Fprintf(&b, "  %s%% in %s.\n", q.name, sec(p, q.v))
			}
		}
		if sample {
			b.WriteString(sampleCSV(s.TimeSeries))
		}
	}
	if len(s.ErrorMessages) > 0 {
		b.WriteString("\nError distribution:\n")
		for _, k := range sortedByCount(s.ErrorMessages) {
			fmt.Fprintf(&b, "  [%d]\t%s\n", s.ErrorMessages[k], k)
		}
	}
	return b.String()
}

// availability says when the cluster and the clients were unavailable (not
// in etcd benchmark's report), when either was.
func availability(run result.Run) string {
	cu, cl := run.ClusterUnavailability, run.ClientUnavailability
	if cu == nil && cl == nil {
		return ""
	}
	var b strings.Builder
	if c := run.Canary; c != nil {
		fmt.Fprintf(&b, "\nCluster unavailable (no member served the workload's request; canaries every %s to %d member(s), so +/- %s):\n",
			dur(c.IntervalSeconds), len(c.Members), dur(c.IntervalSeconds))
		if cu == nil {
			b.WriteString("  never\n")
		} else {
			windows(&b, cu)
		}
	}
	if cl != nil {
		b.WriteString("\nClient-observed unavailability (the load's requests failed and none succeeded; 10 ms resolution):\n")
		windows(&b, cl)
	}
	return b.String()
}

func windows(b *strings.Builder, u *result.Unavailability) {
	fmt.Fprintf(b, "  longest %.2f secs, %d window(s), %.2f secs in all\n", u.LongestSeconds, len(u.Windows), u.TotalSeconds)
	for i, w := range u.Windows {
		if i == 5 {
			fmt.Fprintf(b, "  ... %d more\n", len(u.Windows)-5)
			break
		}
		fmt.Fprintf(b, "  from %s for %.2f secs\n", w.Start.Local().Format("15:04:05.00"), w.Seconds)
	}
}

func dur(secs float64) string { return time.Duration(secs * float64(time.Second)).String() }

// histogram draws etcd's 11 linear buckets from the fastest to the slowest
// request, from the run's HDR histogram.
func histogram(s result.Stats, p string) string {
	const bc = 10
	fastest, slowest := s.Latency.Min, s.Latency.Max
	buckets := make([]float64, bc+1)
	counts := make([]int64, bc+1)
	bs := (slowest - fastest) / bc
	for i := range bc {
		buckets[i] = fastest + bs*float64(i)
	}
	buckets[bc] = slowest
	if h, err := hdrhistogram.Decode([]byte(s.Histogram)); err == nil {
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			v := min(max(float64(bar.From+bar.To)/2/1e6, fastest), slowest)
			i := 0
			for i < bc && v > buckets[i] {
				i++
			}
			counts[i] += bar.Count
		}
	}
	var mx int64
	for _, c := range counts {
		mx = max(mx, c)
	}
	var b strings.Builder
	b.WriteString("\nResponse time histogram:\n")
	for i := range buckets {
		bar := 0
		if mx > 0 {
			bar = int(counts[i] * 40 / mx)
		}
		fmt.Fprintf(&b, "  "+p+" [%d]\t|%s\n", buckets[i], counts[i], strings.Repeat("∎", bar))
	}
	return b.String()
}

// sampleCSV is etcd's --sample block: one row per second, latencies as Go
// durations despite the "-MS" column names.
func sampleCSV(ts []result.Second) string {
	var b strings.Builder
	b.WriteString("\nSample in one second (unix latency throughput):\nUNIX-SECOND,MIN-LATENCY-MS,AVG-LATENCY-MS,MAX-LATENCY-MS,AVG-THROUGHPUT\n")
	for _, s := range ts {
		d := func(v float64) string { return time.Duration(v * float64(time.Second)).String() }
		fmt.Fprintf(&b, "%d,%s,%s,%s,%d\n", s.UnixSecond, d(s.Min), d(s.Mean), d(s.Max), s.Requests)
	}
	return b.String()
}

func sortedByCount(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (m[keys[j]] > m[keys[j-1]] || (m[keys[j]] == m[keys[j-1]] && keys[j] < keys[j-1])); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
