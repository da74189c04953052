package jobs

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/spf13/pflag"
)

// placeholderRE matches {name} in a bench line.
var placeholderRE = regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`)

// placeholders lists the distinct {names} in a line, in order.
func placeholders(line string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllStringSubmatch(line, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// substitute replaces each {name} with its value.
func substitute(line string, values map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(line, func(m string) string {
		if v, ok := values[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// splitLine splits a command line into words as a shell would for the
// simple cases: blanks separate, '…' and "…" quote, \ escapes one
// character outside single quotes.
func splitLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unterminated quote or escape")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// quoteLine writes words back as one line, quoting those that need it.
func quoteLine(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$") {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		} else {
			out[i] = w
		}
	}
	return strings.Join(out, " ")
}

// forbiddenFlags are bench flags an experiment's line may not give: the
// setup gives the cluster, the experiment deletes what it writes and
// writes its own output.
func forbiddenFlags() map[string]string {
	m := map[string]string{
		"members":         "the setup gives the cluster (setups[].members)",
		"keep":            "an experiment deletes what it writes",
		"output":          "the experiment writes its own result",
		"quiet":           "the experiment draws its own progress line",
		"cpuprofile":      "not in experiments",
		"report-perfdash": "the experiment writes its own result",
		"cpus":            "not in experiments: their clusters' network emulation runs in etcdlab's process, on every core",
		"metrics-urls":    "the setup gives them (local: automatic; live: setups[].metrics_urls)",
		"agents":          "not in experiments: bench --agents splits one bench run over processes (docs/agents.md)",
		"agent-start-at":  "not in experiments (an agents' flag)",
		"agent-wait":      "not in experiments (an agents' flag)",
		"listen-metrics":  "the experiment serves one endpoint for all its cells: etcdlab experiment run --listen-metrics",
	}
	for _, f := range etcdclient.FlagNames() {
		if f != "dial-timeout" {
			m[f] = "the setup gives the cluster and how to reach it"
		}
	}
	return m
}

// override returns words with --flag=value in place of any occurrence of
// flag. The subcommand's flags say whether a flag takes a value.
func override(words []string, flag, value string) ([]string, error) {
	f := lineFlags(words).Lookup(flag)
	if f == nil {
		return nil, fmt.Errorf("bench has no flag --%s", flag)
	}
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		isFlag := strings.HasPrefix(w, "--") && name == flag
		if f.Shorthand != "" && strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.HasPrefix(w[1:], f.Shorthand) {
			isFlag, hasValue = true, hasValue || len(w) > 2
		}
		if !isFlag {
			out = append(out, w)
			continue
		}
		if !hasValue && f.NoOptDefVal == "" {
			i++ // its value
		}
	}
	return append(out, "--"+flag+"="+value), nil
}

// lineFlags is the flag set of the subcommand words name: bench's own
// flags and the subcommand's. A line without a known subcommand gets
// bench's own only.
func lineFlags(words []string) *pflag.FlagSet {
	f := bench.NewFlags()
	fl := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	f.RegisterGlobal(fl)
	for _, w := range words {
		if f.RegisterSubcommand(w, fl) {
			break
		}
	}
	return fl
}

// parseBench parses a cell's bench line with bench's parser and refuses
// the flags an experiment gives itself. Errors name bench's options as
// flags.
func parseBench(words []string) (bench.CommandLine, error) {
	cl, err := bench.ParseArgs(words)
	if err != nil {
		return cl, errors.New(job.ErrText(err, benchFlagName))
	}
	forbidden := forbiddenFlags()
	for _, f := range cl.Set {
		if why, bad := forbidden[f]; bad {
			return cl, fmt.Errorf("--%s: %s", f, why)
		}
	}
	return cl, nil
}

// benchFlagName names bench.Config's fields as the command line does:
// bench.FlagNames, else the field in kebab case ("RWRatio" → --rw-ratio).
func benchFlagName(field string) string {
	if f, ok := bench.FlagNames()[field]; ok {
		return f
	}
	return "--" + invalid.Kebab(field)
}
