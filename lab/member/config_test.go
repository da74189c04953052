package member

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"go.etcd.io/etcd/server/v3/embed"
)

// TestEtcdYAMLRoundTrip writes a configuration and reads it back with etcd's
// own parser, so the file is what `etcd --config-file` understands.
func TestEtcdYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := Config{
		Name: "m2", DataDir: filepath.Join(dir, "m2"),
		ClientURL: "https://127.0.0.1:2382", PeerURL: "https://127.0.0.1:2383", MetricsURL: "http://127.0.0.1:2384",
		InitialCluster: InitialCluster([]string{"m1", "m2"}, []string{"https://127.0.0.1:2380", "https://127.0.0.1:2383"}),
		ClusterToken:   "tok",
		TLS:            &TLSFiles{CertFile: "/t/m2.crt", KeyFile: "/t/m2.key", CAFile: "/t/ca.crt"},
		Tuning: Tuning{HeartbeatMs: 50, ElectionMs: 500, SnapshotCount: 5000, QuotaBackendBytes: 1 << 30,
			AutoCompactionMode: "revision", AutoCompactionRetention: "1000", Metrics: "extensive", LogLevel: "warn",
			CompactionBatchLimit: 250, CompactionSleepInterval: 3 * time.Millisecond},
		LogFile: filepath.Join(dir, "m2", "etcd.log"),
	}
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "member.yaml")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := embed.ConfigFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", got.Name, "m2"},
		{"data dir", got.Dir, c.DataDir},
		{"client url", got.ListenClientUrls[0].String(), c.ClientURL},
		{"advertise client", got.AdvertiseClientUrls[0].String(), c.ClientURL},
		{"peer url", got.ListenPeerUrls[0].String(), c.PeerURL},
		{"metrics url", got.ListenMetricsUrls[0].String(), c.MetricsURL},
		{"initial cluster", got.InitialCluster, "m1=https://127.0.0.1:2380,m2=https://127.0.0.1:2383"},
		{"token", got.InitialClusterToken, "tok"},
		{"heartbeat", got.TickMs, uint(50)},
		{"election", got.ElectionMs, uint(500)},
		{"snapshot count", got.SnapshotCount, uint64(5000)},
		{"quota", got.QuotaBackendBytes, int64(1 << 30)},
		{"compaction mode", got.AutoCompactionMode, "revision"},
		{"compaction retention", got.AutoCompactionRetention, "1000"},
		{"metrics", got.Metrics, "extensive"},
		{"log level", got.LogLevel, "warn"},
		{"compaction batch limit", got.CompactionBatchLimit, 250},
		{"compaction sleep interval", got.CompactionSleepInterval, 3 * time.Millisecond},
		{"log outputs", strings.Join(got.LogOutputs, ","), c.LogFile},
		{"client cert", got.ClientTLSInfo.CertFile, "/t/m2.crt"},
		{"client cert auth", got.ClientTLSInfo.ClientCertAuth, true},
		{"peer CA", got.PeerTLSInfo.TrustedCAFile, "/t/ca.crt"},
		{"peer cert auth", got.PeerTLSInfo.ClientCertAuth, true},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestTuningValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		t    Tuning
		want string // "" = valid
	}{
		{Tuning{}, ""},
		{Tuning{HeartbeatMs: 100, ElectionMs: 500}, ""},
		{Tuning{HeartbeatMs: 100, ElectionMs: 499}, "at least 5 times"},
		{Tuning{ElectionMs: 50001, HeartbeatMs: 100}, "at most 50000"},
		{Tuning{Metrics: "extensive"}, ""},
		{Tuning{Metrics: "all"}, "basic or extensive"},
		{Tuning{AutoCompactionMode: "hourly"}, "periodic or revision"},
		{Tuning{QuotaBackendBytes: -1}, "negative"},
		{Tuning{LogLevel: "trace"}, "LogLevel must be"},
	} {
		err := tt.t.Validate()
		if (tt.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), tt.want) || !invalid.Is(err))) {
			t.Errorf("%+v: err %v, want %q", tt.t, err, tt.want)
		}
	}
}

// TestEtcdYAMLPerVersion: keys a version lacks are left out of its file.
func TestEtcdYAMLPerVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		gates   bool
	}{{"", true}, {"3.7.3", true}, {"3.6.16", true}, {"3.5.35", false}, {"3.4.23", false}} {
		c := Config{Name: "m1", FeatureGates: "SetMemberLocalAddr=true", Version: tc.version}
		b, err := c.EtcdYAML()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "feature-gates"); got != tc.gates {
			t.Errorf("%q: feature-gates written %v, want %v", tc.version, got, tc.gates)
		}
	}
}

// TestEtcdYAMLCompactionKeys: the compaction's batch limit and sleep
// interval are written with the keys each etcd takes, and a version
// without the sleep interval refuses it as invalid input.
func TestEtcdYAMLCompactionKeys(t *testing.T) {
	tuning := Tuning{CompactionBatchLimit: 100, CompactionSleepInterval: 5 * time.Millisecond}
	for _, tc := range []struct {
		version string
		keys    []string // "" for an error
		err     string
	}{
		{"", []string{"compaction-batch-limit: 100", "compaction-sleep-interval: 5000000"}, ""},
		{"3.7.3", []string{"compaction-batch-limit: 100", "compaction-sleep-interval: 5000000"}, ""},
		{"3.6.16", []string{"compaction-batch-limit: 100", "compaction-sleep-interval: 5000000"}, ""},
		{"3.5.35", []string{"experimental-compaction-batch-limit: 100", "experimental-compaction-sleep-interval: 5000000"}, ""},
		{"3.5.16", []string{"experimental-compaction-batch-limit: 100", "experimental-compaction-sleep-interval: 5000000"}, ""},
		{"3.5.15", nil, "etcd 3.5.15 has no compaction sleep interval"},
		{"3.4.23", nil, "takes it from 3.5.16"},
	} {
		b, err := Config{Name: "m1", Version: tc.version, Tuning: tuning}.EtcdYAML()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !invalid.Is(err) {
				t.Errorf("%q: %v, want an invalid-input error with %q", tc.version, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.version, err)
		}
		for _, k := range tc.keys {
			if !strings.Contains(string(b), "\n"+k+"\n") {
				t.Errorf("%q: no %q in\n%s", tc.version, k, b)
			}
		}
		if tc.version != "" && strings.HasPrefix(tc.version, "3.6") && strings.Contains(string(b), "experimental-") {
			t.Errorf("%q: an experimental key in\n%s", tc.version, b)
		}
	}
	b, err := Config{Name: "m1", Version: "3.4.23", Tuning: Tuning{CompactionBatchLimit: 10}}.EtcdYAML()
	if err != nil || !strings.Contains(string(b), "experimental-compaction-batch-limit: 10") {
		t.Errorf("3.4's batch limit: %s %v", b, err)
	}
}
