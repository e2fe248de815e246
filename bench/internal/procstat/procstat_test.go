package procstat

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func TestSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	m, err := Mem("self")
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.HWM < m.RSS {
		t.Fatalf("Mem(self) = %+v, want 0 < RSS <= HWM", m)
	}
	before, err := CPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until /proc shows at least two ticks more.
	x := 0
	for start := time.Now(); time.Since(start) < 5*time.Second; {
		for i := range 1 << 20 {
			x += i
		}
		now, err := CPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now-before >= 20*time.Millisecond {
			return
		}
	}
	t.Fatalf("CPU(self) did not advance by 20ms in 5s of busy work (%d)", x)
}

func TestMissingProcess(t *testing.T) {
	if _, err := Mem(strconv.Itoa(1 << 30)); err == nil {
		t.Error("Mem of a process that does not exist: no error")
	}
	if _, err := CPU(1 << 30); err == nil {
		t.Error("CPU of a process that does not exist: no error")
	}
}

func TestCPUSum(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, err := CPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// A process that does not exist counts as zero; self twice, twice.
	if sum := CPUSum([]int{os.Getpid(), 1 << 30, os.Getpid()}); sum < 2*self {
		t.Errorf("CPUSum(self, missing, self) = %v, want at least 2 × %v", sum, self)
	}
	if sum := CPUSum(nil); sum != 0 {
		t.Errorf("CPUSum(nil) = %v, want 0", sum)
	}
}
