package slowfs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// aligned4k is a 4 KiB buffer aligned for O_DIRECT, filled with b.
func aligned4k(b byte) []byte {
	buf := make([]byte, 8192)
	off := (4096 - int(uintptr(unsafe.Pointer(&buf[0]))&4095)) % 4096
	out := buf[off : off+4096]
	for i := range out {
		out[i] = b
	}
	return out
}

// timedIO opens path with flags, runs io on the descriptor and returns how
// long io took (raw system calls: see Options.Run).
func timedIO(t *testing.T, path string, flags int, io func(fd int) error) time.Duration {
	t.Helper()
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer unix.Close(fd)
	t0 := time.Now()
	if err := io(fd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return time.Since(t0)
}

// TestSlowReadWrite mounts a file system with read and write delays: a
// read that reaches it (each fresh open starts with a cold page cache, as
// FUSE drops a file's cache on open) and an O_DIRECT write each take at
// least their delay, a buffered write does not, and the data reaches the
// backing directory; a mount without them leaves reads alone.
func TestSlowReadWrite(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	const readDelay, writeDelay = 40 * time.Millisecond, 30 * time.Millisecond
	backing, mnt := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(backing, "data"), bytes.Repeat([]byte("r"), 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	rd, _ := ParseDelay(readDelay.String())
	wd, _ := ParseDelay(writeDelay.String())
	m, err := MountDir(Options{Backing: backing, Mountpoint: mnt, ReadDelay: rd, WriteDelay: wd})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Unmount() }()
	read := func(fd int) error {
		buf := make([]byte, 4096)
		n, err := unix.Pread(fd, buf, 0)
		if err == nil && (n != 4096 || buf[0] != 'r') {
			t.Errorf("read %d bytes %q", n, buf[:1])
		}
		return err
	}
	for i := range 3 {
		if d := timedIO(t, filepath.Join(mnt, "data"), unix.O_RDONLY, read); d < readDelay {
			t.Errorf("read %d took %v, want at least %v", i, d, readDelay)
		}
	}
	direct := timedIO(t, filepath.Join(mnt, "direct"), unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT, func(fd int) error {
		_, err := unix.Pwrite(fd, aligned4k('d'), 0)
		return err
	})
	if direct < writeDelay {
		t.Errorf("O_DIRECT write took %v, want at least %v", direct, writeDelay)
	}
	// The fastest of three: a busy machine only adds time.
	buffered := time.Hour
	for range 3 {
		buffered = min(buffered, timedIO(t, filepath.Join(mnt, "buffered"), unix.O_CREAT|unix.O_WRONLY, func(fd int) error {
			if _, err := unix.Pwrite(fd, []byte("b"), 0); err != nil {
				return err
			}
			return unix.Fdatasync(fd)
		}))
	}
	if buffered >= writeDelay {
		t.Errorf("buffered write and fdatasync took %v: slowed by the write delay", buffered)
	}
	for name, want := range map[string]string{"direct": string(aligned4k('d')), "buffered": "b"} {
		if b, err := os.ReadFile(filepath.Join(backing, name)); err != nil || string(b) != want {
			t.Errorf("backing file %s: %d bytes, %v", name, len(b), err)
		}
	}

	plain := t.TempDir()
	m2, err := MountDir(Options{Backing: backing, Mountpoint: plain})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m2.Unmount() }()
	fast := time.Hour
	for range 3 {
		fast = min(fast, timedIO(t, filepath.Join(plain, "data"), unix.O_RDONLY, read))
	}
	if fast >= readDelay {
		t.Errorf("a mount without a read delay read in %v", fast)
	}
}
