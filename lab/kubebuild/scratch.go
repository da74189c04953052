package kubebuild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// prepare makes the scratch module: it requires k8s.io/kubernetes at v,
// pins the staging modules its go.mod replaces at v's staging version,
// imports the components' main packages (a tools file) so that `go mod
// tidy` resolves everything they need. It returns the staging modules.
func prepare(ctx context.Context, g buildcache.Go, v Version, targets []string) ([]string, error) {
	if err := os.WriteFile(filepath.Join(g.Dir, "go.mod"), []byte("module etcdlab.local/build-kubernetes\n\ngo 1.24\n"), 0o644); err != nil {
		return nil, err
	}
	out, err := g.Run(ctx, "mod", "download", "-json", module+"@"+v.Tag())
	if err != nil {
		return nil, err
	}
	var dl struct{ GoMod, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.GoMod == "" {
		if err == nil {
			err = errors.New(dl.Error)
		}
		return nil, fmt.Errorf("`go mod download %s@%s` gave no go.mod: %w", module, v.Tag(), err)
	}
	staging, err := stagingModules(ctx, g, dl.GoMod)
	if err != nil {
		return nil, err
	}
	args := []string{"mod", "edit", "-require=" + module + "@" + v.Tag()}
	for _, m := range staging {
		args = append(args, "-replace="+m+"="+m+"@"+Staging(v))
	}
	if _, err := g.Run(ctx, args...); err != nil {
		return nil, err
	}
	var tools strings.Builder
	tools.WriteString("//go:build tools\n\n// Package tools names the commands this scratch module builds.\npackage tools\n\nimport (\n")
	for _, t := range targets {
		fmt.Fprintf(&tools, "\t_ %q\n", Component(t).pkg())
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
