package result

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWorkloadJSON: the workload objects results have always held (written
// from a map, so with sorted keys) read into Workload and write back byte
// for byte, zero values included where the command has the field.
func TestWorkloadJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ command, workload string }{
		{"put", `{"key_size":8,"key_space_size":100000,"sequential_keys":false,"val_size":0}`},
		{"txn-put", `{"key_size":8,"key_space_size":10,"sequential_keys":true,"txn_ops":3,"val_size":8}`},
		{"txn-mixed", `{"consistency":"l","key_size":8,"key_space_size":10,"limit":0,"rw_ratio":0,"sequential_keys":false,"val_size":8}`},
		{"range", `{"consistency":"s","count_only":false,"limit":0}`},
		{"watch-latency", `{"prevkv":false,"put_rate":100,"put_total":100,"streams":10,"val_size":0,"watchers_per_stream":10}`},
	} {
		var w Workload
		dec := json.NewDecoder(bytes.NewReader([]byte(tt.workload)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("%s: %v", tt.command, err)
		}
		b, err := json.Marshal(&w)
		if err != nil || string(b) != tt.workload {
			t.Errorf("%s: wrote %s (%v), read %s", tt.command, b, err, tt.workload)
		}
	}
	// lease-keepalive has none: the key is left out.
	b, _ := json.Marshal(BenchConfig{Command: "lease-keepalive"})
	if bytes.Contains(b, []byte("workload")) {
		t.Errorf("lease-keepalive: %s", b)
	}
}
