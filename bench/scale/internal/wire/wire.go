// Package wire is what the scale benchmark's informer process
// (bench/scale/cmd/informer) and its harness say to each other: commands
// on the process's stdin, one per line, and JSON reports on its stdout,
// one per line.
//
//	process → {"phase":"synced",…}    the informer has synced, every add delivered
//	harness → "updates K"             arm for K updates, then
//	process → {"phase":"armed"}       the harness starts writing
//	process → {"phase":"updated",…}   the K-th update was delivered
//	harness → EOF                     the process writes its profiles and exits
package wire

import "fmt"

// Phases of a Report.
const (
	PhaseSynced  = "synced"
	PhaseArmed   = "armed"
	PhaseUpdated = "updated"
)

// Report is one line the informer process writes.
type Report struct {
	Phase string `json:"phase"`

	// Synced:

	// Objects is the number of objects in the informer's store when it
	// synced; Adds the adds its handler got, which the process waits
	// to equal Objects.
	Objects int `json:"objects,omitempty"`
	Adds    int `json:"adds,omitempty"`
	// SyncNanos is from starting the informer to synced with every add
	// delivered; SyncCPUNanos the process's CPU time in that span.
	SyncNanos    int64 `json:"syncNanos,omitempty"`
	SyncCPUNanos int64 `json:"syncCPUNanos,omitempty"`
	// DeliveredNanos and DeliveredCPUNanos are SyncNanos and
	// SyncCPUNanos up to every add of the initial list delivered, for the
	// sides whose synced does not wait for that (the drop-in sides: the
	// factory's WaitForCacheSync waits for the informer only); 0 for the
	// others, whose synced is that moment already.
	DeliveredNanos    int64 `json:"deliveredNanos,omitempty"`
	DeliveredCPUNanos int64 `json:"deliveredCPUNanos,omitempty"`
	// PeakRSS is VmHWM at synced (at delivered where there is one), in
	// bytes.
	PeakRSS int64 `json:"peakRSS,omitempty"`

	// Updated:

	// Updates is the number of updates delivered since armed;
	// LastDeliveryUnixNano when the last of them reached the handler;
	// CPUNanos the process's CPU time from armed to then.
	Updates              int   `json:"updates,omitempty"`
	LastDeliveryUnixNano int64 `json:"lastDeliveryUnixNano,omitempty"`
	CPUNanos             int64 `json:"cpuNanos,omitempty"`

	// Synced and updated, measured after the phase, after runtime.GC and
	// debug.FreeOSMemory:

	// RSS is VmRSS, Heap runtime.MemStats.HeapAlloc, in bytes.
	RSS  int64 `json:"rss,omitempty"`
	Heap int64 `json:"heap,omitempty"`
}

// UpdatesCommand is the line that arms the process for n updates.
func UpdatesCommand(n int) string { return fmt.Sprintf("updates %d\n", n) }

// ParseUpdatesCommand reads UpdatesCommand's line (without its newline).
func ParseUpdatesCommand(line string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(line, "updates %d", &n); err != nil {
		return 0, fmt.Errorf("command %q: want \"updates N\": %w", line, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("command %q: want a positive number of updates", line)
	}
	return n, nil
}
