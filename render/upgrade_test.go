package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestUpgradeDocument: `cluster upgrade`'s document is drawn as its
// table (the default) or as the versioned JSON document, and nothing
// else.
func TestUpgradeDocument(t *testing.T) {
	t.Parallel()
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindUpgrade, Upgrade: &result.Upgrade{
		To: "3.5.35", Downgrade: true, DowngradeSeconds: 1.25, Seconds: 30, ClusterVersionSeconds: 0.5,
		Steps: []result.UpgradeStep{{Member: "m1", From: "3.6.16", To: "3.5.35", WasLeader: true, HandedTo: "m2", DownSeconds: 2.5,
			ClusterUnavailability: &result.Unavailability{TotalSeconds: 0.3, LongestSeconds: 0.3, Windows: []result.Window{{Seconds: 0.3}}}}},
	}}
	if got := Formats(result.KindUpgrade); len(got) != 2 || got[0] != FormatTable || got[1] != FormatJSON {
		t.Fatalf("Formats(upgrade) = %v", got)
	}
	var b bytes.Buffer
	if err := Write(&b, FormatTable, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "downgraded (downgrade enabled in 1.2 s, the cluster unavailable 0.00 s meanwhile) 1 members to etcd 3.5.35 in 30.0 s; every member said the cluster version was the new one 0.5 s after the last step\n"
	if out := b.String(); !strings.HasPrefix(out, want) || !strings.Contains(out, "led; handed to m2") || !strings.Contains(out, "0.30 s (1 windows, longest 0.30 s)") {
		t.Errorf("table:\n%s", out)
	}
	b.Reset()
	if err := Write(&b, FormatJSON, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(&b)
	if err != nil || back.Kind != result.KindUpgrade || back.Upgrade == nil || back.Upgrade.Steps[0].HandedTo != "m2" {
		t.Errorf("JSON read back: %+v, %v", back, err)
	}
	var fe *FormatError
	if err := Write(&b, FormatText, doc, Options{}); !errors.As(err, &fe) || fe.Error() != `must be table or json, not "text"` {
		t.Errorf("text: %v", err)
	}
}
