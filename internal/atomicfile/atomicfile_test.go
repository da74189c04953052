package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	for _, want := range []string{"first\n", "second, longer\n", "3\n"} {
		if err := WriteBytes(path, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %v, want only result.json", names)
	}
}

// A fill that fails halfway leaves the old file as it was and no
// temporary file.
func TestFailedWriteLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := WriteBytes(path, []byte("old, whole\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("the renderer broke")
	err := Write(path, 0o644, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("new "), 1<<16)); err != nil { // past the buffer: on the disk
			return err
		}
		return broken
	})
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != OpWrite || pe.Path != path || !errors.Is(err, broken) {
		t.Fatalf("err %#v, want a write PathError for %s wrapping %v", err, path, broken)
	}
	if got, _ := os.ReadFile(path); string(got) != "old, whole\n" {
		t.Errorf("after a failed write the file holds %d bytes %.20q…, want the old contents", len(got), got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %v, want only result.json", names)
	}
}

// A directory that is not there is a create error naming the file, as
// os.Create's.
func TestCreateError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "result.json")
	err := WriteBytes(path, []byte("x"), 0o644)
	_, cerr := os.Create(path)
	if err == nil || cerr == nil || err.Error() != cerr.Error() {
		t.Fatalf("err %v, want os.Create's %v", err, cerr)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != OpCreate {
		t.Errorf("err %#v, want Op %q", err, OpCreate)
	}
}

// A directory where the file should be is os.Create's error too, and
// leaves nothing behind.
func TestDirectoryInTheWay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteBytes(path, []byte("x"), 0o644)
	_, cerr := os.Create(path)
	var pe *fs.PathError
	if err == nil || cerr == nil || err.Error() != cerr.Error() || !errors.As(err, &pe) || pe.Op != OpCreate {
		t.Fatalf("err %v, want os.Create's %v", err, cerr)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %v, want only result.json", names)
	}
}

// Readers running beside the writer only ever see one whole version.
func TestReadersSeeWholeVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	versions := [][]byte{bytes.Repeat([]byte("a"), 300<<10), bytes.Repeat([]byte("b"), 200<<10)}
	if err := WriteBytes(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for reads := 0; ; reads++ {
			select {
			case <-done:
				if reads == 0 {
					bad = append(bad, "no read ran")
				}
				return
			default:
			}
			got, err := os.ReadFile(path)
			if err != nil || (!bytes.Equal(got, versions[0]) && !bytes.Equal(got, versions[1])) {
				bad = append(bad, fmt.Sprintf("read %.8q… of %d bytes (%v)", got, len(got), err))
			}
		}
	}()
	for i := range 40 {
		if err := WriteBytes(path, versions[i%2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d partial reads, first: %s", len(bad), bad[0])
	}
}

// WriteDir creates the directory, and in one that exists keeps the files
// that are not its own.
func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "run")
	files := []File{
		{Name: "result.json", Perm: 0o644, Fill: func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }},
		{Name: "report.html", Perm: 0o644, Fill: func(w io.Writer) error { _, err := io.WriteString(w, "<html>"); return err }},
	}
	if err := WriteDir(dir, files...); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, files...); err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(entries(t, dir), " "); names != "notes.txt report.html result.json" {
		t.Errorf("the directory holds %s", names)
	}
}

// The helper process: writes the old version, then starts the new one
// and, halfway through, says so on stdout and waits to be killed.
func TestKilledWriterHelper(t *testing.T) {
	path := os.Getenv("ATOMICFILE_KILL_PATH")
	if path == "" {
		t.Skip("run by TestKillMidWrite")
	}
	if err := WriteBytes(path, []byte("old, whole\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = Write(path, 0o644, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("new "), 1<<16)); err != nil {
			return err
		}
		os.Stdout.WriteString("halfway\n")
		select {} // until killed
	})
}

// kill -9 in the middle of a write leaves the old file whole (the
// temporary file stays, hidden: nothing runs after a SIGKILL).
func TestKillMidWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ATOMICFILE_KILL_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("halfway\n"))
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "halfway\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the writer said %q, %v", buf, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got, _ := os.ReadFile(path); string(got) != "old, whole\n" {
		t.Errorf("after kill -9 mid-write the file holds %d bytes, want the old contents", len(got))
	}
	var tmp []string
	for _, n := range entries(t, dir) {
		if strings.HasPrefix(n, ".result.json.tmp-") {
			tmp = append(tmp, n)
		}
	}
	if len(tmp) != 1 {
		t.Errorf("the directory holds %v, want result.json and the killed write's hidden temporary file", entries(t, dir))
	}
}
