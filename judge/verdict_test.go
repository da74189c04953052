package judge

import (
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

func TestUnknownThresholdIsSkip(t *testing.T) {
	t.Parallel()
	v := Judge("no.such.threshold", 1, func(float64) string { return "1" })
	if v.Status != result.Skip || v.Explanation == "" {
		t.Fatalf("%+v", v)
	}
	if len(IDs()) != len(Thresholds) {
		t.Fatal("IDs must list every threshold")
	}
}
