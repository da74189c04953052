package bench

import (
	"errors"

	"github.com/etcdlab/etcdlab/invalid"
)

// runFailure returns err as an ordinary error. Once Run has validated the
// configuration, any error is a failure of the run, not invalid input:
// keys may have been written, so it must not read as "nothing was done"
// even when a lower layer reported it as invalid input. The message is
// kept; an error that is not invalid input is returned as it is, with its
// wrap chain.
func runFailure(err error) error {
	if err == nil || !invalid.Is(err) {
		return err
	}
	return errors.New(err.Error())
}
