package size_test

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
