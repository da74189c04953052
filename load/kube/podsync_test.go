package kube

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRetrySync: a failed pod sync is retried after the backoff until it
// succeeds, and given up only when the run ends (a TokenRequest that met
// an election used to leave its pod never Ready).
func TestRetrySync(t *testing.T) {
	t.Parallel()
	errLeader := errors.New("etcdserver: leader changed")
	for _, tc := range []struct {
		name     string
		failures int
		cancel   bool
		want     error
		calls    int
	}{
		{"first try", 0, false, nil, 1},
		{"two elections", 2, false, nil, 3},
		{"run ends", 1 << 30, true, context.Canceled, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls, waits := 0, 0
			err := retrySync(ctx, func() time.Duration {
				waits++
				if tc.cancel && waits == 3 {
					cancel()
				}
				return time.Millisecond
			}, func() error {
				calls++
				if calls <= tc.failures {
					return errLeader
				}
				return nil
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if tc.calls >= 0 && calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
			if tc.cancel && calls < 3 {
				t.Errorf("gave up after %d calls, before the run ended", calls)
			}
		})
	}
	if d := podSyncBackoff(); d < podWorkerBackOff || d > podWorkerBackOff*3/2 {
		t.Errorf("backoff %v outside [10 s, 15 s]", d)
	}
}
