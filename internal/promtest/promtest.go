// Package promtest runs a real Prometheus (Debian's package) for tests:
// started on a free loopback port, scraping the given targets every
// second, killed when the test ends. Only tests import it.
package promtest

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// prometheusBinary is Debian's package's path; CI installs it (.ci/run).
const prometheusBinary = "/usr/bin/prometheus"

// Start runs a real Prometheus on a free loopback port scraping
// targets (host:port) every second, as job "etcd", into a temporary
// directory, waits until every target has been up once and returns its URL. It is
// killed when the test ends (and with the test binary, by the kernel, if
// that dies first).
func Start(t testing.TB, targets []string) string {
	t.Helper()
	return StartWith(t, Options{Jobs: map[string][]string{"etcd": targets}})
}

// Options say what a test's Prometheus scrapes and evaluates.
type Options struct {
	// Jobs maps job names to their targets (host:port), each scraped
	// every second.
	Jobs map[string][]string
	// RuleFiles are rule files it loads, evaluated every second.
	RuleFiles []string
}

// StartWith is Start with several jobs and rule files.
func StartWith(t testing.TB, o Options) string {
	t.Helper()
	bin, err := exec.LookPath(prometheusBinary)
	if err != nil {
		t.Skipf("no Prometheus at %s (CI installs Debian's prometheus package): %v", prometheusBinary, err)
	}
	dir := t.TempDir()
	cfg := "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
	if len(o.RuleFiles) > 0 {
		cfg += "rule_files:\n"
		for _, f := range o.RuleFiles {
			abs, err := filepath.Abs(f)
			if err != nil {
				t.Fatal(err)
			}
			cfg += fmt.Sprintf("  - '%s'\n", abs)
		}
	}
	cfg += "scrape_configs:\n"
	jobs := slices.Sorted(maps.Keys(o.Jobs))
	targets := 0
	for _, job := range jobs {
		cfg += fmt.Sprintf("  - job_name: %s\n    static_configs:\n      - targets: ['%s']\n", job, strings.Join(o.Jobs[job], "', '"))
		targets += len(o.Jobs[job])
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	logPath := filepath.Join(dir, "prometheus.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	base := "http://" + addr
	if err := waitTargets(base, targets, exited, cmd); err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("Prometheus at %s: %v\n%s", base, err, tail(string(log), 2000))
	}
	return base
}

// waitTargets waits up to 90 s until Prometheus answers and each of its
// n targets has been scraped successfully at least once, or exited says
// cmd ended. "At least once" rather than "all up at the same moment":
// on a loaded CI machine a scrape can miss its 1 s timeout now and then,
// and a target seen up once is reachable; the tests then query series.
func waitTargets(base string, n int, exited <-chan struct{}, cmd *exec.Cmd) error {
	client, err := api.NewClient(api.Config{Address: base})
	if err != nil {
		return err
	}
	p := v1.NewAPI(client)
	deadline := time.Now().Add(90 * time.Second)
	last := "no answer"
	seen := map[string]bool{}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited: %s", cmd.ProcessState)
		case <-time.After(200 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := p.Targets(ctx)
		cancel()
		if err != nil {
			last = err.Error()
			continue
		}
		var errs []string
		for _, a := range r.Active {
			if a.Health == v1.HealthGood {
				seen[a.ScrapeURL] = true
			} else if a.LastError != "" {
				errs = append(errs, a.ScrapeURL+": "+a.LastError)
			}
		}
		if len(seen) >= n {
			return nil
		}
		last = fmt.Sprintf("%d of %d targets seen up (%s)", len(seen), n, strings.Join(errs, "; "))
	}
	return fmt.Errorf("not ready in 90 s: %s", last)
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// HostPort is a URL's host:port, Prometheus' instance label of a target.
func HostPort(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
