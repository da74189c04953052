package render

import (
	"bytes"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

func TestMarkdownGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		docs []result.Named
	}{
		{"sweep.md", []result.Named{named("sweep.json", sweepFixture(t, 1))}},
		{"disk.md", []result.Named{named("disk.json", diskFixture())}},
		{"check_live.md", []result.Named{named("check.json", checkDoc(t, "live", liveCheckVerdicts(), issue13Floor()))}},
		{"comparison.md", []result.Named{named("m5.json", sweepFixture(t, 1)), named("m6g.json", sweepFixture(t, 0.8))}},
	} {
		var b bytes.Buffer
		if err := Markdown(&b, tt.docs, judgedNamed(tt.docs)); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, b.Bytes())
	}
}
