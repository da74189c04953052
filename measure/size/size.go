package size

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/result"
)

// Probe lengths (each probe's measured run; the cluster's start and the
// preload come on top).
const (
	probeTime      = 40 * time.Second
	probeTimeQuick = 15 * time.Second
	idleTime       = 10 * time.Second
	// headroomShare is OpenShift's rule: keep usage at or below 60% so
	// that losing one member of three does not cascade.
	headroomShare = 0.60
	// defaultLabShare and maxLabCores bound what the members of a probe
	// get together, leaving the rest of the machine to the load
	// generator and everything else.
	defaultLabShare = 0.6
	maxLabCores     = 1.2
	defaultLoad     = 0.5
)

// runner is one Run: its options with defaults, the idle share, and a
// temporary directory for the probes' files. Used by one goroutine.
type runner struct {
	o         Options
	tmp       string
	loadCores float64
	labCores  float64
	idle      float64
	dur       time.Duration
	log       io.Writer
}

// Run sizes o.Load on every candidate and returns the answer. Bad options
// are invalid-input errors and nothing starts. Cancelling ctx stops the
// probe in flight (its cluster stopped) and returns what was measured
// with ctx's error.
func Run(ctx context.Context, o Options) (*result.Size, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	r := &runner{o: o, loadCores: o.LoadCores, labCores: o.LabCores, dur: o.ProbeTime, log: o.Log}
	if r.log == nil {
		r.log = io.Discard
	}
	if r.loadCores == 0 {
		r.loadCores = defaultLoad
	}
	if r.labCores <= 0 {
		r.labCores = min(maxLabCores, defaultLabShare*float64(runtime.NumCPU()))
	}
	if r.dur == 0 {
		r.dur = probeTime
		if o.Quick {
			r.dur = probeTimeQuick
		}
	}
	sweepTemp()
	tmp, err := os.MkdirTemp("", fmt.Sprintf("etcdlab-size-%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r.tmp = tmp
	began := time.Now()
	out := &result.Size{Target: o.Load.Target(), Load: o.Load.Summary(), SLOs: SLOs(), Quick: o.Quick,
		MachineCores: runtime.NumCPU(), LabCores: r.labCores}
	defer func() { out.Seconds = time.Since(began).Seconds() }()
	if r.idle, err = r.measureIdle(ctx); err != nil {
		return out, fmt.Errorf("idle probe: %w", err)
	}
	out.IdleMemberCores = round3(r.idle)
	fmt.Fprintf(r.log, "a member's idle CPU here: %.3f cores\n", r.idle)
	for _, c := range o.Candidates {
		out.Candidates = append(out.Candidates, r.candidate(ctx, c))
		if ctx.Err() != nil {
			out.Notes = append(out.Notes, "interrupted: the answer is partial")
			return out, ctx.Err()
		}
	}
	choose(out)
	if o.RTTBudget {
		if i := rttCandidate(out); i >= 0 {
			out.RTT = r.rttBudget(ctx, o.Candidates[i], &out.Candidates[i])
			if ctx.Err() != nil {
				out.Notes = append(out.Notes, "interrupted during the round-trip search: the answer is partial")
				return out, ctx.Err()
			}
		} else {
			out.Notes = append(out.Notes, "no round-trip budget: no candidate held at the target")
		}
	}
	out.Guide = guide(out)
	out.Method = method(r, out)
	return out, nil
}

// Preload caps: the most of the keyspace a probe writes before its load.
// The preload runs under the members' budgets, and a probe's load does
// not depend on how many bytes are stored (compaction every 5 minutes
// and defragmentation are not in a probe's minute): the rest of the
// objects are counted by the database projection, not stored.
const (
	preloadCap      = 32 << 20
	preloadCapQuick = 16 << 20
)

func (r *runner) preloadCap() int64 {
	if r.o.Quick {
		return preloadCapQuick
	}
	return preloadCap
}

// idleShare is the multiplier of the target the idle probe plays.
const idleShare = 1.0 / 64

// measureIdle is a member's CPU under a sliver of the target's load (1/64
// of it, on an unbudgeted 3-member cluster in memory): what does not
// scale with the load (heartbeats, the lab's metrics scrapes, Go's
// runtime, and the load's own fixed shape: its watchers, connections and
// leases, and etcd's batching timers), plus 1/64 of the rest.
func (r *runner) measureIdle(ctx context.Context) (float64, error) {
	prof, _, err := r.o.Load.At(idleShare)
	if err != nil {
		return 0, err
	}
	capPreload(prof, r.preloadCap())
	cell, err := r.runProbe(ctx, probeSpec{cand: Candidate{Members: 3, Disk: DiskTmpfs}, profile: prof, dur: idleTime})
	if err != nil {
		return 0, err
	}
	idle := 0.0
	for _, run := range cell.Runs {
		if run.Server == nil {
			continue
		}
		for _, m := range run.Server.Members {
			idle = max(idle, m.Summary.CPUCoresMean)
		}
	}
	return idle, nil
}

// project is a member's CPU in the lab at factor k (cores) as the
// candidate's member would use it: the idle share as it is, the rest
// over k. A lab member at its whole budget projects to the candidate's
// whole cores.
func (r *runner) project(cores, k float64) float64 {
	if k >= 1 || cores <= r.idle {
		return cores
	}
	return r.idle + (cores-r.idle)/k
}

// scaleFor is the factor a candidate runs at here and each member's lab
// budget: the load and the budget beyond the idle share times k, so that
// the members fit in LabCores together.
func (r *runner) scaleFor(c Candidate) (k, budget float64) {
	work := c.CPUs - r.idle
	if work <= 0 {
		return 1, c.CPUs
	}
	k = min(1, (r.labCores-float64(c.Members)*r.idle)/(float64(c.Members)*work))
	if r.o.Scale > 0 {
		k = r.o.Scale
	}
	return k, round3(r.idle + k*work)
}

// candidate searches one candidate's knee.
func (r *runner) candidate(ctx context.Context, c Candidate) result.SizeCandidate {
	k, budget := r.scaleFor(c)
	out := result.SizeCandidate{Name: c.Name(), Members: c.Members, CPUs: c.CPUs, Disk: c.Disk, RTTMs: ms(c.RTT),
		Version: c.Version, Scale: round3(k), LabCPUs: round3(budget)}
	if out.Disk == "" {
		out.Disk = DiskThis
	}
	if budget < minMemberCores {
		out.Error = fmt.Sprintf("each member would get %.3f cores in the lab, below its smallest budget (%g cores: below it the quota's stops alone make applies slow)", budget, minMemberCores)
		return out
	}
	if k <= 0 {
		out.Error = fmt.Sprintf("%d members of %g cores do not fit in the lab's %.2f cores even scaled down (a member's idle share is %.3f cores)",
			c.Members, c.CPUs, r.labCores, r.idle)
		return out
	}
	target := r.o.Load.Target()
	knee(ctx, &out, r.prober(c, k, budget), r.o.Quick, target.Nodes)
	for _, p := range out.Probes {
		if p.Multiplier == 1 && p.RTTMs == ms(c.RTT) && p.MemberCPU > 0 {
			out.Headroom = r.project(p.MemberCPU, k) / c.CPUs
			out.HeadroomOK = out.Headroom <= headroomShare
			break
		}
	}
	sum := r.o.Load.Summary()
	out.DBBytes = sum.DBBytes
	if sum.QuotaBytes > 0 {
		out.DBShare = float64(sum.DBBytes) / float64(sum.QuotaBytes)
	}
	return out
}

// prober runs probes of candidate c at factor k and member budget.
func (r *runner) prober(c Candidate, k, budget float64) prober {
	sum := r.o.Load.Summary()
	return func(ctx context.Context, m float64, rtt time.Duration) result.SizeProbe {
		if rtt == 0 {
			rtt = c.RTT
		}
		began := time.Now()
		p := result.SizeProbe{Multiplier: round3(m), RTTMs: ms(rtt)}
		prof, pt, err := r.o.Load.At(m)
		if err == nil && k != 1 {
			prof, err = scaleProfile(prof, k)
		}
		if err == nil {
			p.PreloadShare = capPreload(prof, r.preloadCap())
		}
		p.Nodes, p.Pods, p.Churn = pt.Nodes, pt.Pods, pt.Churn
		if err != nil {
			p.Error = err.Error()
			return p
		}
		for _, o := range prof.Operations {
			p.RateWant += o.Rate
		}
		dbShare := 0.0
		if sum.QuotaBytes > 0 {
			dbShare = m * float64(sum.DBBytes) / float64(sum.QuotaBytes)
		}
		if dbShare > quotaShare {
			// The database alone breaks the SLO: arithmetic, not a run.
			p.Broke = []string{result.SLODBQuota}
			p.NotRun = fmt.Sprintf("the database projected at this size is %.0f%% of the quota (%s)", 100*dbShare, humanize.IBytes(uint64(sum.QuotaBytes)))
			p.Bottleneck = p.NotRun
			p.Seconds = time.Since(began).Seconds()
			fmt.Fprintf(r.log, "%s: %s\n", c.Name(), probeLine(p, k))
			return p
		}
		cell, err := r.runProbe(ctx, probeSpec{cand: c, labCPUs: budget, rtt: rtt, profile: prof, dur: r.dur})
		switch {
		case cell != nil:
			q := judgeCell(cell, func(u float64) float64 { return r.project(u, k) / c.CPUs }, dbShare)
			q.Multiplier, q.RTTMs, q.Nodes, q.Pods, q.Churn, q.RateWant = p.Multiplier, p.RTTMs, p.Nodes, p.Pods, p.Churn, p.RateWant
			p = q
			if err != nil {
				p.Error = err.Error()
				p.Holds = false
			}
		case err != nil:
			p.Error = err.Error()
		}
		p.Seconds = time.Since(began).Seconds()
		fmt.Fprintf(r.log, "%s: %s\n", c.Name(), probeLine(p, k))
		return p
	}
}

// probeLine is a probe in one line for the log.
func probeLine(p result.SizeProbe, k float64) string {
	at := fmt.Sprintf("×%.2f", p.Multiplier)
	if p.Nodes > 0 {
		at = fmt.Sprintf("%d nodes (×%.2f)", p.Nodes, p.Multiplier)
	}
	if p.RTTMs > 0 {
		at += fmt.Sprintf(" at %.0f ms", p.RTTMs)
	}
	verdict := "holds"
	switch {
	case p.NotRun != "":
		return fmt.Sprintf("%s, lab ×%.3f: breaks (%v), not run: %s", at, k, p.Broke, p.NotRun)
	case p.Error != "":
		verdict = "failed: " + p.Error
	case p.Inconclusive != "":
		verdict = "inconclusive: " + p.Inconclusive
	case !p.Holds:
		verdict = fmt.Sprintf("breaks (%v)", p.Broke)
	}
	return fmt.Sprintf("%s, lab ×%.3f: %s — writes p99 %.1f ms, fsync p99 %.1f ms, commit p99 %.1f ms, member CPU %.0f%% of the candidate's cores, %.0f/%.0f req/s, %.0f s",
		at, k, verdict, p.MutatingP99*1000, p.WALFsyncP99*1000, p.CommitP99*1000, 100*p.CPUShare, p.RateGot, p.RateWant, p.Seconds)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// choose picks the smallest candidate that holds at the target with
// headroom and room in the quota: fewest cores in all, then fewest
// members.
func choose(s *result.Size) {
	var ok []int
	for i, c := range s.Candidates {
		if c.Holds && c.HeadroomOK && c.DBShare <= quotaShare && c.Error == "" {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		held := 0
		for _, c := range s.Candidates {
			if c.Holds {
				held++
			}
		}
		if held > 0 {
			s.ChoiceWhy = fmt.Sprintf("%d of %d candidates held at the target, but none with OpenShift's headroom (the busiest member at or below %.0f%% of its cores) and the database below %.0f%% of the quota",
				held, len(s.Candidates), 100*headroomShare, 100*quotaShare)
		} else {
			s.ChoiceWhy = fmt.Sprintf("none of the %d candidates held at the target: add cores, a faster disk or members closer together", len(s.Candidates))
		}
		return
	}
	slices.SortStableFunc(ok, func(a, b int) int {
		ca, cb := s.Candidates[a], s.Candidates[b]
		ta, tb := float64(ca.Members)*ca.CPUs, float64(cb.Members)*cb.CPUs
		switch {
		case ta != tb:
			return cmp.Compare(ta, tb)
		default:
			return ca.Members - cb.Members
		}
	})
	c := s.Candidates[ok[0]]
	s.Choice = c.Name
	s.ChoiceWhy = fmt.Sprintf("the fewest cores in all (%g) that held every SLO at the target with the busiest member at %.0f%% of its cores (OpenShift's rule: at most %.0f%%); its knee: %s",
		float64(c.Members)*c.CPUs, 100*c.Headroom, 100*headroomShare, kneeText(c))
}

// kneeText says where a candidate's knee is, as a bound when it is one.
func kneeText(c result.SizeCandidate) string {
	switch {
	case c.Below:
		return "below the smallest size probed"
	case c.Above:
		return fmt.Sprintf("at least ×%.2f of the target (it held at the largest size probed)", c.Knee)
	}
	return fmt.Sprintf("×%.2f of the target", c.Knee)
}

// rttCandidate is the candidate whose round-trip budget is searched: the
// choice, else the first that held at the target.
func rttCandidate(s *result.Size) int {
	for i, c := range s.Candidates {
		if c.Name == s.Choice {
			return i
		}
	}
	for i, c := range s.Candidates {
		if c.Holds {
			return i
		}
	}
	return -1
}

// sweepTemp removes the probe directories of runs whose process is gone
// (a kill -9 skips Run's own removal): etcdlab-size-PID-* in the
// temporary directory, PID no longer alive.
func sweepTemp() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "etcdlab-size-*-*"))
	for _, d := range dirs {
		f := strings.Split(filepath.Base(d), "-")
		if len(f) < 4 {
			continue
		}
		pid, err := strconv.Atoi(f[2])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.RemoveAll(d)
		}
	}
}
