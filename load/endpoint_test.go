package load

import "testing"

func TestEndpointAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ep      string
		haveTLS bool
		addr    string
		secure  bool
	}{
		{"127.0.0.1:2379", false, "127.0.0.1:2379", false},
		{"127.0.0.1:2379", true, "127.0.0.1:2379", true},
		{"http://10.0.0.1:2379", true, "10.0.0.1:2379", false},
		{"https://10.0.0.1:2379", false, "10.0.0.1:2379", true},
		{"https://etcd.example:2379", true, "etcd.example:2379", true},
		{"unix://sock:1", true, "sock:1", true},
		{"localhost:2379", false, "localhost:2379", false},
		{"[::1]:2379", true, "[::1]:2379", true},
	} {
		addr, secure := endpointAddr(tc.ep, tc.haveTLS)
		if addr != tc.addr || secure != tc.secure {
			t.Errorf("%q (TLS %v): %q %v, want %q %v", tc.ep, tc.haveTLS, addr, secure, tc.addr, tc.secure)
		}
	}
}
