package sizing

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

// TestMain lets the test binary run etcd members (lab/clustertest starts
// them as children of this binary).
func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
