package controllerbench

import (
	"context"
	"fmt"
	"time"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// Ctrlgen is the mydemo controller as ctrlgen ships it: mydemo.Init (the
// generated wiring around reconcile.go, on runtime/controller) run by
// runtime/manager, as examples/mydemo/main.go runs it, with the manager's
// default options except: Workers, no leader election (the client-go
// controller has none either), and no metrics or health servers.
type Ctrlgen struct {
	m      *manager.Manager
	cancel context.CancelFunc
	done   chan error
}

// StartCtrlgen starts the manager on kubeconfig with the mydemo
// controller; it runs until Stop.
func StartCtrlgen(ctx context.Context, kubeconfig string, workers int) *Ctrlgen {
	return StartCtrlgenWith(ctx, kubeconfig, workers, mydemo.Init)
}

// StartCtrlgenWith is StartCtrlgen with the controller init builds (under
// the mydemo controller's name), e.g. InitUpdateWrites.
func StartCtrlgenWith(ctx context.Context, kubeconfig string, workers int, init manager.InitFunc) *Ctrlgen {
	o := manager.DefaultOptions()
	o.Kubeconfig = kubeconfig
	o.Workers = workers
	o.LeaderElect = false
	o.MetricsAddr, o.HealthAddr = "", ""
	m := manager.New(o)
	m.Register(mydemo.ControllerName, init)
	ctx, cancel := context.WithCancel(ctx)
	c := &Ctrlgen{m: m, cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- m.Run(ctx) }()
	return c
}

// WaitReady waits until the manager's informers have synced (its
// /readyz), the manager has failed, or timeout passes.
func (c *Ctrlgen) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !c.m.Ready() {
		select {
		case err := <-c.done:
			c.done <- err
			return fmt.Errorf("the manager stopped before it was ready: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the manager was not ready after %v", timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Stop stops the manager and waits for in-flight reconciles.
func (c *Ctrlgen) Stop() error {
	c.cancel()
	return <-c.done
}

// RateLimiterTotals sums, over every verb, the manager's
// rest_client_rate_limiter_duration_seconds histogram: the number of
// requests that went through a client-side rate limiter and the time
// they waited there. client-go's client metrics are process-wide, so this
// counts every client of the process, not only the manager's.
func (c *Ctrlgen) RateLimiterTotals() (ClientStats, error) {
	families, err := c.m.Registry().Gather()
	if err != nil {
		return ClientStats{}, err
	}
	var s ClientStats
	for _, f := range families {
		if f.GetName() != "rest_client_rate_limiter_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			s.Requests += int64(h.GetSampleCount())
			s.Wait += time.Duration(h.GetSampleSum() * float64(time.Second))
		}
	}
	return s, nil
}
