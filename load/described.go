package load

import "github.com/etcdlab/etcdlab/lab/etcdclient"

// described is a client error shown as etcdclient.Describe's one line
// that still wraps the error, so that callers can tell a deadline or an
// interruption with errors.Is. Immutable.
type described struct{ err error }

func (d described) Error() string { return etcdclient.Describe(d.err) }
func (d described) Unwrap() error { return d.err }
