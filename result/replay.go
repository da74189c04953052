package result

// Replay is how closely a replay (bench replay) reproduced its load
// profile: the same figures derived the same way from the source's
// metrics (the profile) and from the target's during the replay, side by
// side.
type Replay struct {
	// Profile is the profile file's name; Speed and Scale how it was
	// played.
	Profile string  `json:"profile"`
	Speed   float64 `json:"speed"`
	Scale   float64 `json:"scale"`
	// Rows are the figures compared, in the order shown.
	Rows []FidelityRow `json:"rows"`
	// Off counts the rows off by more than their tolerance.
	Off int `json:"off"`
	// Reach says whether the replay reached the profile's rate and, when
	// it did not, why: the target saturated, or the generator's limit
	// (its CPU, or too few clients). "" when the rate was reached.
	Reach string `json:"reach,omitempty"`
	// Preload is what was written before the replay to give the keyspace
	// the census's shape.
	PreloadKeys  int64 `json:"preload_keys,omitempty"`
	PreloadBytes int64 `json:"preload_bytes,omitempty"`
	// Notes say what the comparison could not cover.
	Notes []string `json:"notes,omitempty"`
}

// FidelityRow is one figure of a replay beside the profile's.
type FidelityRow struct {
	// Name is the figure ("put rate", "bytes per Range", "keys"); Unit
	// its unit ("/s", "B", "").
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
	// Want is the profile's figure (a rate times the replay's Scale); Got
	// the target's during the replay.
	Want float64 `json:"want"`
	Got  float64 `json:"got"`
	// Ratio is Got/Want (0 when Want is 0); Tolerance the fraction it may
	// be off (0.10: ±10%); Off that it is.
	Ratio     float64 `json:"ratio"`
	Tolerance float64 `json:"tolerance"`
	Off       bool    `json:"off,omitempty"`
	// Note says what the row assumes or why it is off.
	Note string `json:"note,omitempty"`
}
