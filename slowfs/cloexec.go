package slowfs

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// closeOnExecFuseFDs marks every /dev/fuse descriptor of this process
// close-on-exec. go-fuse's direct mount (v2.12.1) opens /dev/fuse with
// syscall.Open and returns before it sets close-on-exec, so every member
// process started afterwards would inherit the FUSE connection. A member
// holding it keeps the connection alive when etcdlab dies (kill -9), and a
// member whose request the dead server had already read then waits for the
// answer uninterruptibly, for ever: the kernel aborts a connection only when
// its last /dev/fuse descriptor closes.
//
// Call it right after mounting, before starting any process: a process
// started between go-fuse's open and this call still inherits the
// descriptor.
func closeOnExecFuseFDs() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open files: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "/dev/fuse" {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}
