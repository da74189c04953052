package doctor

import (
	"slices"
	"testing"
)

// TestScores holds the score table complete: every score has a row with
// what it means and a positive number, and no row is left without a
// constant.
func TestScores(t *testing.T) {
	t.Parallel()
	for s := score(1); s < scoreEnd; s++ {
		r, ok := scores[s]
		if !ok || r.what == "" || r.value <= 0 {
			t.Errorf("score %d: incomplete row %+v", s, r)
		}
	}
	if len(scores) != int(scoreEnd)-1 {
		t.Errorf("%d rows for %d scores", len(scores), int(scoreEnd)-1)
	}
}

// TestExplains holds the causal model to the causes: every effect has a
// row, every row names known causes once, and only effectNone is
// explained by nothing.
func TestExplains(t *testing.T) {
	t.Parallel()
	for e := effectNone; e < effectEnd; e++ {
		by, ok := explains[e]
		if !ok {
			t.Errorf("effect %d has no row", e)
		}
		if (len(by) == 0) != (e == effectNone) {
			t.Errorf("effect %d: explained by %v", e, by)
		}
		for i, c := range by {
			if !slices.Contains(Causes(), c) || slices.Contains(by[:i], c) {
				t.Errorf("effect %d: cause %q unknown or twice", e, c)
			}
		}
	}
	if len(explains) != int(effectEnd) {
		t.Errorf("%d rows for %d effects", len(explains), int(effectEnd))
	}
}
