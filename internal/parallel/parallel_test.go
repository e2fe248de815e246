package parallel

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestForCallsEachIndexOnceAndJoinsErrorsInOrder(t *testing.T) {
	const n = 1000
	var calls [n]atomic.Int32
	errA, errB := errors.New("a"), errors.New("b")
	err := For(n, func(i int) error {
		calls[i].Add(1)
		switch i {
		case 7:
			return errA
		case 900:
			return errB
		}
		return nil
	})
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("index %d called %d times", i, c)
		}
	}
	if err == nil || err.Error() != "a\nb" || !errors.Is(err, errA) || !errors.Is(err, errB) {
		t.Errorf("error %q, want a then b joined", err)
	}
	if err := For(0, func(int) error { t.Error("called for n = 0"); return nil }); err != nil {
		t.Errorf("n = 0: %v", err)
	}
}
