// Command kubebuild builds a real Kubernetes control plane (and kubemark)
// from the module proxy's k8s.io/kubernetes into etcdlab's build cache
// (lab/kubebuild), once per machine, and prints each binary's path, build
// time and size. lab/kubecp's tests and a real control plane run use the
// cached binaries; nothing builds them implicitly.
//
// Usage: go run ./perf/kubebuild [-version 1.34.2] [-kubemark=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/etcdlab/etcdlab/lab/kubebuild"
)

func main() {
	version := flag.String("version", kubebuild.Pinned, "Kubernetes release (1.34.2; 1.34 means its newest patch)")
	kubemark := flag.Bool("kubemark", true, "also build kubemark (hollow nodes)")
	flag.Parse()
	if err := run(*version, *kubemark); err != nil {
		fmt.Fprintln(os.Stderr, "kubebuild:", err)
		os.Exit(1)
	}
}

func run(version string, kubemark bool) error {
	v, ok := kubebuild.ParseVersion(version)
	if !ok {
		return fmt.Errorf("%q is not a Kubernetes release (1.34.2)", version)
	}
	cs := kubebuild.ControlPlane()
	if kubemark {
		cs = append(cs, kubebuild.Kubemark)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := kubebuild.Builder{Log: os.Stderr}
	paths, err := b.Binaries(ctx, v, cs...)
	if err != nil {
		return err
	}
	// 1.34 was resolved to a patch: the cache directory names it.
	v, _ = kubebuild.ParseVersion(filepath.Base(filepath.Dir(paths[kubebuild.APIServer])))
	info, err := b.Info(v)
	if err != nil {
		return err
	}
	fmt.Printf("Kubernetes %s, %s, %d staging modules pinned at %s\n", info.Version, info.GoVersion, len(info.Pinned), kubebuild.Staging(v))
	for _, c := range cs {
		bi := info.Binaries[string(c)]
		fmt.Printf("%-24s %6.0f s %5d MB  %s\n", c, bi.Seconds, bi.Bytes>>20, paths[c])
	}
	return nil
}
