package buildcache

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/invalid"
)

// Recipe is what one kind of build fills into the procedure every build
// follows (Builder.Build): the module and its targets, how to prepare the
// scratch module and compile one target, what a built binary must say it
// is. lab/etcdbuild and lab/kubebuild each hold one. A Recipe is read
// only; its funcs run on the building goroutine, Prepare once per build,
// then Compile once per missing target.
type Recipe struct {
	// Kind names the cache folder (Dir(Kind)) and the builds in messages
	// ("etcd", "kubernetes").
	Kind string
	// Name is what people call what is built ("etcd", "Kubernetes").
	Name string
	// Field is the option that names the version, for invalid-input
	// errors ("Etcd": "{Etcd} 3.9: ...").
	Field string
	// Module is the module whose releases are built
	// (go.etcd.io/etcd/server/v3); its versions are the releases.
	Module string
	// NoGoHint ends the message for a missing go command: what to do
	// instead (", or give the path of an etcd binary").
	NoGoHint string
	// Timeout bounds one build: downloading the modules and compiling
	// every missing target.
	Timeout time.Duration
	// VersionRE finds the version in a built binary's `--version` output
	// (its first submatch), which must be Want(v).
	VersionRE *regexp.Regexp
	Want      func(Version) string
	// Prepare fills the scratch module g.Dir to build targets at v, and
	// returns the modules it pinned, for build.json (nil: none).
	Prepare func(ctx context.Context, g Go, v Version, targets []string) (pinned []string, err error)
	// Compile builds target at v into the file out.
	Compile func(ctx context.Context, g Go, v Version, target, out string) error
	// Starting is the line logged when a build of targets at v starts
	// (dir is the cache); Built the line logged for each target built.
	Starting func(v Version, targets []string, dir string) string
	Built    func(v Version, target string, b BinaryInfo) string
}

// Builder builds recipes' targets into the cache: one directory per
// version (Dir/v3.5.35/etcd, Dir/v3.5.35/build.json). Its zero value uses
// the default cache and the go command in PATH. Its methods are safe for
// concurrent use, also by several processes: a build holds a lock file per
// version, and a binary (and its record) appears in the cache only whole.
type Builder struct {
	// Dir is the cache of one kind's builds; empty means Dir(Recipe.Kind).
	Dir string
	// Go is the go command; empty means "go" looked up in PATH.
	Go string
	// Log receives a line when a build starts and ends; nil discards it.
	Log io.Writer
}

// Info is what the cache records of a version's builds
// (Dir/v1.34.2/build.json).
type Info struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	// Pinned is the modules the recipe pinned (Kubernetes' staging
	// modules, as that release's go.mod names them).
	Pinned   []string              `json:"staging_modules,omitempty"`
	Binaries map[string]BinaryInfo `json:"binaries"`
}

// BinaryInfo is one target's build. Seconds is that target's own
// compilation; the first target of a version also compiles what the
// others share.
type BinaryInfo struct {
	BuiltAt time.Time `json:"built_at"`
	Seconds float64   `json:"build_seconds"`
	Bytes   int64     `json:"bytes"`
}

// dir resolves the cache directory of r's kind.
func (b Builder) dir(r *Recipe) (string, error) {
	if b.Dir != "" {
		return b.Dir, nil
	}
	return Dir(r.Kind)
}

// Cached returns the paths of targets at v when the cache holds all of
// them, without building anything (nor needing a toolchain).
func (b Builder) Cached(r *Recipe, v Version, targets ...string) (map[string]string, bool) {
	dir, err := b.dir(r)
	if err != nil || v.Patch < 0 {
		return nil, false
	}
	paths := make(map[string]string, len(targets))
	for _, t := range targets {
		p := filepath.Join(dir, v.Tag(), t)
		if !Executable(p) {
			return nil, false
		}
		paths[t] = p
	}
	return paths, true
}

// Info reads the cache's record of version v's builds.
func (b Builder) Info(r *Recipe, v Version) (Info, error) {
	dir, err := b.dir(r)
	if err != nil {
		return Info{}, err
	}
	p := filepath.Join(dir, v.Tag(), "build.json")
	data, err := os.ReadFile(p)
	if err != nil {
		return Info{}, fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		return Info{}, fmt.Errorf("%s build cache: %s: %w", r.Kind, p, err)
	}
	return info, nil
}

// Build returns the paths of targets at v, building those the cache lacks
// first: cached? → find go → newest patch (when v has none) → cached? →
// lock v → cached? (another process may have built it meanwhile) →
// scratch module → Prepare → Compile, check and publish each target. The
// version the paths are of is the directory they are in (v.Tag()).
func (b Builder) Build(ctx context.Context, r *Recipe, v Version, targets ...string) (map[string]string, error) {
	if paths, ok := b.Cached(r, v, targets...); ok { // an exact version needs no toolchain once built
		return paths, nil
	}
	dir, err := b.dir(r)
	if err != nil {
		return nil, err
	}
	goCmd, err := LookGo(b.Go)
	if err != nil {
		name := b.Go
		if name == "" {
			name = "go"
		}
		return nil, invalid.Errorf("{"+r.Field+"} %s: building %s from its modules needs the Go toolchain, and %q is not in PATH (install Go 1.24 or newer%s)", v, r.Name, name, r.NoGoHint)
	}
	if v.Patch < 0 {
		if v, err = newestPatch(ctx, r, goCmd, v); err != nil {
			return nil, err
		}
		if paths, ok := b.Cached(r, v, targets...); ok {
			return paths, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	unlock, err := Lock(ctx, filepath.Join(dir, v.Tag()+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	var missing []string
	for _, t := range targets {
		if _, ok := b.Cached(r, v, t); !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		if err := b.build(ctx, r, goCmd, dir, v, missing); err != nil {
			return nil, err
		}
	}
	paths, ok := b.Cached(r, v, targets...)
	if !ok {
		return nil, fmt.Errorf("%s %s: built, yet not in the cache %s", r.Kind, v, dir)
	}
	return paths, nil
}

// build compiles targets at v into dir/TAG/ through a scratch module in
// dir/.build-TAG-*, which it removes (and any a killed build left). The
// caller holds v's lock.
func (b Builder) build(ctx context.Context, r *Recipe, goCmd, dir string, v Version, targets []string) error {
	tmp, err := Scratch(dir, v.Tag())
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	if b.Log != nil && r.Starting != nil {
		fmt.Fprintln(b.Log, r.Starting(v, targets, dir))
	}
	g := Go{Path: goCmd, Dir: tmp}
	pinned, err := r.Prepare(ctx, g, v, targets)
	if err != nil {
		return fmt.Errorf("build %s %s: %w", r.Kind, v, err)
	}
	final := filepath.Join(dir, v.Tag())
	if err := os.MkdirAll(final, 0o755); err != nil {
		return fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	goVersion := g.Version(ctx)
	for _, t := range targets {
		began := time.Now()
		out := filepath.Join(tmp, t)
		if err := r.Compile(ctx, g, v, t, out); err != nil {
			return fmt.Errorf("build %s %s %s: %w", r.Kind, v, t, err)
		}
		bi := BinaryInfo{BuiltAt: time.Now().UTC(), Seconds: time.Since(began).Seconds()}
		if got, err := VersionOf(ctx, out, r.VersionRE); err != nil {
			return fmt.Errorf("build %s %s: %s: %w", r.Kind, v, t, err)
		} else if want := r.Want(v); got != want {
			return fmt.Errorf("build %s %s: %s says it is %q, not %q", r.Kind, v, t, got, want)
		}
		fi, err := os.Stat(out)
		if err != nil {
			return fmt.Errorf("build %s %s %s: %w", r.Kind, v, t, err)
		}
		bi.Bytes = fi.Size()
		if err := b.publish(r, final, out, v, goVersion, pinned, t, bi); err != nil {
			return err
		}
		if b.Log != nil && r.Built != nil {
			fmt.Fprintln(b.Log, r.Built(v, t, bi))
		}
	}
	return nil
}

// publish moves the built binary out into dir (the version's directory)
// and records it in dir/build.json, each whole or not at all: the rename
// makes the binary appear whole, atomicfile the record.
func (b Builder) publish(r *Recipe, dir, out string, v Version, goVersion string, pinned []string, target string, bi BinaryInfo) error {
	if err := os.Rename(out, filepath.Join(dir, target)); err != nil {
		return fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	info, err := b.Info(r, v)
	if err != nil || info.Version != v.String() {
		info = Info{Version: v.String()}
	}
	info.GoVersion, info.Pinned = goVersion, pinned
	if info.Binaries == nil {
		info.Binaries = map[string]BinaryInfo{}
	}
	info.Binaries[target] = bi
	j, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "build.json"), append(j, '\n'), 0o644); err != nil {
		return fmt.Errorf("%s build cache: %w", r.Kind, err)
	}
	return nil
}

// newestPatch asks the module proxy for the newest release of v's minor.
func newestPatch(ctx context.Context, r *Recipe, goCmd string, v Version) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := Go{Path: goCmd, Dir: os.TempDir()}.Run(ctx, "list", "-m", "-f", "{{.Version}}", r.Module+"@"+v.Tag())
	if err != nil {
		return v, invalid.Errorf("{"+r.Field+"} %s: the module proxy names no release of it: %v", v, err)
	}
	got, ok := ParseVersion(strings.TrimSpace(string(out)))
	if !ok || got.Patch < 0 {
		return v, fmt.Errorf("%s %s: the module proxy answered %q", r.Kind, v, strings.TrimSpace(string(out)))
	}
	return got, nil
}
