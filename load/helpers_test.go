package load

import (
	"github.com/etcdlab/etcdlab/invalid"
)

// invalidParams returns the fields an invalid-input error names, or nil
// for nil; any other error names "not invalid".
func invalidParams(err error) []string {
	if err == nil {
		return nil
	}
	e := invalid.As(err)
	if e == nil {
		return []string{"not invalid: " + err.Error()}
	}
	return e.Params()
}
