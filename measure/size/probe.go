package size

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/measure/experiment"
	"github.com/etcdlab/etcdlab/result"
	"sigs.k8s.io/yaml"
)

// probeSpec is one probe: the load (already scaled to the lab) on one
// candidate's cluster, for a time.
type probeSpec struct {
	cand    Candidate
	labCPUs float64 // each member's budget in the lab
	rtt     time.Duration
	profile *replay.Profile
	dur     time.Duration
	// bench is a bench command line run instead of the replay (the idle
	// probe).
	bench string
}

// setupYAML is the probe's one experiment setup.
func (p probeSpec) setup(loadCores float64) (map[string]any, error) {
	d, err := p.cand.storage()
	if err != nil {
		return nil, err
	}
	topo := map[string]any{"members": p.cand.Members}
	etcd := map[string]any{"defaults": true}
	if p.cand.Version != "" {
		etcd["version"] = p.cand.Version
	}
	topo["etcd"] = etcd
	if p.rtt > 0 {
		topo["rtt"] = p.rtt.String()
	}
	st := map[string]any{"name": "candidate", "topology_spec": topo}
	if p.labCPUs > 0 {
		st["cpus"] = round3(p.labCPUs)
	}
	if loadCores > 0 {
		st["load_cpus"] = loadCores
	}
	if d.preset != "" {
		b, err := json.Marshal(d.storageSpec)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		topo["storage"] = m
	} else {
		st["storage"] = d.storage
	}
	return st, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// clientsFor is the replay's clients for a rate: enough that a second of
// latency does not hold the rate back (an open loop's clients are taken
// only by requests in flight), between 64 and 1,024.
func clientsFor(rate float64) int {
	return min(1024, max(64, int(math.Ceil(rate))))
}

// runProbe runs one probe as a one-cell experiment in dir and returns its
// cell.
func (r *runner) runProbe(ctx context.Context, p probeSpec) (*result.Cell, error) {
	dir, err := os.MkdirTemp(r.tmp, "probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	line := p.bench
	if line == "" {
		path := filepath.Join(dir, "profile.json")
		b, err := json.Marshal(p.profile)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
		rate := 0.0
		for _, o := range p.profile.Operations {
			rate += o.Rate
		}
		c := clientsFor(rate)
		line = fmt.Sprintf("--duration=%s --clients=%d --conns=%d replay %s", p.dur, c, max(4, c/64), path)
	}
	st, err := p.setup(r.loadCores)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{
		"name":      "size-probe",
		"title":     "one probe of etcdlab size",
		"setups":    []any{st},
		"workloads": []any{map[string]any{"name": "probe", "bench": line}},
	}
	text, err := yaml.Marshal(spec)
	if err != nil {
		return nil, err
	}
	s, err := experiment.Parse(filepath.Join(dir, "probe.yaml"), text, r.o.Jobs)
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	plan, err := s.Plan("")
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	doc, err := experiment.Run(ctx, experiment.Options{Plan: plan, DataDir: r.o.DataDir, Executable: r.o.Executable})
	if doc == nil || doc.Experiment == nil || len(doc.Experiment.Cells) == 0 {
		if err == nil {
			err = fmt.Errorf("probe: no result")
		}
		return nil, err
	}
	cell := &doc.Experiment.Cells[0]
	if ctx.Err() != nil {
		return cell, ctx.Err()
	}
	if cell.Status != result.CellOK {
		return cell, fmt.Errorf("probe failed: %s", firstLine(cell.Error))
	}
	return cell, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
