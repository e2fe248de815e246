// Command mydemoctl runs one implementation of the controller benchmark
// (bench/controller) in a process of its own, so that the harness can
// read the controller's own CPU time and peak memory: the mydemo
// controller on ctrlgen, the same controller on client-go, or the floor
// (its writes alone, for the Mydemos the harness says it created). It
// speaks bench/controller/internal/ctlwire's protocol on stdin and
// stdout.
//
//	mydemoctl -impl ctrlgen|client-go|floor -kubeconfig FILE [-workers 16] [-mydemos N]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/types"

	controllerbench "github.com/ctrlgen/ctrlgen/bench/controller"
	"github.com/ctrlgen/ctrlgen/bench/controller/internal/ctlwire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mydemoctl:", err)
		os.Exit(1)
	}
}

// impl is a running implementation.
type impl struct {
	stats func() (controllerbench.ClientStats, error)
	// created and finish are the floor's; nil for the controllers.
	created func(ctlwire.Created)
	finish  func() (time.Time, error)
	stop    func() error
}

func run() error {
	var (
		name       = flag.String("impl", "", "ctrlgen, client-go or floor")
		kubeconfig = flag.String("kubeconfig", "", "kubeconfig of the cluster")
		workers    = flag.Int("workers", controllerbench.Workers, "concurrent reconciles (the floor: writers)")
		mydemos    = flag.Int("mydemos", 5000, "the floor: Mydemos it may be handed before its writers catch up")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *kubeconfig == "" {
		return errors.New("-kubeconfig is required")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	im, err := start(ctx, *name, *kubeconfig, *workers, *mydemos)
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(ctlwire.Report{Phase: ctlwire.PhaseReady}); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		c, isCreated, err := ctlwire.ParseCreated(line)
		switch {
		case err != nil:
			return err
		case isCreated && im.created != nil:
			im.created(c)
		case line == ctlwire.CommandFinish && im.finish != nil:
			last, err := im.finish()
			if err != nil {
				return err
			}
			if err := out.Encode(ctlwire.Report{Phase: ctlwire.PhaseFinished, LastWriteUnixNano: last.UnixNano()}); err != nil {
				return err
			}
		case line == ctlwire.CommandStats:
			s, err := im.stats()
			if err != nil {
				return err
			}
			if err := out.Encode(ctlwire.Report{Phase: ctlwire.PhaseStats, Requests: s.Requests, ThrottleNanos: int64(s.Wait)}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("-impl %s: unexpected command %q", *name, line)
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	return im.stop()
}

// start starts the implementation and returns once it is ready: the
// controllers' caches synced.
func start(ctx context.Context, name, kubeconfig string, workers, mydemos int) (*impl, error) {
	switch name {
	case "ctrlgen":
		c := controllerbench.StartCtrlgen(ctx, kubeconfig, workers)
		if err := c.WaitReady(time.Minute); err != nil {
			c.Stop()
			return nil, err
		}
		return &impl{stats: c.RateLimiterTotals, stop: c.Stop}, nil
	case "client-go":
		clients, stats, err := controllerbench.NewClient(kubeconfig)
		if err != nil {
			return nil, err
		}
		c, err := controllerbench.NewClientGoController(clients, 0)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(ctx)
		c.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx, workers) }()
		stop := func() error { cancel(); return <-done }
		for deadline := time.Now().Add(time.Minute); !c.HasSynced(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				stop()
				return nil, errors.New("the client-go caches did not sync in a minute")
			}
		}
		return &impl{stats: func() (controllerbench.ClientStats, error) { return stats(), nil }, stop: stop}, nil
	case "floor":
		clients, stats, err := controllerbench.NewClient(kubeconfig)
		if err != nil {
			return nil, err
		}
		f := controllerbench.StartFloor(ctx, clients, workers, mydemos)
		return &impl{
			stats: func() (controllerbench.ClientStats, error) { return stats(), nil },
			created: func(c ctlwire.Created) {
				md := controllerbench.NewMydemo(c.Namespace, c.Index)
				md.UID, md.ResourceVersion, md.Generation = types.UID(c.UID), c.ResourceVersion, c.Generation
				f.Add(md)
			},
			finish: f.Finish,
			stop:   func() error { return nil },
		}, nil
	}
	return nil, fmt.Errorf("-impl %q: want ctrlgen, client-go or floor", name)
}
