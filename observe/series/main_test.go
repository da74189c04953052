package series

import (
	"os"
	"testing"

	etcdmember "github.com/etcdlab/etcdlab/lab/member"
)

func TestMain(m *testing.M) { os.Exit(etcdmember.RunTests(m)) }
