package proc

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// CloseOnExec marks close-on-exec every descriptor of this process whose
// /proc/self/fd target match accepts (all of them when match is nil), so
// that processes started afterwards do not inherit them. Go opens its own
// files close-on-exec; libraries that call syscall.Open directly do not
// (go-fuse's /dev/fuse and the backing files of its loopback nodes).
// Descriptors passed on purpose (exec.Cmd's ExtraFiles, stdio) are
// duplicated for the child by os/exec and are not affected.
//
// It cannot close the window between another goroutine's open and this
// call: call it right before starting a process, or right after the open.
func CloseOnExec(match func(target string) bool) error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open files: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if match != nil {
			target, err := os.Readlink("/proc/self/fd/" + e.Name())
			if err != nil || !match(target) {
				continue
			}
		}
		syscall.CloseOnExec(fd)
	}
	return nil
}
