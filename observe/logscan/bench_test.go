package logscan

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// BenchmarkScan reads a generated log of every format.
func BenchmarkScan(b *testing.B) {
	evs := generate(rand.New(rand.NewPCG(1, 1)), time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC), 60, 20000)
	log := logOf(evs, nil)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, err := Scan(strings.NewReader(log), "m1", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
