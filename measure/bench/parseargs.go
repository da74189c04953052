package bench

import (
	"errors"
	"io"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/spf13/pflag"
)

// ParseArgs parses a bench command line as `etcdlab bench` takes it (and
// etcd benchmark, for the flags they share), without the program name:
// bench's own flags, one subcommand, then its arguments and flags, which
// may be interleaved as with cobra. It builds the same Config the CLI
// builds, and checks it with Validate. Its errors are invalid-input errors
// (package invalid), one line each; Config's fields are named as {Field}
// (FlagNames says how a command line spells them).
func ParseArgs(args []string) (CommandLine, error) {
	f := NewFlags()
	global := newFlagSet("bench")
	f.RegisterGlobal(global)
	name, rest, err := splitSubcommand(global, args)
	if err != nil {
		return CommandLine{}, err
	}
	var sub Subcommand
	for _, s := range Subcommands() {
		if s.Name == name {
			sub = s
		}
	}
	fl := newFlagSet("bench " + name)
	f.RegisterSubcommand(name, fl)
	fl.AddFlagSet(global)
	if err := fl.Parse(rest); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return CommandLine{}, invalid.Errorf("bench %s: -h/--help asks for help, not a run", name)
		}
		return CommandLine{}, invalid.Errorf("bench %s: %s", name, err.Error())
	}
	pos := fl.Args()
	if len(pos) < sub.MinArgs || len(pos) > sub.MaxArgs {
		if sub.MaxArgs == 0 {
			return CommandLine{}, invalid.Errorf("bench %s takes no arguments, got %q", name, pos)
		}
		return CommandLine{}, invalid.Errorf("bench %s takes at most %d arguments (%s), got %q", name, sub.MaxArgs, sub.Use, pos)
	}
	cl := f.CommandLine(name, pos, fl.Changed)
	fl.Visit(func(f *pflag.Flag) { cl.Set = append(cl.Set, f.Name) })
	if err := cl.Config.Validate(); err != nil {
		return cl, err
	}
	return cl, nil
}

func newFlagSet(name string) *pflag.FlagSet {
	fl := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.SortFlags = false
	return fl
}

// splitSubcommand finds the subcommand in args as cobra does: the first
// argument that is neither a flag of global nor the value of one. It
// returns the subcommand and args without it.
func splitSubcommand(global *pflag.FlagSet, args []string) (string, []string, error) {
	var names []string
	for _, s := range Subcommands() {
		names = append(names, s.Name)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			var f *pflag.Flag
			switch {
			case name == "": // "-=x": no flag has no name
			case strings.HasPrefix(a, "--"):
				f = global.Lookup(name)
			default:
				f = global.ShorthandLookup(name[:1])
				hasValue = hasValue || len(name) > 1 // -ojson
			}
			if f == nil {
				return "", nil, invalid.Errorf("bench: unknown flag %s before the subcommand (one of %s)", a, strings.Join(names, ", "))
			}
			if !hasValue && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
			continue
		}
		for _, n := range names {
			if a == n {
				return a, append(append([]string(nil), args[:i]...), args[i+1:]...), nil
			}
		}
		return "", nil, invalid.Errorf("bench: unknown command %q (one of %s)", a, strings.Join(names, ", "))
	}
	return "", nil, invalid.Errorf("bench: no command (one of %s)", strings.Join(names, ", "))
}
