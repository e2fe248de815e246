package manager

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/uuid"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// ErrLeaseLost is returned by Run when the lease is lost and
// ExitOnLostLease is set.
var ErrLeaseLost = errors.New("leader election lost")

// lead campaigns for the Lease and runs the controllers while holding it.
// When the lease is lost the controllers stop and drain, and the manager
// campaigns again, unless ExitOnLostLease is set.
func (m *Manager) lead(ctx context.Context, cfg *rest.Config, runs []Runnable) error {
	logger := klog.FromContext(ctx)
	client, err := coordinationv1.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return fmt.Errorf("leader election client: %w", err)
	}
	host, _ := os.Hostname()
	identity := host + "_" + string(uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metaFor(m.opts.LeaderElectionNamespace, m.opts.LeaderElectionID),
		Client:     client,
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	for {
		var runErr error
		termDone := make(chan struct{})
		started := make(chan struct{})
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   m.opts.LeaseDuration,
			RenewDeadline:   m.opts.RenewDeadline,
			RetryPeriod:     m.opts.RetryPeriod,
			ReleaseOnCancel: true,
			Name:            m.opts.LeaderElectionID,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(termCtx context.Context) {
					defer close(termDone)
					close(started)
					logger.Info("Became leader; starting controllers", "identity", identity)
					m.leading.Set(1)
					runErr = m.runControllers(termCtx, runs)
				},
				OnStoppedLeading: func() { m.leading.Set(0) },
			},
		})
		if err != nil {
			return fmt.Errorf("leader election: %w", err)
		}
		le.Run(ctx)
		select {
		case <-started:
			<-termDone // the term's controllers have drained
		default:
		}
		if ctx.Err() != nil {
			return nil
		}
		if runErr != nil {
			return runErr
		}
		if m.opts.ExitOnLostLease {
			return ErrLeaseLost
		}
		logger.Info("Lost the lease; controllers stopped, campaigning again", "identity", identity)
	}
}

// runSharded runs the controllers on this replica for the buckets it
// holds, campaigning for its share of them until ctx is done. The
// controllers drain before the buckets are released, so that the replicas
// taking them over never reconcile a key this one still is.
func (m *Manager) runSharded(ctx context.Context, cfg *rest.Config, runs []Runnable) error {
	client, err := coordinationv1.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return fmt.Errorf("shard leases client: %w", err)
	}
	host, _ := os.Hostname()
	s := newShardSet(client, m.opts, host, string(uuid.NewUUID()))
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ctrlgen_shard_buckets_held", Help: "Buckets of the key space this replica holds."},
			func() float64 { return float64(s.held.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ctrlgen_shard_handovers_total", Help: "Buckets this replica has gained or given up."},
			func() float64 { return float64(s.handovers.Load()) }),
	)
	campaign, stopCampaign := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); s.run(campaign) }()
	err = m.runControllers(controller.WithShards(ctx, s), runs)
	stopCampaign()
	<-done
	s.shutdown()
	return err
}
