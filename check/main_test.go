package check

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/member"
)

func TestMain(m *testing.M) {
	if code, ok := member.RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
