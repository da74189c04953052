// Command mkimage builds etcdlab's container image without a container
// engine: it builds a static etcdlab from this checkout and writes the
// image tarball (package build/image).
//
//	go run ./build/image/mkimage -o _build/etcdlab-image.tar [-version v1.2.3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/etcdlab/etcdlab/build/image"
)

func main() {
	out := flag.String("o", "etcdlab-image.tar", "image tarball to write")
	version := flag.String("version", "", "version to build in and tag (default: git describe)")
	flag.Parse()
	if err := run(*out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(out, version string) error {
	if version == "" {
		v, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
		if err != nil {
			return fmt.Errorf("git describe (give -version): %w", err)
		}
		version = strings.TrimSpace(string(v))
	}
	dir, err := os.MkdirTemp("", "mkimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "etcdlab")
	if err := image.BuildBinary(bin, version, "."); err != nil {
		return err
	}
	img, err := image.Build(image.Options{Binary: bin, Version: version, Source: "https://github.com/etcdlab/etcdlab"})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := image.WriteFile(out, img, version); err != nil {
		return err
	}
	fmt.Printf("wrote %s (etcdlab:%s)\n", out, version)
	return nil
}
