package result

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadVersion1 reads a schema version 1 bench result: what it called
// unavailability is the clients' unavailability now, and writing it again
// gives the current schema.
func TestReadVersion1(t *testing.T) {
	const v1 = `{"schema_version": 1, "kind": "bench", "created_at": "2026-11-01T00:00:00Z", "environment": {},
	  "runs": [{"name": "txn-mixed", "requests": 10, "errors": {"Unavailable": 3},
	    "unavailability": {"longest_seconds": 6.89, "total_seconds": 6.89, "windows": [{"start": "2026-11-01T00:00:01Z", "seconds": 6.89}]},
	    "ops": [{"name": "read", "requests": 5, "unavailability": {"longest_seconds": 1.5, "total_seconds": 1.5, "windows": []}}]}]}`
	doc, err := Read(strings.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Runs[0]
	if r.ClientUnavailability == nil || r.ClientUnavailability.LongestSeconds != 6.89 || r.V1Unavailability != nil {
		t.Fatalf("run: client %+v, v1 %+v", r.ClientUnavailability, r.V1Unavailability)
	}
	if o := r.Ops[0]; o.ClientUnavailability == nil || o.ClientUnavailability.LongestSeconds != 1.5 || o.V1Unavailability != nil {
		t.Fatalf("op: client %+v, v1 %+v", o.ClientUnavailability, o.V1Unavailability)
	}
	if r.ClusterUnavailability != nil || r.Canary != nil {
		t.Fatalf("a version 1 result has no cluster unavailability: %+v", r.ClusterUnavailability)
	}
	var b bytes.Buffer
	if err := Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, `"unavailability"`) || !strings.Contains(out, `"client_unavailability"`) || !strings.Contains(out, `"schema_version": 2`) {
		t.Fatalf("written again:\n%s", out)
	}
}
