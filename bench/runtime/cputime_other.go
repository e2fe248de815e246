//go:build !unix

package runtimebench

import "time"

// CPUTime is not measured on this platform; it is always zero.
func CPUTime() time.Duration { return 0 }
