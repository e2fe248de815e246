package manager

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// hangingLeases makes every Update wait for its context once hang is set,
// as a starved apiserver would.
type hangingLeases struct {
	coordinationv1.LeasesGetter
	hang atomic.Bool
}

func (h *hangingLeases) Leases(ns string) coordinationv1.LeaseInterface {
	return hangingLeaseInterface{h.LeasesGetter.Leases(ns), h}
}

type hangingLeaseInterface struct {
	coordinationv1.LeaseInterface
	h *hangingLeases
}

func (l hangingLeaseInterface) Update(ctx context.Context, lease *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	if l.h.hang.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return l.LeaseInterface.Update(ctx, lease, opts)
}

// A replica whose renewals hang gives its buckets up by RenewDeadline,
// before their Leases can expire for the others, instead of waiting for
// the apiserver to answer.
func TestShardsGiveUpBucketsWhenRenewalsHang(t *testing.T) {
	const renew = 300 * time.Millisecond
	client := &hangingLeases{LeasesGetter: fake.NewClientset().CoordinationV1()}
	s := newShardSet(client, Options{
		LeaderElectionNamespace: "ns", LeaderElectionID: "group", Shards: 2,
		LeaseDuration: 2 * time.Second, RenewDeadline: renew, RetryPeriod: 100 * time.Millisecond,
	}, "host", "member")
	leases := client.Leases("ns")
	ctx := context.Background()
	key := cache.ObjectName{Namespace: "ns", Name: "a"}

	if err := s.tick(ctx, leases); err != nil {
		t.Fatal(err)
	}
	if got := s.held.Load(); got != 2 {
		t.Fatalf("a lone replica holds %d of 2 buckets", got)
	}
	end, ok := s.Begin(key)
	if !ok {
		t.Fatal("a held bucket's key was refused")
	}
	end()

	client.hang.Store(true)
	done := make(chan error, 1)
	go func() { done <- s.tick(ctx, leases) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a tick whose renewals hung reported no error")
		}
	case <-time.After(10 * renew):
		t.Fatalf("the tick still waits for the apiserver %v after the renew deadline", 10*renew)
	}
	if got := s.held.Load(); got != 0 {
		t.Errorf("%d buckets still held after their renew deadline passed", got)
	}
	if _, ok := s.Begin(key); ok {
		t.Error("a key was let in after its bucket's renew deadline passed")
	}
}
