package deploy

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

// TestMain lets the test binary run the members of the tests' clusters.
func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
