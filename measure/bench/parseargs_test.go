package bench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestParseArgs: flags before, between and after the subcommand reach the
// Config as the CLI's cobra commands take them, and a flag's value is
// never mistaken for the subcommand.
func TestParseArgs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line  string
		check func(CommandLine) bool
	}{
		{"--conns=3 put --clients 5,7 --total=9", func(c CommandLine) bool {
			return c.Config.Command == CmdPut && slices.Equal(c.Config.Conns, []int{3}) && slices.Equal(c.Config.Clients, []int{5, 7}) && c.Config.Total == 9
		}},
		// --target-leader is a bool: "put" is the subcommand, not its value.
		{"--target-leader put --key-size=8 --sequential-keys", func(c CommandLine) bool {
			return c.Config.TargetLeader && c.Config.SequentialKeys && c.Config.Command == CmdPut
		}},
		// --prefix takes a value that looks like nothing special: "range" is
		// its value, "put" the subcommand.
		{"--prefix range put", func(c CommandLine) bool { return c.Config.Prefix == "range" && c.Config.Command == CmdPut }},
		{"-o json put", func(c CommandLine) bool { return c.Output.Format == "json" && c.Config.Command == CmdPut }},
		{"-ocsv --precise --sample put", func(c CommandLine) bool {
			return c.Output.Format == "csv" && c.Output.Precise && c.Output.Sample
		}},
		{"range /a /b --consistency s --limit 3", func(c CommandLine) bool {
			return slices.Equal(c.Config.Args, []string{"/a", "/b"}) && c.Config.Consistency == "s" && c.Config.Limit == 3
		}},
		{"--duration 5s put", func(c CommandLine) bool { return c.Config.Total == 0 && c.Config.Duration == 5*time.Second }},
		{"--duration 5s put --total 7", func(c CommandLine) bool { return c.Config.Total == 7 }},
		{"watch-latency --put-total 50", func(c CommandLine) bool { return c.Config.Total == 50 && c.Config.KeySize == 32 }},
		// put's defaults do not leak from watch-latency's (32-byte keys).
		{"put", func(c CommandLine) bool {
			return c.Config.KeySize == 8 && c.Config.ValSize == 8 && c.Config.Total == 10000
		}},
		{"--endpoints 127.0.0.1:1,127.0.0.1:2 --metrics-urls http://127.0.0.1:1/metrics,http://127.0.0.1:2/metrics --scrape-interval 250ms put", func(c CommandLine) bool {
			return len(c.Config.MetricsURLs) == 2 && c.Config.ScrapeInterval == 250*time.Millisecond
		}},
		{"put", func(c CommandLine) bool {
			return c.Config.ScrapeInterval == DefaultScrapeInterval && c.Config.MetricsURLs == nil
		}},
		{"--clients=2 put --val-size=16", func(c CommandLine) bool { return slices.Equal(c.Set, []string{"clients", "val-size"}) }},
	} {
		cl, err := ParseArgs(strings.Fields(tt.line))
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if !tt.check(cl) {
			t.Errorf("%q: %+v", tt.line, cl)
		}
	}
}

// TestParseArgsErrors: every bad line is a one-line invalid-input error
// that says what is wrong.
func TestParseArgsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ line, want string }{
		{"", "no command"},
		{"--conns=3", "no command"},
		{"mvcc-put", `unknown command "mvcc-put"`},
		{"--total=5 put", "unknown flag --total=5 before the subcommand"},
		{"put --nope", "unknown flag: --nope"},
		{"put --total=many", `invalid argument "many" for "--total"`},
		{"put extra", "takes no arguments"},
		{"range a b c", "takes at most 2 arguments"},
		{"range", "range needs a key"},
		{"--clients 0 put", "Clients must be at least 1"},
		{"put --key-size 0", "KeySize must be at least 1"},
		{"--scrape-interval=-1s put", "ScrapeInterval must be 0 (off) or at least 100ms"},
		{"put --help", "asks for help"},
	} {
		_, err := ParseArgs(strings.Fields(tt.line))
		switch {
		case err == nil:
			t.Errorf("%q: no error", tt.line)
		case !invalid.Is(err):
			t.Errorf("%q: %v is not an invalid-input error", tt.line, err)
		case !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%q: %q, want one line containing %q", tt.line, err, tt.want)
		}
	}
}
