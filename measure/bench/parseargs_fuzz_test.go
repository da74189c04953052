package bench

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// FuzzParseArgs feeds ParseArgs command lines (arguments separated by NUL,
// so that an argument may hold spaces): it never panics, every error is
// one invalid-input error (one line when the line has none), and a line
// it accepts is a Config that Validate accepts, of a known subcommand,
// whose Set names flags of that line, and that parses the same again.
func FuzzParseArgs(f *testing.F) {
	for _, line := range []string{
		"put",
		"--conns=3 put --clients 5,7 --total=9",
		"--target-leader put --key-size=8 --sequential-keys",
		"--prefix range put",
		"-o json put",
		"-ocsv --precise --sample put",
		"range /a /b --consistency s --limit 3",
		"--duration 5s put --total 7",
		"watch-latency --put-total 50",
		"--endpoints 127.0.0.1:1,127.0.0.1:2 --metrics-urls http://127.0.0.1:1/metrics --scrape-interval 250ms put",
		"--clients=2 put --val-size=16",
		"txn-put --txn-ops 4 --rate 100",
		"lease-keepalive --total 10",
		"watch --streams 2 --watchers-per-stream 3",
		"--warmup 10% --iterations 2 put",
		"put -- --clients",
		"mvcc-put",
		"--clients put",
		"put --clients 0",
	} {
		f.Add(strings.ReplaceAll(line, " ", "\x00"))
	}
	f.Fuzz(func(t *testing.T, line string) {
		var args []string
		if line != "" {
			args = strings.Split(line, "\x00")
		}
		cl, err := ParseArgs(args)
		if err != nil {
			if invalid.As(err) == nil {
				t.Fatalf("%q: %T %v is not an invalid-input error", args, err, err)
			}
			if !strings.ContainsAny(line, "\n\r") && strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: error of more than one line: %q", args, err)
			}
			return
		}
		if err := cl.Config.Validate(); err != nil {
			t.Fatalf("%q: accepted, but Validate says %v", args, err)
		}
		known := false
		for _, s := range Subcommands() {
			known = known || s.Name == cl.Config.Command
		}
		if !known {
			t.Fatalf("%q: command %q is no subcommand", args, cl.Config.Command)
		}
		for _, name := range cl.Set {
			if !slices.ContainsFunc(args, func(a string) bool { return flagNamed(a, name) }) {
				t.Fatalf("%q: Set names %q, which the line does not give", args, name)
			}
		}
		again, err := ParseArgs(slices.Clone(args))
		if err != nil || !reflect.DeepEqual(cl, again) {
			t.Fatalf("%q: parsed differently the second time: %v\n%+v\n%+v", args, err, cl, again)
		}
	})
}

// flagNamed reports whether argument a may give flag name: --name or
// --name=..., or a group of shorthands (any, as only pflag knows which
// shorthand is whose).
func flagNamed(a, name string) bool {
	if long, ok := strings.CutPrefix(a, "--"); ok {
		n, _, _ := strings.Cut(long, "=")
		return n == name
	}
	return strings.HasPrefix(a, "-") && len(a) > 1
}
