package invalid

import "testing"

func TestKebab(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Clients": "clients", "KeySpaceSize": "key-space-size", "RWRatio": "rw-ratio", "TxnOps": "txn-ops",
		"PrevKV": "prev-kv", "HTTPServer": "http-server", "P99": "p99", "DialTimeout": "dial-timeout",
	} {
		if got := Kebab(in); got != want {
			t.Errorf("Kebab(%q) = %q, want %q", in, got, want)
		}
	}
}
