package kubecp

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

// TestMain lets clusters started by these tests re-execute the test binary
// as their members.
func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
