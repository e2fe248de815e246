// Package benchenv is what the benchmarks that run on a local control
// plane (testenv: bench/controller and bench/scale) share around it: one
// control plane per test process, started on first use and stopped at
// its end; the rounds of a benchmark run as one process; examples/mydemo's
// CRD; and waiting for the control plane to go idle between runs. Each
// package's harness keeps what it starts and measures.
package benchenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// Shared holds the harness H the tests and benchmarks of one process
// share: started by the first Get, stopped by Main once they have run.
type Shared[H interface{ Stop() error }] struct {
	once    sync.Once
	h       H
	err     error
	started bool
}

// Get returns the harness, calling start the first time. It skips tb in
// -short mode, saying what the harness needs, and fails tb if start
// failed (then and on every later call).
func (s *Shared[H]) Get(tb testing.TB, needs string, start func() (H, error)) H {
	tb.Helper()
	if testing.Short() {
		tb.Skip(needs + "; skipped with -short")
	}
	s.once.Do(func() {
		s.h, s.err = start()
		s.started = s.err == nil
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.h
}

// Main is a TestMain's end: it runs the tests and benchmarks in rounds
// (see Rounds), stops the harness if one was started, and exits with the
// tests' status.
func (s *Shared[H]) Main(m *testing.M) {
	code := Rounds(m)
	if s.started {
		if err := s.h.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}
	os.Exit(code)
}

// Rounds parses the flags and runs m, returning its status. With
// -test.bench and -test.count N > 1 it calls m.Run N times with
// -test.count 1, the tests only the first time, stopping at the first
// failure: Go runs the N repetitions of a sub-benchmark back to back (all
// of one implementation's runs, then all of the next's), so a change in
// the machine's load during the hour would fall on one implementation.
// This way each round runs every implementation once, and a benchmark
// can rotate which goes first.
func Rounds(m *testing.M) int {
	flag.Parse()
	rounds := 1
	if bench, count := flag.Lookup("test.bench"), flag.Lookup("test.count"); bench != nil && count != nil && bench.Value.String() != "" {
		if n, err := strconv.Atoi(count.Value.String()); err == nil && n > 1 {
			rounds = n
			count.Value.Set("1")
		}
	}
	code := 0
	for r := 0; r < rounds && code == 0; r++ {
		if r == 1 {
			flag.Set("test.run", "^$")
		}
		code = m.Run()
	}
	return code
}

// InstallMydemoCRD creates examples/mydemo's CRD with cfg, unless it
// exists, and waits, at most a minute, until client serves Mydemos. It
// reads the CRD relative to the working directory, a package directory
// of the bench module as go test runs it.
func InstallMydemoCRD(ctx context.Context, cfg *rest.Config, client versioned.Interface) error {
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "mydemo", "config", "crd", "crddemo.k8s.io_mydemos.yaml"))
	if err != nil {
		return err
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(gvr).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the Mydemo CRD: %w", err)
	}
	return Poll(ctx, time.Minute, "the Mydemo CRD to be served", func() (bool, error) {
		_, err := client.CrddemoV1().Mydemos(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, err
	})
}

// Poll calls cond every 20ms until it holds, failing after timeout with
// cond's last error.
func Poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(ctx.Err(), last))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ControlPlanePIDs are the process ids of env's running components:
// etcd, kube-apiserver and, if it runs, kube-controller-manager.
func ControlPlanePIDs(env *testenv.Env) []int {
	var pids []int
	for _, pid := range env.PIDs() {
		pids = append(pids, pid)
	}
	return pids
}

// Settle waits until the processes pids together use less than threshold
// of CPU time in each of three intervals in a row, at most about limit:
// the last run's work may still be going through the control plane. It
// returns how long it waited and whether they went quiet.
func Settle(pids []int, interval, threshold, limit time.Duration) (waited time.Duration, quiet bool) {
	start := time.Now()
	prev := procstat.CPUSum(pids)
	for still := 0; still < 3; {
		if time.Since(start) > limit {
			return time.Since(start), false
		}
		time.Sleep(interval)
		cur := procstat.CPUSum(pids)
		if cur-prev < threshold {
			still++
		} else {
			still = 0
		}
		prev = cur
	}
	return time.Since(start), true
}

// EnvInt is the positive integer in the environment variable name, or def.
func EnvInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return def
}
