package size_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/sizing"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/measure/size"
)

// TestCheck: every bad option is a one-line invalid-input error naming
// what is wrong, before anything starts.
func TestCheck(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("Check refuses everything without root")
	}
	l, err := size.FromModel(sizing.Cluster{Nodes: 100, Pods: 3000}, 2<<30)
	if err != nil {
		t.Fatal(err)
	}
	ok := size.Candidate{Members: 3, CPUs: 2, Disk: "disk"}
	for _, tc := range []struct {
		name string
		edit func(*size.Options)
		want string
	}{
		{"no load", func(o *size.Options) { o.Load = nil }, "nothing to size"},
		{"no candidates", func(o *size.Options) { o.Candidates = nil }, "no candidates"},
		{"zero members", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 0, CPUs: 1}} }, "Members"},
		{"negative cores", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 3, CPUs: -1}} }, "CPUs"},
		{"unknown disk", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 3, CPUs: 1, Disk: "nvme"}} }, `disk "nvme"`},
		{"a preset without storage", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 3, CPUs: 1, Disk: "multicloud-2"}} }, "places no storage"},
		{"unknown version", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 3, CPUs: 1, Version: "banana"}} }, `etcd "banana"`},
		{"does not fit", func(o *size.Options) { o.Candidates = []size.Candidate{{Members: 7, CPUs: 1}}; o.LabCores = 0.2 }, "cannot run here"},
		{"short probes", func(o *size.Options) { o.ProbeTime = time.Second }, "ProbeTime"},
		{"scale above 1", func(o *size.Options) { o.Scale = 2 }, "Scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := size.Options{Load: l, Candidates: []size.Candidate{ok}, Jobs: jobs.Registry()}
			tc.edit(&o)
			err := size.Check(o)
			if err == nil || !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Check: %v, want a one-line invalid error with %q", err, tc.want)
			}
		})
	}
	if err := size.Check(size.Options{Load: l, Candidates: []size.Candidate{ok}, Jobs: jobs.Registry()}); err != nil {
		t.Errorf("good options: %v", err)
	}
}
