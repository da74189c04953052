package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// parse binds f to a flag set as `etcdlab bench put` does and parses args.
func parse(t testing.TB, f *Flags, name string, args ...string) *pflag.FlagSet {
	t.Helper()
	fl := pflag.NewFlagSet(name, pflag.ContinueOnError)
	f.RegisterGlobal(fl)
	f.RegisterSubcommand(name, fl)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fl
}

// TestFlagsValidate: what only the command line shows is refused before
// anything runs, and etcd's default request limit bounds every write.
func TestFlagsValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want string // "" for a valid line
	}{
		{CmdPut, nil, ""},
		{CmdPut, []string{"--agents=0"}, "{Agents} must be at least 1, not 0"},
		{CmdPut, []string{"--members=0"}, "{LocalMembers} must be between 1 and 7, not 0"},
		{CmdPut, []string{"--members=0", "--endpoints=127.0.0.1:2379"}, ""},
		{CmdPut, []string{"--dial-timeout=-1s"}, "{DialTimeout} must not be negative, not -1s"},
		{CmdPut, []string{"--val-size=1572000"}, ""},
		{CmdPut, []string{"--val-size=1572864"}, "a put request of {KeySize} + {ValSize} is"},
		{CmdTxnPut, []string{"--txn-ops=3", "--val-size=600000"}, "a txn-put request of {TxnOps} × ({KeySize} + {ValSize}) is"},
		{CmdTxnMixed, []string{"--val-size=2000000"}, "above etcd's default request limit"},
		{CmdWatchLatency, []string{"--val-size=2000000"}, "above etcd's default request limit"},
		{CmdRange, []string{"--endpoints=127.0.0.1:2379"}, ""},
	} {
		f := NewFlags()
		fl := parse(t, f, tt.name, tt.args...)
		var args []string
		if tt.name == CmdRange {
			args = []string{"/k"}
		}
		err := f.Validate(tt.name, args, fl.Changed)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), strings.NewReplacer("{", "", "}", "").Replace(tt.want))) {
			t.Errorf("%s %v: %v; want %q", tt.name, tt.args, err, tt.want)
		}
	}
}

// TestRequestBytes: the size is what a member checks (within the header's
// few bytes), and a huge value or txn costs no allocation of its size.
func TestRequestBytes(t *testing.T) {
	t.Parallel()
	c := Config{Command: CmdPut, Prefix: "/p/", KeySize: 8, ValSize: 1000}
	if n := c.requestBytes(); n < 1000+3+8 || n > 1000+3+8+64 {
		t.Errorf("put of 11 + 1000 bytes: %d", n)
	}
	c.Command, c.TxnOps, c.ValSize = CmdTxnPut, 1<<40, 1<<40
	began := time.Now()
	if n := c.requestBytes(); n <= RequestLimit {
		t.Errorf("txn of 2^40 values of 2^40 bytes: %d", n)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("took %v", took)
	}
}

// ExampleFlags_Validate is how a command checks a bench line before it
// dials: Flags.Validate for what only the line shows, then
// Config.Validate for the rest.
func ExampleFlags_Validate() {
	f := NewFlags()
	fl := pflag.NewFlagSet("put", pflag.ContinueOnError)
	f.RegisterGlobal(fl)
	f.RegisterSubcommand(CmdPut, fl)
	_ = fl.Parse([]string{"--endpoints=127.0.0.1:2379", "--val-size=2000000"})
	if err := f.Validate(CmdPut, nil, fl.Changed); err != nil {
		fmt.Println(strings.SplitN(err.Error(), " is ", 2)[0])
		return
	}
	cfg := f.CommandLine(CmdPut, nil, fl.Changed).Config
	fmt.Println(cfg.Validate())
	// Output: a put request of KeySize + ValSize
}
