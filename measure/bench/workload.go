package bench

import (
	"github.com/etcdlab/etcdlab/load"
)

// workload builds the load for the configured command, and the number of
// keys it writes per request (for the quota estimate).
func (c *Config) workload(note func(string)) (load.Workload, float64) {
	space, msg := c.keySpace()
	keys := load.Keys{Prefix: c.Prefix, KeySize: c.KeySize, KeySpaceSize: space, Sequential: c.SequentialKeys}
	value := load.RandomValue(c.ValSize)
	switch c.Command {
	case CmdPut:
		if msg != "" {
			note(msg)
		}
		return load.Put{Keys: keys, Value: value}, 1
	case CmdTxnPut:
		if msg != "" {
			note(msg)
		}
		keys.Sequential = true // txn-put always writes keys (i*ops+j) mod space
		return load.TxnPut{Keys: keys, Value: value, OpsPerTxn: c.TxnOps}, float64(c.TxnOps)
	case CmdTxnMixed:
		if msg != "" {
			note(msg)
		}
		keys.Sequential = true
		end := c.EndKey
		if end == "" {
			end = load.PrefixEnd(c.Prefix)
		}
		note("txn-mixed reads the range [" + c.Prefix + ", " + end + ") it writes to (etcd benchmark reads from the empty key)")
		return load.TxnMixed{Keys: keys, Value: value, RWRatio: c.RWRatio, ReadKey: c.Prefix, ReadEnd: end,
			Limit: c.Limit, Serializable: c.Consistency == "s"}, 1 / (1 + c.RWRatio)
	case CmdRange:
		end := ""
		if len(c.Args) == 2 {
			end = c.Args[1]
		}
		return load.Range{Key: c.Args[0], End: end, Limit: c.Limit, Serializable: c.Consistency == "s", CountOnly: c.CountOnly}, 0
	case CmdLeaseKeepalive:
		return load.LeaseKeepalive{TTL: 100}, 0
	}
	return nil, 0
}
