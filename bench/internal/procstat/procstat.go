// Package procstat reads a Linux process's CPU time and memory from /proc:
// what the scale and controller benchmarks measure of their child
// processes and of kube-apiserver.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ClockTicks is USER_HZ, the unit of /proc's CPU times on Linux.
const ClockTicks = 100

// CPU returns the user plus system CPU time process pid has used so far,
// from /proc/<pid>/stat (10 ms resolution).
func CPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command, which is in parentheses: state is
	// field 3, utime 14 and stime 15.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command, want at least 13", pid, len(fields))
	}
	var total time.Duration
	for _, f := range fields[11:13] {
		ticks, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		total += time.Duration(ticks) * time.Second / ClockTicks
	}
	return total, nil
}

// CPUSum is the user plus system CPU time the processes pids have used so
// far, together; a process it cannot read counts as zero.
func CPUSum(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		if cpu, err := CPU(pid); err == nil {
			total += cpu
		}
	}
	return total
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	// RSS is the resident set size now (VmRSS).
	RSS int64
	// HWM is the peak resident set size since the process started (VmHWM).
	HWM int64
}

// Mem reads process pid's VmRSS and VmHWM from /proc/<pid>/status; "self"
// is the calling process.
func Mem(pid string) (Memory, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	var found int
	for line := range strings.Lines(string(raw)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("/proc/%s/status: %s: %w", pid, name, err)
		}
		if name == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.HWM = kb << 10
		}
		found++
	}
	if found != 2 {
		return Memory{}, fmt.Errorf("/proc/%s/status: no VmRSS and VmHWM", pid)
	}
	return m, nil
}
