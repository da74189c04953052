package image

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const testVersion = "v0.0.0-imagetest"

// buildImage builds etcdlab from this checkout, its image, and writes
// the image tarball; it returns the tarball's path.
func buildImage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "etcdlab")
	if err := BuildBinary(bin, testVersion, "../.."); err != nil {
		t.Fatal(err)
	}
	img, err := Build(Options{Binary: bin, Version: testVersion, Source: "https://github.com/etcdlab/etcdlab"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "etcdlab.tar")
	if err := WriteFile(path, img, testVersion); err != nil {
		t.Fatal(err)
	}
	return path
}

// unpack extracts the image's file system, as a container engine does,
// into a new directory.
func unpack(t *testing.T, path string) string {
	t.Helper()
	tag, _ := Tag(testVersion)
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatalf("the tarball does not load as an image: %v", err)
	}
	root := t.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, os.FileMode(h.Mode).Perm()|os.FileMode(h.Mode)&os.ModeSticky); err != nil {
				t.Fatal(err)
			}
			_ = os.Chmod(p, os.FileMode(h.Mode&0o777)|modeBits(h.Mode))
			_ = os.Chown(p, h.Uid, h.Gid)
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode&0o777))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
			_ = os.Chown(p, h.Uid, h.Gid)
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
	}
	return root
}

func modeBits(m int64) os.FileMode {
	if m&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}

// TestImage: the image is one small layer with etcdlab as its entrypoint,
// run as a non-root user in /data, labelled with its version, and its
// binary needs no dynamic loader.
func TestImage(t *testing.T) {
	path := buildImage(t)
	tag, _ := Tag(testVersion)
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if strings.Join(c.Entrypoint, " ") != Entrypoint || c.WorkingDir != WorkDir || c.User != "65532:65532" || c.Labels["org.opencontainers.image.version"] != testVersion || cf.OS != "linux" {
		t.Errorf("config %+v", cf)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want 1", len(layers), err)
	}
	var size int64
	rc := mutate.Extract(img)
	tr := tar.NewReader(rc)
	var bin []byte
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		size += h.Size
		if h.Name == "etcdlab" {
			bin, _ = io.ReadAll(tr)
		}
	}
	rc.Close()
	t.Logf("image: %d bytes unpacked", size)
	if size > 80<<20 {
		t.Errorf("image unpacks to %d MiB, more than 80", size>>20)
	}
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("/etcdlab in the image: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("/etcdlab needs a dynamic loader the image does not have")
		}
	}
	// A dynamically linked binary is refused.
	if _, err := Build(Options{Binary: "/bin/sh", Version: "x"}); err == nil {
		t.Error("built an image around a dynamically linked binary")
	}
}

// TestRunFromImage runs etcdlab from the image's unpacked file system as
// a container engine would: chrooted into it, as its non-root user, in its
// working directory, with /proc and /dev mounted in a private mount
// namespace (gone with the process). It prints its version, and a short
// check starts a local cluster and gives verdicts.
func TestRunFromImage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot and mount namespaces need root (CI runs as root)")
	}
	for _, tool := range []string{"unshare", "chroot", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root := unpack(t, buildImage(t))
	run := func(timeout time.Duration, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		script := `set -e; mount -t proc proc "$1/proc"; mount --rbind /dev "$1/dev"; cd "$1/data"; r=$1; shift; exec chroot --userspec=65532:65532 "$r" "$@"`
		cmd := exec.CommandContext(ctx, "unshare", append([]string{"--mount", "--propagation", "private", "--fork", "--pid", "--mount-proc=/proc", "sh", "-c", script, "sh", root, "/etcdlab"}, args...)...)
		cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/data"} // the host tools; /etcdlab is called by its path
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(30*time.Second, "--version")
	if err != nil || !strings.HasPrefix(out, "etcdlab "+testVersion+" ") {
		t.Fatalf("--version: %v: %q", err, out)
	}
	// chroot(1) leaves the working directory at /: name the image's
	// working directory, as an engine's WORKDIR would be.
	out, err = run(3*time.Minute, "check", "--data-dir", "/data", "--out", "/data/check", "--max-load", "s", "--level-duration", "2s", "--disk-runtime", "2s")
	var exit *exec.ExitError
	failVerdict := errors.As(err, &exit) && exit.ExitCode() == 3 // a FAIL verdict, which a loaded machine may earn
	if err != nil && !failVerdict {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, want := range []string{"overall: ", "WAL fsync p99", "wrote /data/check/result.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(root, "data"))
	if len(ents) == 0 {
		t.Error("check wrote nothing into the image's /data")
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), root) {
		t.Errorf("mounts of %s left behind", root)
	}
}
