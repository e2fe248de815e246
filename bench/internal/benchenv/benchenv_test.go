package benchenv

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	calls := 0
	err := Poll(context.Background(), time.Minute, "the third call", func() (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Poll = %v after %d calls, want nil after 3", err, calls)
	}
	err = Poll(context.Background(), 50*time.Millisecond, "nothing", func() (bool, error) {
		return false, errors.New("not yet")
	})
	if err == nil || !strings.Contains(err.Error(), "waiting for nothing") || !strings.Contains(err.Error(), "not yet") {
		t.Fatalf("Poll past its timeout = %v, want an error naming what it waited for and cond's last error", err)
	}
}

func TestSettle(t *testing.T) {
	self := []int{os.Getpid()}
	// No process uses a second of CPU in 10ms: three quiet intervals.
	if waited, quiet := Settle(self, 10*time.Millisecond, time.Second, time.Minute); !quiet || waited < 30*time.Millisecond {
		t.Errorf("Settle with a threshold no process reaches = %v, %v; want quiet after at least 30ms", waited, quiet)
	}
	// Nothing uses less than no CPU time: never quiet, given up after the limit.
	if waited, quiet := Settle(self, 10*time.Millisecond, 0, 50*time.Millisecond); quiet || waited < 50*time.Millisecond {
		t.Errorf("Settle with a zero threshold = %v, %v; want not quiet after at least 50ms", waited, quiet)
	}
}
