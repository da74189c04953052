package buildcache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in, want, tag string
		ok            bool
	}{
		{"3.5.35", "3.5.35", "v3.5.35", true},
		{" v1.34 ", "1.34", "v1.34", true},
		{"3", "", "", false},
		{"3.5.x", "", "", false},
		{"/usr/bin/etcd", "", "", false},
	} {
		v, ok := ParseVersion(tc.in)
		if ok != tc.ok || ok && (v.String() != tc.want || v.Tag() != tc.tag) {
			t.Errorf("ParseVersion(%q) = %v, %v", tc.in, v, ok)
		}
	}
}

// fakeRecipe builds tiny programs that print "fake version v1.2.PATCH"
// (want, if set, is what they print instead).
func fakeRecipe(want string) *Recipe {
	return &Recipe{
		Kind: "fake", Name: "Fake", Field: "Fake", Module: "example.com/fake",
		Timeout:   5 * time.Minute,
		VersionRE: regexp.MustCompile(`fake version (\S+)`),
		Want:      Version.Tag,
		Prepare: func(_ context.Context, g Go, v Version, targets []string) ([]string, error) {
			if want == "" {
				want = v.Tag()
			}
			main := fmt.Sprintf("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"fake version %s\") }\n", want)
			for _, f := range [][2]string{{"go.mod", "module example.com/fake\n\ngo 1.22\n"}, {"main.go", main}} {
				if err := os.WriteFile(filepath.Join(g.Dir, f[0]), []byte(f[1]), 0o644); err != nil {
					return nil, err
				}
			}
			return []string{"example.com/pinned"}, nil
		},
		Compile: func(ctx context.Context, g Go, _ Version, _, out string) error {
			_, err := g.Run(ctx, "build", "-o", out, ".")
			return err
		},
		Starting: func(v Version, targets []string, _ string) string {
			return fmt.Sprintf("building %s %s", strings.Join(targets, ","), v)
		},
		Built: func(v Version, target string, _ BinaryInfo) string { return "built " + target },
	}
}

// TestBuild: the procedure builds the missing targets, publishes each
// with its record, finds them again without a toolchain, and publishes
// nothing that says it is another version.
func TestBuild(t *testing.T) {
	goCmd, err := LookGo("")
	if err != nil {
		t.Skip("no Go toolchain")
	}
	dir := t.TempDir()
	var log strings.Builder
	b := Builder{Dir: dir, Go: goCmd, Log: &log}
	v := Version{Major: 1, Minor: 2, Patch: 3}
	ctx := context.Background()
	paths, err := b.Build(ctx, fakeRecipe(""), v, "one", "two")
	if err != nil {
		t.Fatal(err)
	}
	if paths["one"] != filepath.Join(dir, "v1.2.3", "one") || paths["two"] == "" {
		t.Fatalf("paths %v", paths)
	}
	if log.String() != "building one,two 1.2.3\nbuilt one\nbuilt two\n" {
		t.Errorf("log %q", log.String())
	}
	info, err := b.Info(fakeRecipe(""), v)
	if err != nil || info.Version != "1.2.3" || len(info.Binaries) != 2 || info.Binaries["two"].Bytes == 0 || len(info.Pinned) != 1 || !strings.HasPrefix(info.GoVersion, "go1.") {
		t.Errorf("info %+v, %v", info, err)
	}
	again, err := Builder{Dir: dir, Go: "no-such-go-command"}.Build(ctx, fakeRecipe(""), v, "two")
	if err != nil || again["two"] != paths["two"] {
		t.Errorf("cached: %v, %v", again, err)
	}
	if _, err := (Builder{Dir: dir, Go: "no-such-go-command"}).Build(ctx, fakeRecipe(""), v, "three"); !invalid.Is(err) || !strings.Contains(err.Error(), "Fake 1.2.3: building Fake from its modules needs the Go toolchain") {
		t.Errorf("no toolchain: %v", err)
	}
	w := Version{Major: 1, Minor: 2, Patch: 4}
	if _, err := b.Build(ctx, fakeRecipe("v9.9.9"), w, "one"); err == nil || !strings.Contains(err.Error(), `one says it is "v9.9.9", not "v1.2.4"`) {
		t.Errorf("wrong version: %v", err)
	}
	if _, ok := b.Cached(fakeRecipe(""), w, "one"); ok {
		t.Error("a binary of the wrong version was published")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".build-*")); len(left) != 0 {
		t.Errorf("scratch left: %v", left)
	}
}
