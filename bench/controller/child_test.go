package controllerbench

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
)

// Each implementation runs in a process of its own: this test binary,
// started again with childImpl set, so that its CPU time and peak memory
// are the controller's alone (the creator and the watcher stay in the
// benchmark's process). The two talk in JSON lines: the benchmark sends
// commands on the child's stdin, the child answers each on its stdout.
const (
	childImpl       = "CTRLBENCH_CHILD_IMPL"
	childKubeconfig = "CTRLBENCH_CHILD_KUBECONFIG"
	childN          = "CTRLBENCH_CHILD_N"
	// childCPUProfile, when set, is the file the child writes a CPU
	// profile of its run to, from "ready" to "stop".
	childCPUProfile = "CTRLBENCH_CHILD_CPUPROFILE"
)

// childCommand is what the benchmark asks: "stats" (the client's totals
// so far), "add" (the floor: write Mydemo), "finish" (the floor: the
// last write done) or "stop" (wait until the client is idle, stop, and
// report).
type childCommand struct {
	Cmd    string            `json:"cmd"`
	Mydemo *crddemov1.Mydemo `json:"mydemo,omitempty"`
}

// childReply answers a command, and says "ready" once the child's caches
// have synced. Stats are the client's totals after the command; PeakRSS
// is the child's VmHWM, in bytes, at "stop".
type childReply struct {
	Event     string      `json:"event"`
	Stats     ClientStats `json:"stats"`
	LastWrite time.Time   `json:"lastWrite,omitzero"`
	PeakRSS   int64       `json:"peakRSS,omitempty"`
	Err       string      `json:"err,omitempty"`
}

// child is the benchmark's end of a running implementation.
type child struct {
	impl    string
	cmd     *exec.Cmd
	mu      sync.Mutex // one command at a time
	in      io.WriteCloser
	enc     *json.Encoder
	addErr  error // the first failed add
	replies chan childReply
	// exited is closed when the process has exited, with its error in
	// exitErr; readErr is why replies was closed.
	exited           chan struct{}
	exitErr, readErr error
}

// replyTimeout bounds the wait for any answer but "ready" and "stop"'s:
// "finish" waits for the floor's writes.
const replyTimeout = 15 * time.Minute

// startChild starts impl in its own process against kubeconfig and waits
// for its caches, at most timeout. With cpuProfile set, the child writes
// a CPU profile of its run to that file.
func startChild(impl, kubeconfig string, n int, timeout time.Duration, cpuProfile string) (*child, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), childImpl+"="+impl, childKubeconfig+"="+kubeconfig, childN+"="+strconv.Itoa(n))
	if cpuProfile != "" {
		cmd.Env = append(cmd.Env, childCPUProfile+"="+cpuProfile)
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Not cmd.StdoutPipe: Wait closes that pipe as soon as the process
	// has exited, and a reply written just before exiting (stop's) would
	// then be lost unread. This end stays open until the reader is done.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, err
	}
	c := &child{impl: impl, cmd: cmd, in: in, enc: json.NewEncoder(in), replies: make(chan childReply), exited: make(chan struct{})}
	go func() {
		defer close(c.replies)
		defer out.Close()
		dec := json.NewDecoder(bufio.NewReader(out))
		for {
			var r childReply
			if err := dec.Decode(&r); err != nil {
				c.readErr = err
				return
			}
			c.replies <- r
		}
	}()
	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	r, err := c.read("ready", timeout)
	if err == nil && r.Event != "ready" {
		err = fmt.Errorf("%s: said %q before ready", impl, r.Event)
	}
	if err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

func (c *child) PID() int { return c.cmd.Process.Pid }

func (c *child) kill() {
	c.cmd.Process.Kill()
	<-c.exited
}

// read waits for the answer to what, at most timeout; a child that dies
// or falls silent is killed and says why.
func (c *child) read(what string, timeout time.Duration) (childReply, error) {
	select {
	case r, ok := <-c.replies:
		switch {
		case !ok:
			<-c.exited
			return r, fmt.Errorf("%s: no %s: the process ended (%v) and its output with %v", c.impl, what, c.exitErr, c.readErr)
		case r.Err != "":
			return r, fmt.Errorf("%s: %s: %s", c.impl, what, r.Err)
		}
		return r, nil
	case <-time.After(timeout):
		c.kill()
		return childReply{}, fmt.Errorf("%s: no %s after %v; killed", c.impl, what, timeout)
	}
}

// call sends a command and reads its answer.
func (c *child) call(cmd string) (childReply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addErr != nil {
		return childReply{}, fmt.Errorf("%s: handing it a Mydemo: %w", c.impl, c.addErr)
	}
	if err := c.enc.Encode(childCommand{Cmd: cmd}); err != nil {
		return childReply{}, fmt.Errorf("%s: sending %s: %w", c.impl, cmd, err)
	}
	return c.read(cmd, replyTimeout)
}

// add hands the floor a created Mydemo; it is not answered. A failure is
// kept for the next call to report.
func (c *child) add(md *crddemov1.Mydemo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(childCommand{Cmd: "add", Mydemo: md}); err != nil && c.addErr == nil {
		c.addErr = err
	}
}

// stop stops the implementation and waits for its process.
func (c *child) stop() (childReply, error) {
	r, err := c.call("stop")
	c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		c.kill()
	}
	if err == nil {
		err = c.exitErr
	}
	return r, err
}

// runChild is the child's side: it runs impl until told to stop.
func runChild(impl string) error {
	kubeconfig := os.Getenv(childKubeconfig)
	n, err := strconv.Atoi(os.Getenv(childN))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		stats func() (ClientStats, error)
		stop  func() error
		floor *Floor
	)
	out := json.NewEncoder(os.Stdout)
	switch impl {
	case implCtrlgen, implCtrlgenUpdate:
		init := mydemo.Init
		if impl == implCtrlgenUpdate {
			init = InitUpdateWrites
		}
		// The manager's client is the only one in this process, so the
		// process-wide client metrics are its own.
		c := StartCtrlgenWith(ctx, kubeconfig, Workers, init)
		stats, stop = c.RateLimiterTotals, c.Stop
		if err := c.WaitReady(time.Minute); err != nil {
			c.Stop()
			return err
		}
	case implClientGo, implClientGoClientGen:
		newClient := NewClient
		if impl == implClientGoClientGen {
			newClient = NewClientGenClient
		}
		client, clientStats, err := newClient(kubeconfig)
		if err != nil {
			return err
		}
		c, err := NewClientGoController(client, 0)
		if err != nil {
			return err
		}
		c.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx, Workers) }()
		stats = func() (ClientStats, error) { return clientStats(), nil }
		stop = func() error { cancel(); return <-done }
		if err := benchenv.Poll(ctx, time.Minute, "the client-go caches to sync", func() (bool, error) { return c.HasSynced(), nil }); err != nil {
			stop()
			return err
		}
	case implFloor:
		client, clientStats, err := NewClient(kubeconfig)
		if err != nil {
			return err
		}
		floor = StartFloor(ctx, client, Workers, n)
		stats = func() (ClientStats, error) { return clientStats(), nil }
		stop = func() error { cancel(); return nil }
	case implNone:
		stats = func() (ClientStats, error) { return ClientStats{}, nil }
		stop = func() error { return nil }
	default:
		return fmt.Errorf("unknown implementation %q", impl)
	}
	stopProfile, err := startProfile(os.Getenv(childCPUProfile))
	if err != nil {
		stop()
		return err
	}
	defer stopProfile()
	if err := out.Encode(childReply{Event: "ready"}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	for {
		var cmd childCommand
		if err := dec.Decode(&cmd); err != nil {
			stop()
			return fmt.Errorf("reading a command: %w", err)
		}
		r := childReply{Event: cmd.Cmd}
		var err error
		switch cmd.Cmd {
		case "add":
			floor.Add(cmd.Mydemo)
			continue
		case "stats":
		case "finish":
			r.LastWrite, err = floor.Finish()
		case "stop":
			if impl != implNone {
				quiesce(stats)
			}
			err = errors.Join(stop(), stopProfile())
			if mem, merr := procstat.Mem("self"); merr == nil {
				r.PeakRSS = mem.HWM
			}
		default:
			err = fmt.Errorf("unknown command %q", cmd.Cmd)
		}
		if s, serr := stats(); serr == nil {
			r.Stats = s
		} else {
			err = errors.Join(err, serr)
		}
		if err != nil {
			r.Err = err.Error()
		}
		if err := out.Encode(r); err != nil || cmd.Cmd == "stop" {
			return err
		}
	}
}

// startProfile starts a CPU profile of the process into path, if path is
// set, and returns what stops and writes it; only its first call does.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return sync.OnceValue(func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}), nil
}

// TestChildStopReplyIsRead stops children that exit the moment they have
// answered "stop", as every implementation does: the answer must be read
// however soon the process is gone. It once was lost when Wait closed the
// pipe before the reply was read: this test then failed on its first stop
// with GOMAXPROCS=1 and the CPUs busy, and passed 100 stops on an idle
// machine.
func TestChildStopReplyIsRead(t *testing.T) {
	stops := 100
	if raceEnabled {
		stops = 10 // a child built with -race takes about a second to start
	}
	for i := range stops {
		c, err := startChild(implNone, "", 0, time.Minute, "")
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.stop()
		if err != nil {
			t.Fatalf("stop %d: %v", i, err)
		}
		if r.Event != "stop" {
			t.Fatalf("stop %d: the answer was %q", i, r.Event)
		}
	}
}

// TestChildProfilesOnlyMeasuredRuns: a child started to be profiled
// writes its CPU profile, complete once it has stopped; one started
// otherwise (the warm-up, the tests) writes none.
func TestChildProfilesOnlyMeasuredRuns(t *testing.T) {
	dir := t.TempDir()
	for _, profile := range []string{"", filepath.Join(dir, implNone+"-r0.cpu.pprof")} {
		c, err := startChild(implNone, "", 0, time.Minute, profile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.stop(); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), implNone+"-") || !strings.HasSuffix(files[0], ".cpu.pprof") {
		t.Fatalf("profiles written: %v; want one %s-*.cpu.pprof", files, implNone)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A profile is gzipped protobuf: a truncated one fails to inflate.
	zr, err := gzip.NewReader(f)
	if err == nil {
		var n int64
		n, err = io.Copy(io.Discard, zr)
		if err == nil && n == 0 {
			err = errors.New("empty")
		}
	}
	if err != nil {
		t.Errorf("%s is no complete profile: %v", files[0], err)
	}
}
