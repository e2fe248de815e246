// Package ctlwire is what the controller benchmark's harness and its
// controller process (bench/controller/cmd/mydemoctl) say to each other:
// commands on the process's stdin, one per line, and JSON reports on its
// stdout, one per line.
//
//	process → {"phase":"ready"}        the controller's caches have synced (the floor: at once)
//	harness → "created NS I UID RV GEN" the floor only: Mydemo I of namespace NS was created
//	harness → "finish"                  the floor only: no more creates; once its writes are done
//	process → {"phase":"finished",…}    with the time its last write returned
//	harness → "stats"
//	process → {"phase":"stats",…}       its clients' requests and rate-limiter waits so far
//	harness → EOF                       the process stops its controller and exits
package ctlwire

import (
	"fmt"
	"strings"
)

// Phases of a Report.
const (
	PhaseReady    = "ready"
	PhaseFinished = "finished"
	PhaseStats    = "stats"
)

// Report is one line the process writes.
type Report struct {
	Phase string `json:"phase"`
	// LastWriteUnixNano is when the floor's last write returned.
	LastWriteUnixNano int64 `json:"lastWriteUnixNano,omitempty"`
	// Requests and ThrottleNanos are the requests the controller's
	// clients made and the time they waited on their rate limiter.
	Requests      int64 `json:"requests,omitempty"`
	ThrottleNanos int64 `json:"throttleNanos,omitempty"`
}

// Commands the harness sends.
const (
	CommandFinish = "finish"
	CommandStats  = "stats"
)

// Created is the line that hands the floor a created Mydemo.
type Created struct {
	Namespace       string
	Index           int
	UID             string
	ResourceVersion string
	Generation      int64
}

// Line is c as a command line, with its newline.
func (c Created) Line() string {
	return fmt.Sprintf("created %s %d %s %s %d\n", c.Namespace, c.Index, c.UID, c.ResourceVersion, c.Generation)
}

// ParseCreated reads Created's line (without its newline); ok is false if
// line is another command.
func ParseCreated(line string) (c Created, ok bool, err error) {
	if !strings.HasPrefix(line, "created ") {
		return Created{}, false, nil
	}
	if _, err := fmt.Sscanf(line, "created %s %d %s %s %d", &c.Namespace, &c.Index, &c.UID, &c.ResourceVersion, &c.Generation); err != nil {
		return Created{}, true, fmt.Errorf("command %q: %w", line, err)
	}
	return c, true, nil
}
