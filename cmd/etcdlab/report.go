package main

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
	"github.com/spf13/cobra"
)

// readDocs reads result files; errors name the file.
func readDocs(paths []string) ([]result.Named, error) {
	if len(paths) == 0 {
		return nil, exitcode.Usagef("no result files given")
	}
	out := make([]result.Named, 0, len(paths))
	for _, p := range paths {
		doc, err := result.ReadFile(p)
		if err != nil {
			return nil, exitcode.With(err, exitcode.Usage)
		}
		out = append(out, result.Named{Name: filepath.Base(p), Doc: doc})
	}
	return out, nil
}

func (a *app) reportCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report FILE...",
		Short: "Render result files as one self-contained HTML page or as Markdown",
		Long: `Renders one or more result documents (etcdlab bench/disk/check/size -o json,
or an experiment's result): an HTML page with inline SVG charts (no script,
nothing fetched when viewed; prints well) or Markdown tables for issues and
pull requests. Experiments get their bottleneck statements, the article's
figures beside ours, curves against the swept parameter or bars per setup,
and panels over time per cell; a size answer gets its knee charts. Several
results of one kind are also compared, the first as the base. The format follows the -o file's extension
(.html or .md); -o - writes Markdown to stdout.`,
		Example: "  etcdlab report run.json -o report.html\n  etcdlab report m5.json m6g.json -o comparison.md",
		RunE: func(c *cobra.Command, args []string) error {
			docs, err := readDocs(args)
			if err != nil {
				return err
			}
			format, err := render.FileFormat(out)
			if err != nil {
				return exitcode.Usagef("-o %w", err)
			}
			if out == "-" {
				return render.Report(a.stdout, format, docs, judgedNamed(docs))
			}
			err = atomicfile.Write(out, 0o666, func(w io.Writer) error { return render.Report(w, format, docs, judgedNamed(docs)) })
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) && pe.Op == atomicfile.OpWrite {
					err = pe.Err // the file is named below
				}
				return exitcode.Failuref("%s: %w", out, err)
			}
			a.printf("wrote %s\n", out)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "report.html", "output file (.html or .md), or - for Markdown on stdout")
	return c
}

func (a *app) compareCmd() *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "compare BASE.json OTHER.json...",
		Short: "Compare result files: values, % change, better or worse, beyond the spread",
		Long: `Puts each OTHER result beside BASE, metric by metric: both values, the change
in percent, better or worse in the right direction (throughput up, latency
down), and, when both ran several iterations, whether the difference is
larger than the run-to-run spread (more than twice the standard error of
the difference). Experiment results are compared cell by cell, matched by
cell ID; cells that only one ran are listed as not compared. Results of
different kinds cannot be compared.`,
		Example: "  etcdlab compare m5.json m6g.json\n  etcdlab compare hdd.json ssd.json -o markdown",
		RunE: func(c *cobra.Command, args []string) error {
			format, err := outputFormat(render.SubjectComparison, output)
			if err != nil {
				return err
			}
			if len(args) < 2 {
				return exitcode.Usagef("compare needs a base and at least one other result file")
			}
			docs, err := readDocs(args)
			if err != nil {
				return err
			}
			cs, err := compare.Compare(docs[0], docs[1:]...)
			if err != nil {
				return exitcode.With(err, exitcode.Usage)
			}
			return render.Comparison(a.stdout, format, cs)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "text", "output: text, markdown or json")
	return c
}
