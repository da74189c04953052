package result

import (
	"math"
	"sort"
	"strings"
)

// Measures are one experiment cell's figures, aggregated over its measured
// runs (its iterations): the numbers its bottleneck statement and its
// report rows are made of. Client-side figures come from the cell's
// summary (mean and sample standard deviation across iterations). Server
// figures are taken per run, then averaged over the runs that have server
// series: sums over the members (CPU, disk and network bytes), or the
// figure of the member a commit waits for (fsync, round trip; see
// quorumValue). Counts of trouble (leader changes, unavailability, failed
// requests) are summed over the runs. Measures are plain values.
type Measures struct {
	// Runs are the measured runs summarised; Iterations the summary's.
	Runs       int `json:"runs"`
	Iterations int `json:"iterations"`
	// Clients and Conns are the load of the point summarised; Rate the
	// offered rate of an open-loop run (0: closed loop).
	Clients int     `json:"clients"`
	Conns   int     `json:"conns"`
	Rate    float64 `json:"rate,omitempty"`
	// Throughput and latencies (seconds) across iterations.
	Throughput MeanSD `json:"throughput_rps"`
	P50        MeanSD `json:"p50_seconds"`
	P99        MeanSD `json:"p99_seconds"`
	// Mean is the latency mean (every request's latency over their
	// number), across iterations: what the storage article drew.
	Mean MeanSD `json:"mean_seconds"`
	// RunSeconds is the measured runs' duration, summed; Requests and
	// Errors their successful and failed requests.
	RunSeconds float64 `json:"run_seconds"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`

	// ServerRuns counts the runs with server series; the server figures
	// below are 0 when it is 0.
	ServerRuns int `json:"server_runs"`
	// Members is the number of members in the series.
	Members int `json:"members,omitempty"`
	// MemberCPUCores is the members' mean CPU summed (cores);
	// MemberCPUMax the busiest member's mean.
	MemberCPUCores float64 `json:"member_cpu_cores,omitempty"`
	MemberCPUMax   float64 `json:"member_cpu_max_cores,omitempty"`
	// LoadCPUCores is the load generator's CPU (cores), averaged over the
	// LoadCPURuns runs that measured it.
	LoadCPUCores float64 `json:"load_cpu_cores,omitempty"`
	LoadCPURuns  int     `json:"load_cpu_runs,omitempty"`
	// LoadCoresLimit is the fewest cores the load generator's Go runtime
	// could use in those runs (GOMAXPROCS; 0: not recorded).
	LoadCoresLimit int `json:"load_cores_limit,omitempty"`
	// MachineCPUCores is this machine's CPU in use, whoever used it,
	// averaged over the MachineCPURuns runs that measured it.
	MachineCPUCores float64 `json:"machine_cpu_cores,omitempty"`
	MachineCPURuns  int     `json:"machine_cpu_runs,omitempty"`
	// WAL fsync figures of the member a commit waits for; Slowest is the
	// slowest member's p99.
	WALFsyncP50        float64 `json:"wal_fsync_p50_seconds,omitempty"`
	WALFsyncP99        float64 `json:"wal_fsync_p99_seconds,omitempty"`
	WALFsyncP99Slowest float64 `json:"wal_fsync_p99_slowest_seconds,omitempty"`
	WALFsyncsPerSecond float64 `json:"wal_fsyncs_per_second,omitempty"`
	// WALFsyncMean is the mean WAL fsync of the member a commit waits
	// for, from the histogram's _sum over its _count: exact, below etcd's
	// lowest bucket (1 ms) too, where the quantiles only say "at most".
	// 0 when the series has no _sum (results from before it was kept).
	WALFsyncMean float64 `json:"wal_fsync_mean_seconds,omitempty"`
	// WALBusy is the share of the run that member spent in WAL fsync: the
	// fsyncs' time together (the histogram's _sum) / run seconds. Results
	// from before the sum was recorded estimate it as fsyncs × p50 / run
	// seconds, and say so with WALBusyEstimated (a p50 in etcd's lowest
	// bucket is its 1 ms bound, so that estimate is then an upper bound).
	WALBusy          float64 `json:"wal_busy,omitempty"`
	WALBusyEstimated bool    `json:"wal_busy_estimated,omitempty"`
	BackendCommitP99 float64 `json:"backend_commit_p99_seconds,omitempty"`
	PeerRTTP99       float64 `json:"peer_rtt_p99_seconds,omitempty"`
	// PeerRTTLowestBucket and PeerRTTHighestBucket are the lowest and
	// highest peer round-trip buckets (their upper bounds, le) any member
	// observed in any run: the range a dashboard's heatmap of the
	// histogram shows over the cell (0: nothing observed).
	PeerRTTLowestBucket  float64 `json:"peer_rtt_lowest_bucket_seconds,omitempty"`
	PeerRTTHighestBucket float64 `json:"peer_rtt_highest_bucket_seconds,omitempty"`
	// Disk and network bytes per second, summed over the members (disk
	// only for members etcdlab started).
	DiskWriteBytesPerSecond float64 `json:"disk_write_bytes_per_second,omitempty"`
	NetBytesPerSecond       float64 `json:"net_bytes_per_second,omitempty"`
	DBSizeBytes             float64 `json:"db_size_bytes,omitempty"` // largest member, at the end
	// Trouble, summed over runs: leader changes (as the member that saw
	// most), seconds a majority of members had no leader, slow applies
	// (all members), cluster unavailability (canaries) and the clients'.
	LeaderChanges        float64 `json:"leader_changes,omitempty"`
	SecondsWithoutLeader float64 `json:"seconds_without_leader,omitempty"`
	SlowApplies          float64 `json:"slow_applies,omitempty"`
	// SlowAppliesPerMemberRun is SlowApplies over members × server runs:
	// what one member counts in one run, on average;
	// SlowAppliesMemberRunMax the most one member counted in one run.
	SlowAppliesPerMemberRun   float64 `json:"slow_applies_per_member_run,omitempty"`
	SlowAppliesMemberRunMax   float64 `json:"slow_applies_member_run_max,omitempty"`
	ClusterUnavailableSeconds float64 `json:"cluster_unavailable_seconds,omitempty"`
	ClientUnavailableSeconds  float64 `json:"client_unavailable_seconds,omitempty"`
	// QuotaErrors are requests refused because the backend quota was
	// exceeded ("database space exceeded").
	QuotaErrors int64 `json:"quota_errors,omitempty"`
}

// MeasureCell aggregates a cell's measured runs. A cell whose bench line
// swept several points itself is summarised at its last point. It
// summarises, it does not judge: package judge/bottleneck judges the
// figures.
func MeasureCell(c *Cell) Measures {
	var m Measures
	runs := c.Runs
	var sum *Summary
	if n := len(c.Summaries); n > 0 {
		sum = &c.Summaries[n-1]
		if n > 1 {
			runs = nil
			for _, r := range c.Runs {
				if r.Conns == sum.Conns && r.Clients == sum.Clients {
					runs = append(runs, r)
				}
			}
		}
	}
	if c.Bench != nil {
		m.Rate = c.Bench.Rate
	}
	var tput, p50, p99, mean []float64
	var server serverSums
	for i := range runs {
		r := &runs[i]
		if r.Requests == 0 && r.Stats.ErrorCount() == 0 {
			continue
		}
		m.Runs++
		m.Clients, m.Conns = max(m.Clients, r.Clients), max(m.Conns, r.Conns)
		secs := runSeconds(r)
		m.RunSeconds += secs
		m.Requests += r.Requests
		m.Errors += r.Stats.ErrorCount()
		tput, p50, p99 = append(tput, r.ThroughputRPS), append(p50, r.Latency.P50), append(p99, r.Latency.P99)
		mean = append(mean, r.Latency.Mean)
		if r.ClusterUnavailability != nil {
			m.ClusterUnavailableSeconds += r.ClusterUnavailability.TotalSeconds
		}
		if r.ClientUnavailability != nil {
			m.ClientUnavailableSeconds += r.ClientUnavailability.TotalSeconds
		}
		for msg, n := range r.ErrorMessages {
			if strings.Contains(strings.ToLower(msg), "space exceeded") {
				m.QuotaErrors += n
			}
		}
		if r.MachineCPUCores > 0 {
			m.MachineCPUCores += r.MachineCPUCores
			m.MachineCPURuns++
		}
		if r.LoadCPUCores > 0 {
			m.LoadCPUCores += r.LoadCPUCores
			m.LoadCPURuns++
		}
		if l := r.LoadCoresLimit; l > 0 && (m.LoadCoresLimit == 0 || l < m.LoadCoresLimit) {
			m.LoadCoresLimit = l
		}
		if r.Server != nil && len(r.Server.Members) > 0 {
			server.add(&m, r.Server, secs)
		}
	}
	if m.MachineCPURuns > 0 {
		m.MachineCPUCores /= float64(m.MachineCPURuns)
	}
	if m.LoadCPURuns > 0 {
		m.LoadCPUCores /= float64(m.LoadCPURuns)
	}
	server.mean(&m)
	if sum != nil && sum.Iterations > 0 {
		m.Iterations = sum.Iterations
		m.Throughput, m.P50, m.P99, m.Mean = sum.ThroughputRPS, sum.P50, sum.P99, sum.Mean
		m.Clients, m.Conns = sum.Clients, sum.Conns
	} else if m.Runs > 0 {
		m.Iterations = m.Runs
		m.Throughput, m.P50, m.P99, m.Mean = MeanSDOf(tput), MeanSDOf(p50), MeanSDOf(p99), MeanSDOf(mean)
	}
	return m
}

// serverSums accumulates per-run server figures for their mean.
type serverSums struct {
	n                                                                  int
	cpu, cpuMax, p50, p99, slowest, rate, busy, commit, rtt, disk, net float64
	fsyncMean                                                          float64
	fsyncMeanRuns                                                      int
	memberRuns                                                         int // members' summaries over the runs
}

func (s *serverSums) add(m *Measures, srv *Server, secs float64) {
	s.n++
	n := len(srv.Members)
	m.Members = max(m.Members, n)
	var p50s, p99s, rates, busy, commits, rtts, nolead, means []float64
	var cpu, cpuMax, disk, net, leaderChanges float64
	for _, mb := range srv.Members {
		x := mb.Summary
		cpu += x.CPUCoresMean
		cpuMax = math.Max(cpuMax, x.CPUCoresMean)
		disk += x.DiskWriteBytes
		net += x.NetReceiveBytes + x.NetSendBytes
		leaderChanges = math.Max(leaderChanges, x.LeaderChanges)
		m.SlowApplies += x.SlowApplies
		m.SlowAppliesMemberRunMax = math.Max(m.SlowAppliesMemberRunMax, x.SlowApplies)
		s.memberRuns++
		if x.PeerRTTLowestBucket > 0 && (m.PeerRTTLowestBucket == 0 || x.PeerRTTLowestBucket < m.PeerRTTLowestBucket) {
			m.PeerRTTLowestBucket = x.PeerRTTLowestBucket
		}
		m.PeerRTTHighestBucket = math.Max(m.PeerRTTHighestBucket, x.PeerRTTHighestBucket)
		m.DBSizeBytes = math.Max(m.DBSizeBytes, x.DBSizeBytes)
		nolead = append(nolead, x.SecondsWithoutLead)
		if x.WALFsyncs > 0 && x.WALFsyncSeconds > 0 {
			means = append(means, x.WALFsyncSeconds/x.WALFsyncs)
		}
		if x.WALFsyncP99 > 0 {
			p50s, p99s = append(p50s, x.WALFsyncP50), append(p99s, x.WALFsyncP99)
			if secs > 0 {
				rates = append(rates, x.WALFsyncs/secs)
				if x.WALFsyncSeconds > 0 {
					busy = append(busy, x.WALFsyncSeconds/secs)
				} else {
					busy = append(busy, x.WALFsyncs*x.WALFsyncP50/secs)
					m.WALBusyEstimated = true
				}
			}
		}
		if x.BackendCommitP99 > 0 {
			commits = append(commits, x.BackendCommitP99)
		}
		if x.PeerRTTP99 > 0 {
			rtts = append(rtts, x.PeerRTTP99)
		}
	}
	m.LeaderChanges += leaderChanges
	m.SecondsWithoutLeader += majorityValue(nolead, n)
	s.cpu += cpu
	s.cpuMax += cpuMax
	s.p50 += quorumValue(p50s, n)
	s.p99 += quorumValue(p99s, n)
	s.slowest += maxOf(p99s)
	s.rate += quorumValue(rates, n)
	s.busy += quorumValue(busy, n)
	s.commit += quorumValue(commits, n)
	s.rtt += quorumValue(rtts, n)
	if len(means) > 0 {
		s.fsyncMean += quorumValue(means, n)
		s.fsyncMeanRuns++
	}
	if secs > 0 {
		s.disk += disk / secs
		s.net += net / secs
	}
}

func (s *serverSums) mean(m *Measures) {
	m.ServerRuns = s.n
	if s.n == 0 {
		return
	}
	if s.memberRuns > 0 {
		m.SlowAppliesPerMemberRun = m.SlowApplies / float64(s.memberRuns)
	}
	d := float64(s.n)
	m.MemberCPUCores, m.MemberCPUMax = s.cpu/d, s.cpuMax/d
	m.WALFsyncP50, m.WALFsyncP99, m.WALFsyncP99Slowest = s.p50/d, s.p99/d, s.slowest/d
	m.WALFsyncsPerSecond, m.WALBusy = s.rate/d, s.busy/d
	m.BackendCommitP99, m.PeerRTTP99 = s.commit/d, s.rtt/d
	m.DiskWriteBytesPerSecond, m.NetBytesPerSecond = s.disk/d, s.net/d
	if s.fsyncMeanRuns > 0 {
		m.WALFsyncMean = s.fsyncMean / float64(s.fsyncMeanRuns)
	}
}

// quorumValue is the figure of the member a commit waits for: of n
// members, a write commits once a majority (n/2+1) has it, so the
// majority's slowest member, the (n/2+1)-th smallest value, sets the pace
// (with 3 members, the second fastest). Members that observed nothing are
// left out of vals; with fewer values than a majority, the largest is
// used. 0 when vals is empty.
func quorumValue(vals []float64, n int) float64 {
	if len(vals) == 0 {
		return 0
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	return s[min(n/2, len(s)-1)]
}

// majorityValue is the most that a majority of n members all reached: the
// (n/2+1)-th largest value (with fewer values, the smallest). Seconds
// without a leader count for the cluster only when a majority lacked one.
func majorityValue(vals []float64, n int) float64 {
	if len(vals) == 0 {
		return 0
	}
	s := append([]float64(nil), vals...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	return s[min(n/2, len(s)-1)]
}

func maxOf(vals []float64) float64 {
	m := 0.0
	for _, v := range vals {
		m = math.Max(m, v)
	}
	return m
}

// runSeconds is a run's measured duration.
func runSeconds(r *Run) float64 {
	if r.DurationSeconds > 0 {
		return r.DurationSeconds
	}
	if !r.Start.IsZero() && r.End.After(r.Start) {
		return r.End.Sub(r.Start).Seconds()
	}
	return 0
}
