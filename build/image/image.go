// Package image builds etcdlab's container image without a container
// engine: one layer on an empty base holding the static etcdlab binary as
// /etcdlab (its entrypoint; etcd members are the same binary, re-executed),
// CA certificates, /etc/passwd and /etc/group with the non-root user it
// runs as, /tmp and the working directory /data. It is written as an
// image tarball (`podman load`, `docker load`, `crane push`). Built with
// go-containerregistry, so CI needs no Docker daemon and no registry.
// Functions here are safe for concurrent use; they share nothing.
package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The image's user and layout.
const (
	UID        = 65532
	Entrypoint = "/etcdlab"
	WorkDir    = "/data"
	Repository = "etcdlab"
)

// Options say what goes into the image.
type Options struct {
	// Binary is a static etcdlab executable (CGO_ENABLED=0).
	Binary string
	// Version labels the image and tags it.
	Version string
	// CACerts is a PEM bundle for TLS to etcd and Prometheus (default:
	// this machine's Debian bundle).
	CACerts string
	// Source is the org.opencontainers.image.source label.
	Source string
	// Created is the image's creation time (zero: the Unix epoch, so that
	// the same inputs give the same image).
	Created time.Time
}

// DefaultCACerts is Debian's CA bundle.
const DefaultCACerts = "/etc/ssl/certs/ca-certificates.crt"

// Build returns the image.
func Build(o Options) (v1.Image, error) {
	if o.Binary == "" || o.Version == "" {
		return nil, errors.New("image: a binary and a version are needed")
	}
	if o.CACerts == "" {
		o.CACerts = DefaultCACerts
	}
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	if err := checkStatic(bin); err != nil {
		return nil, err
	}
	certs, err := os.ReadFile(o.CACerts)
	if err != nil {
		return nil, fmt.Errorf("image: CA certificates: %w", err)
	}
	layerTar, err := rootfs(bin, certs, o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil })
	if err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Created = v1.Time{Time: o.Created}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.Cmd = []string{"--help"}
	cf.Config.WorkingDir = WorkDir
	cf.Config.User = fmt.Sprintf("%d:%d", UID, UID)
	cf.Config.Env = []string{"PATH=/", "HOME=" + WorkDir, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Volumes = map[string]struct{}{WorkDir: {}}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "etcdlab",
		"org.opencontainers.image.description": "Is my etcd fast enough, why is it slow, and what happens if I change it?",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.source":      o.Source,
	}
	return mutate.ConfigFile(img, cf)
}

// Tag is the image's name: etcdlab:VERSION.
func Tag(version string) (name.Tag, error) {
	return name.NewTag(Repository+":"+version, name.WeakValidation)
}

// WriteFile writes img as an image tarball tagged etcdlab:VERSION.
func WriteFile(path string, img v1.Image, version string) error {
	tag, err := Tag(version)
	if err != nil {
		return fmt.Errorf("image: tag %q: %w", version, err)
	}
	return tarball.WriteToFile(path, tag, img)
}

// rootfs is the layer: the image's whole file system.
func rootfs(bin, certs []byte, created time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := func(p string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: p + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: created})
	}
	file := func(p string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: mode, Size: int64(len(data)), ModTime: created}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, WorkDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID)
	steps := []error{
		dir("etc", 0o755, 0), dir("etc/ssl", 0o755, 0), dir("etc/ssl/certs", 0o755, 0),
		dir("tmp", 0o1777, 0), dir("data", 0o755, UID), dir("proc", 0o555, 0), dir("dev", 0o755, 0),
		file("etc/passwd", 0o644, []byte(passwd)), file("etc/group", 0o644, []byte(group)),
		file("etc/ssl/certs/ca-certificates.crt", 0o644, certs),
		file("etcdlab", 0o755, bin),
	}
	for _, err := range steps {
		if err != nil {
			return nil, fmt.Errorf("image: layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
