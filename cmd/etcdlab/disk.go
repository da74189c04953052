package main

import (
	"errors"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/measure/disk"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

func (a *app) diskCmd() *cobra.Command {
	var (
		o      disk.Options
		size   string
		output string
		term   render.TerminalOptions
	)
	c := &cobra.Command{
		Use:   "disk",
		Short: "Qualify a disk for etcd: fio's etcd job without fio, with verdicts",
		Long: `Runs etcd's disk qualification natively: sequential writes of --bs bytes,
each followed by fdatasync, over a --size file, exactly like
  fio --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300
and reports what fio reports for it (fdatasync percentiles at fio's list,
write latency, IOPS, bandwidth) with explicit units, then judges it:
p99 fdatasync < 10 ms (etcd FAQ, OpenShift docs), a warning band for p99.9
from 8.5 ms (etcd-tools), and the sequential IOPS tiers 50/300/500/800+.
Exit code 3 when a verdict is FAIL.

--profile openshift runs etcd-perf's job (8000 B blocks, 100 MiB, 60 s cap).
--suite full adds openshift-etcd-suite's random 4 KiB O_DIRECT reads at queue
depth 4 and mixed 70/30 and 30/70 read/write jobs, each capped so the whole
suite ends within a minute on a healthy disk.

The test file is created in --dir and always removed, also on Ctrl-C; files
left by a killed run are removed by the next one.`,
		Example: `  etcdlab disk                          # the current directory's disk
  etcdlab disk --dir /var/lib/etcd --profile openshift
  etcdlab disk --suite full -o json > disk.json`,
		Args:        noArgs,
		Annotations: map[string]string{"param:BlockSize": "--bs"},
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := outputFormat(result.KindDisk, output)
			if err != nil {
				return err
			}
			if c.Flags().Changed("bs") && o.BlockSize <= 0 {
				return exitcode.Usagef("--bs must be positive, not %d", o.BlockSize)
			}
			if size != "" {
				n, err := disk.ParseSize(size)
				if err != nil {
					return exitcode.Usagef("--size: %v", err)
				}
				o.Size = n
			}
			suite := c.Flags().Lookup("suite").Value.String()
			switch suite {
			case "", "etcd":
			case "full":
				o.Suite = true
			default:
				return exitcode.Usagef("--suite must be etcd or full, not %q", suite)
			}
			o.Log = a.stderr
			doc, err := disk.Run(c.Context(), o)
			if doc != nil {
				if werr := render.Write(a.stdout, format, doc, render.Options{Terminal: term}); werr != nil {
					return werr
				}
			}
			if err != nil {
				return err
			}
			if doc.Overall == result.Fail {
				return exitcode.With(errors.New("the disk FAILS etcd's requirements (see the verdicts above)"), exitcode.CheckFailed)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.StringVar(&o.Dir, "dir", ".", "directory on the disk to test")
	fl.StringVar(&o.Profile, "profile", disk.ProfileEtcd, "etcd (2300 B, 22 MiB) or openshift (8000 B, 100 MiB, 60 s cap)")
	fl.IntVar(&o.BlockSize, "bs", 0, "block size in bytes (default: the profile's)")
	fl.StringVar(&size, "size", "", "file size, e.g. 22m, 1g (default: the profile's)")
	fl.DurationVar(&o.Runtime, "runtime", 0, "stop the main job after this long (default: the profile's cap)")
	fl.StringVar(&o.Sync, "sync", disk.SyncFdatasync, "after each write: fdatasync, fsync, or odsync (O_DSYNC writes)")
	fl.String("suite", "etcd", "etcd (the main job) or full (adds random-read and mixed jobs)")
	fl.StringVarP(&output, "output", "o", "text", "output: text or json")
	fl.BoolVar(&term.Wide, "wide", false, "text at full width: sources in the verdict table, nothing wrapped (default: within 120 columns)")
	return c
}
