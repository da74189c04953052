package series

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var capture = flag.Bool("capture", false, "record testdata/*.prom.gz from a real 3-member cluster")

// The recorded scrapes: what the leader and a follower of a 3-member etcd
// 3.6 cluster served before and after 6 s of writes (about 100 puts a
// second, and one failed range a second), verbatim and gzipped.
const (
	leaderBefore   = "leader-before.prom.gz"
	leaderAfter    = "leader-after.prom.gz"
	followerBefore = "follower-before.prom.gz"
	followerAfter  = "follower-after.prom.gz"
	// recordedSeconds is the time between the before and after scrapes.
	recordedSeconds = 6
)

// TestCapture records the scrapes the derivation tests replay:
// go test ./observe/series -run TestCapture -capture.
func TestCapture(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to record testdata")
	}
	c := clustertest.Start(t, cluster.Options{Members: 3})
	cli := c.KV()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := cli.Status(ctx, c.Endpoints()[0])
	if err != nil {
		t.Fatal(err)
	}
	leader, follower := -1, -1
	for i, m := range c.State().Members {
		if fmt.Sprintf("%x", st.Leader) == m.ID {
			leader = i
		} else if follower < 0 {
			follower = i
		}
	}
	urls := c.State().MetricsURLs
	before := [][]byte{get(t, urls[leader]), get(t, urls[follower])}
	end := time.Now().Add(recordedSeconds * time.Second)
	for i := 0; time.Now().Before(end); i++ {
		if _, err := cli.Put(ctx, fmt.Sprintf("/capture/%04d", i), "value"); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 { // a future revision: OutOfRange
			if _, err := cli.Get(ctx, "/capture/0000", clientv3.WithRev(1<<40)); err == nil {
				t.Fatal("a range at a future revision succeeded")
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	after := [][]byte{get(t, urls[leader]), get(t, urls[follower])}
	for i, name := range []string{leaderBefore, followerBefore, leaderAfter, followerAfter} {
		text := append(before, after...)[i]
		var b bytes.Buffer
		z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = z.Write(text)
		_ = z.Close()
		if err := os.WriteFile(filepath.Join("testdata", name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url + "/metrics") //nolint:noctx // a test against loopback
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recorded returns a recorded scrape's text.
func recorded(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
