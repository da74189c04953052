package result

// Incident is one entry of an incident catalogue: the cause and member
// injected into a cluster (the expected diagnosis) beside what `doctor`
// concluded there. It is a row of the catalogue's confusion table.
type Incident struct {
	// ExpectCause is the cause injected (disk, cpu, network, ...; "" for
	// a healthy cluster, which expects no finding at all); ExpectMember
	// the member it was injected into ("" for the cluster's), resolved
	// from "leader" or "follower" to the member it hit.
	ExpectCause  string `json:"expect_cause"`
	ExpectMember string `json:"expect_member,omitempty"`
	// Top is the top finding ("" when there was none); Others are every
	// other FAIL or WARN finding, each "STATUS cause on member".
	TopStatus string   `json:"top_status,omitempty"`
	TopCause  string   `json:"top_cause,omitempty"`
	TopMember string   `json:"top_member,omitempty"`
	Others    []string `json:"others,omitempty"`
	// Outcome is the grade: IncidentRight, or the first thing wrong.
	Outcome string `json:"outcome"`
	// Why says what was wrong, for a person ("" when right).
	Why string `json:"why,omitempty"`
}

// Incident outcomes.
const (
	// IncidentRight: the top finding is the injected cause on the
	// injected member, and no other finding names another cause (for a
	// healthy cluster: no finding at all).
	IncidentRight = "right"
	// IncidentMissed: no finding, or only findings the grade does not
	// reach.
	IncidentMissed = "missed"
	// IncidentWrongTop: the top finding names another cause or member.
	IncidentWrongTop = "wrong-top"
	// IncidentExtra: the top finding is right but another finding names
	// a different cause.
	IncidentExtra = "extra"
)
