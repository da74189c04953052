package kubebuild

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// build compiles components cs of v into dir/TAG/ through a scratch module
// in dir/.build-TAG-*, which it removes (and any a killed build left). The
// caller holds v's lock.
func (b Builder) build(ctx context.Context, goCmd, dir string, v Version, cs []Component) error {
	tmp, err := buildcache.Scratch(dir, v.Tag())
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	if b.Log != nil {
		fmt.Fprintf(b.Log, "building Kubernetes %s (%s) from its Go modules (once: cached in %s; about 4.5 minutes for kube-apiserver on 2 cores, under 2 for each other component, longer when the modules must be downloaded)\n", v, joinComponents(cs), dir)
	}
	g := buildcache.Go{Path: goCmd, Dir: tmp}
	staging, err := prepare(ctx, g, v, cs)
	if err != nil {
		return fmt.Errorf("build kubernetes %s: %w", v, err)
	}
	final := filepath.Join(dir, v.Tag())
	if err := os.MkdirAll(final, 0o755); err != nil {
		return fmt.Errorf("kubernetes build cache: %w", err)
	}
	goVersion := g.Version(ctx)
	for _, c := range cs {
		began := time.Now()
		out := filepath.Join(tmp, string(c))
		if _, err := g.Run(ctx, "build", "-trimpath", "-ldflags", ldflags(v, began), "-o", out, c.pkg()); err != nil {
			return fmt.Errorf("build kubernetes %s %s: %w", v, c, err)
		}
		bi := BinaryInfo{BuiltAt: time.Now().UTC(), Seconds: time.Since(began).Seconds()}
		if got, err := versionOf(ctx, out); err != nil || got != v.Tag() {
			return fmt.Errorf("build kubernetes %s: %s says it is %q (%v)", v, c, got, err)
		}
		fi, err := os.Stat(out)
		if err != nil {
			return fmt.Errorf("build kubernetes %s %s: %w", v, c, err)
		}
		bi.Bytes = fi.Size()
		// The rename makes the binary appear whole, or not at all.
		if err := os.Rename(out, filepath.Join(final, string(c))); err != nil {
			return fmt.Errorf("kubernetes build cache: %w", err)
		}
		if err := b.record(final, v, goVersion, staging, c, bi); err != nil {
			return err
		}
		if b.Log != nil {
			fmt.Fprintf(b.Log, "built %s %s in %.0f s (%d MB)\n", c, v, bi.Seconds, bi.Bytes>>20)
		}
	}
	return nil
}

// prepare makes the scratch module: it requires k8s.io/kubernetes at v,
// pins the staging modules its go.mod replaces at v's staging version,
// imports the components' main packages (a tools file) so that `go mod
// tidy` resolves everything they need. It returns the staging modules.
func prepare(ctx context.Context, g buildcache.Go, v Version, cs []Component) ([]string, error) {
	if err := os.WriteFile(filepath.Join(g.Dir, "go.mod"), []byte("module etcdlab.local/build-kubernetes\n\ngo 1.24\n"), 0o644); err != nil {
		return nil, err
	}
	out, err := g.Run(ctx, "mod", "download", "-json", module+"@"+v.Tag())
	if err != nil {
		return nil, err
	}
	var dl struct{ GoMod, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.GoMod == "" {
		return nil, fmt.Errorf("`go mod download %s@%s` gave no go.mod (%s%v)", module, v.Tag(), dl.Error, err)
	}
	staging, err := stagingModules(ctx, g, dl.GoMod)
	if err != nil {
		return nil, err
	}
	args := []string{"mod", "edit", "-require=" + module + "@" + v.Tag()}
	for _, m := range staging {
		args = append(args, "-replace="+m+"="+m+"@"+v.Staging())
	}
	if _, err := g.Run(ctx, args...); err != nil {
		return nil, err
	}
	var tools strings.Builder
	tools.WriteString("//go:build tools\n\n// Package tools names the commands this scratch module builds.\npackage tools\n\nimport (\n")
	for _, c := range cs {
		fmt.Fprintf(&tools, "\t_ %q\n", c.pkg())
	}
	tools.WriteString(")\n")
	if err := os.WriteFile(filepath.Join(g.Dir, "tools.go"), []byte(tools.String()), 0o644); err != nil {
		return nil, err
	}
	if _, err := g.Run(ctx, "mod", "tidy"); err != nil {
		return nil, err
	}
	return staging, nil
}

// stagingModules reads the go.mod at path (k8s.io/kubernetes's) and
// returns the modules it replaces with a ./staging directory.
func stagingModules(ctx context.Context, g buildcache.Go, path string) ([]string, error) {
	out, err := g.Run(ctx, "mod", "edit", "-json", path)
	if err != nil {
		return nil, err
	}
	return parseStaging(out)
}

// parseStaging picks the staging modules out of `go mod edit -json`.
func parseStaging(modJSON []byte) ([]string, error) {
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(modJSON, &mod); err != nil {
		return nil, fmt.Errorf("k8s.io/kubernetes's go.mod: %w", err)
	}
	var staging []string
	for _, r := range mod.Replace {
		if strings.HasPrefix(r.New.Path, "./staging/") {
			staging = append(staging, r.Old.Path)
		}
	}
	if len(staging) == 0 {
		return nil, fmt.Errorf("k8s.io/kubernetes's go.mod replaces no module with ./staging")
	}
	sort.Strings(staging)
	return staging, nil
}

// ldflags sets what `--version` prints, as Kubernetes' own build does
// (hack/lib/version.sh): the release, its major and minor, the build date.
// The commit is not known from a module and stays unset.
func ldflags(v Version, now time.Time) string {
	var f []string
	for _, pkg := range []string{"k8s.io/client-go/pkg/version", "k8s.io/component-base/version"} {
		for _, kv := range [][2]string{{"gitVersion", v.Tag()}, {"gitMajor", "1"}, {"gitMinor", fmt.Sprint(v.Minor)}, {"buildDate", now.UTC().Format("2006-01-02T15:04:05Z")}} {
			f = append(f, fmt.Sprintf("-X %s.%s=%s", pkg, kv[0], kv[1]))
		}
	}
	return strings.Join(append(f, "-s", "-w"), " ")
}

// record adds component c's build to dir/build.json.
func (b Builder) record(dir string, v Version, goVersion string, staging []string, c Component, bi BinaryInfo) error {
	info, err := b.Info(v)
	if err != nil || info.Version != v.String() {
		info = Info{Version: v.String()}
	}
	info.GoVersion, info.Staging = goVersion, staging
	if info.Binaries == nil {
		info.Binaries = map[Component]BinaryInfo{}
	}
	info.Binaries[c] = bi
	j, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "build.json"), append(j, '\n'), 0o644); err != nil {
		return fmt.Errorf("kubernetes build cache: %w", err)
	}
	return nil
}

// versionOf runs `path --version` (10 s at most) and returns the release
// it prints ("Kubernetes v1.34.2").
func versionOf(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "Kubernetes" {
		return "", fmt.Errorf("printed %q", strings.TrimSpace(string(out)))
	}
	return f[1], nil
}

func joinComponents(cs []Component) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}
