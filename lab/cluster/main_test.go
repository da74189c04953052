package cluster

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

// TestMain lets clusters started by these tests re-execute the test binary
// as their members, and the binary be the killed parent of
// TestSeccompKill9.
func TestMain(m *testing.M) {
	if dir := os.Getenv(seccompParentEnv); dir != "" {
		os.Exit(seccompParent(dir))
	}
	os.Exit(member.RunTests(m))
}
