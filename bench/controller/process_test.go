package controllerbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"

	"github.com/ctrlgen/ctrlgen/bench/controller/internal/ctlwire"
)

// controllerProcess is an implementation running in a process of its own
// (cmd/mydemoctl), so that its CPU time and peak memory are its own.
type controllerProcess struct {
	impl    string
	cmd     *exec.Cmd
	stderr  *tailWriter
	mu      sync.Mutex // one command at a time on stdin
	stdin   io.WriteCloser
	reports chan ctlwire.Report
	readErr error // set before reports is closed
}

// startProcess starts impl's process and waits until it is ready: the
// controllers' caches synced.
func (h *harness) startProcess(tb testing.TB, impl string, n int) *controllerProcess {
	tb.Helper()
	p := &controllerProcess{impl: impl, stderr: &tailWriter{max: 64 << 10}, reports: make(chan ctlwire.Report)}
	p.cmd = exec.Command(h.binary, "-impl", impl, "-kubeconfig", h.kubeconfig,
		"-workers", strconv.Itoa(Workers), "-mydemos", strconv.Itoa(n))
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer close(p.reports)
		dec := json.NewDecoder(bufio.NewReader(stdout))
		for {
			var r ctlwire.Report
			if err := dec.Decode(&r); err != nil {
				p.readErr = err
				return
			}
			p.reports <- r
		}
	}()
	if _, err := p.next(ctlwire.PhaseReady, 2*time.Minute); err != nil {
		p.kill()
		tb.Fatal(err)
	}
	return p
}

func (p *controllerProcess) pid() int { return p.cmd.Process.Pid }

// next waits for the process's next report, which must be of phase.
func (p *controllerProcess) next(phase string, timeout time.Duration) (ctlwire.Report, error) {
	select {
	case r, ok := <-p.reports:
		if !ok {
			return r, fmt.Errorf("%s: no %q report (%v); stderr:\n%s", p.impl, phase, p.readErr, p.stderr)
		}
		if r.Phase != phase {
			return r, fmt.Errorf("%s: report %q, want %q", p.impl, r.Phase, phase)
		}
		return r, nil
	case <-time.After(timeout):
		return ctlwire.Report{}, fmt.Errorf("%s: no %q report after %v; stderr:\n%s", p.impl, phase, timeout, p.stderr)
	}
}

// command sends line and, if phase is set, returns the report it gets.
func (p *controllerProcess) command(line, phase string, timeout time.Duration) (ctlwire.Report, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.stdin, line); err != nil {
		return ctlwire.Report{}, fmt.Errorf("%s: %w; stderr:\n%s", p.impl, err, p.stderr)
	}
	if phase == "" {
		return ctlwire.Report{}, nil
	}
	return p.next(phase, timeout)
}

// created hands the floor a Mydemo whose create returned.
func (p *controllerProcess) created(md *crddemov1.Mydemo) {
	i, err := strconv.Atoi(strings.TrimPrefix(md.Name, "md-"))
	if err != nil {
		panic(fmt.Sprintf("Mydemo %q is not NewMydemo's", md.Name))
	}
	c := ctlwire.Created{Namespace: md.Namespace, Index: i, UID: string(md.UID), ResourceVersion: md.ResourceVersion, Generation: md.Generation}
	// A write error shows in finish, which then gets no report.
	p.command(c.Line(), "", 0)
}

// finish tells the floor no more Mydemos come and returns when its last
// write returned.
func (p *controllerProcess) finish() (time.Time, error) {
	r, err := p.command(ctlwire.CommandFinish+"\n", ctlwire.PhaseFinished, *readyTimeout)
	return time.Unix(0, r.LastWriteUnixNano), err
}

// stats returns the process's client counters.
func (p *controllerProcess) stats() (ClientStats, error) {
	r, err := p.command(ctlwire.CommandStats+"\n", ctlwire.PhaseStats, time.Minute)
	return ClientStats{Requests: r.Requests, Wait: time.Duration(r.ThrottleNanos)}, err
}

// peakRSS is the process's VmHWM so far, in bytes (0 if unknown).
func (p *controllerProcess) peakRSS() int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid()))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stop ends the process's input; it stops its controller, waiting for
// in-flight reconciles, and exits.
func (p *controllerProcess) stop() error {
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("%w; stderr:\n%s", err, p.stderr)
	}
	return nil
}

func (p *controllerProcess) kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = w.buf[over:]
	}
	return len(b), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}
