package main

import (
	"context"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
)

// outputCommands are the commands whose -o is a format, and what they
// write (render.Formats' subject).
var outputCommands = []struct {
	args    []string
	subject string
}{
	{[]string{"bench", "put"}, result.KindBench},
	{[]string{"merge", "agents.json"}, result.KindBench},
	{[]string{"check"}, result.KindCheck},
	{[]string{"doctor", "--endpoints", "127.0.0.1:1"}, result.KindDoctor},
	{[]string{"disk"}, result.KindDisk},
	{[]string{"experiment", "run", "storage-sweep"}, result.KindExperiment},
	{[]string{"cluster", "status"}, render.SubjectStatus},
	{[]string{"compare", "a.json", "b.json"}, render.SubjectComparison},
}

// Every command refuses a format it does not take, first and with the
// registry's one message, and its -o help names every format it takes.
func TestOutputFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range outputCommands {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, tc.args...), "-o", "xml")
			if tc.args[0] == "bench" {
				args = []string{"bench", "-o", "xml", "put"}
			}
			code, stdout, stderr := runCLI(context.Background(), args...)
			_, perr := render.ParseFormat(tc.subject, "xml")
			if want := "etcdlab: -o " + perr.Error() + "\n"; code != 2 || stderr != want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, want)
			}
			c, _, err := (&app{}).rootCmd().Find(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			fl := c.Flags().Lookup("output")
			if fl == nil {
				fl = c.InheritedFlags().Lookup("output")
			}
			if fl == nil {
				if fl = c.Flag("output"); fl == nil {
					t.Fatal("no -o flag")
				}
			}
			formats := render.Formats(tc.subject)
			if fl.DefValue != string(formats[0]) {
				t.Errorf("-o defaults to %s, the registry's default is %s", fl.DefValue, formats[0])
			}
			for _, f := range formats {
				if !strings.Contains(fl.Usage, string(f)) {
					t.Errorf("-o's help %q does not name %s", fl.Usage, f)
				}
			}
		})
	}
}
