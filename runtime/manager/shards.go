package manager

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// Labels of the Leases of a sharded manager.
const (
	labelShardGroup = "ctrlgen.io/shard-group"
	labelShardRole  = "ctrlgen.io/shard-role"
	roleMember      = "member"
	roleBucket      = "bucket"
)

// shardSet campaigns for buckets of the key space, each a Lease
// "<group>-shard-<i>", and implements controller.Shards with the buckets
// it holds. Every replica renews a membership Lease
// "<group>-member-<identity>", counts the live ones, and holds at most
// ceil(buckets/members) buckets, so that they spread; a replica over its
// share gives the surplus up, one that has room takes free or expired
// buckets.
//
// A bucket is given up (stops taking keys, waits for its reconciles to end)
// before its Lease is released, and, when renewing fails, RenewDeadline
// after the last renewal, before the Lease (LeaseDuration) can expire for
// the others: no key is reconciled by two replicas at once.
type shardSet struct {
	client    coordinationv1.LeasesGetter
	namespace string
	group     string
	identity  string
	// member names the membership Lease: a UUID, which the identity holds
	// too, since a host name may not be valid in a Lease name.
	member string
	n      int
	lease  time.Duration
	renew  time.Duration
	retry  time.Duration
	now    func() time.Time

	buckets []*bucket

	mu     sync.Mutex
	gainFn map[int]func(owns func(cache.ObjectName) bool)
	nextID int

	held      atomic.Int64
	handovers atomic.Int64
}

type bucket struct {
	// mu is held for reading by each reconcile in the bucket, and for
	// writing to give the bucket up once they have ended.
	mu        sync.RWMutex
	held      atomic.Bool
	lastRenew time.Time // only the campaign loop touches it
}

func newShardSet(client coordinationv1.LeasesGetter, opts Options, host, id string) *shardSet {
	s := &shardSet{
		client: client, namespace: opts.LeaderElectionNamespace, group: opts.LeaderElectionID, identity: host + "_" + id, member: id,
		n: opts.Shards, lease: opts.LeaseDuration, renew: opts.RenewDeadline, retry: opts.RetryPeriod, now: time.Now,
		gainFn: map[int]func(func(cache.ObjectName) bool){},
	}
	for range s.n {
		s.buckets = append(s.buckets, &bucket{})
	}
	return s
}

var _ controller.Shards = (*shardSet)(nil)

func (s *shardSet) Begin(key cache.ObjectName) (func(), bool) {
	b := s.buckets[controller.Bucket(key, s.n)]
	b.mu.RLock()
	if !b.held.Load() {
		b.mu.RUnlock()
		return nil, false
	}
	return b.mu.RUnlock, true
}

func (s *shardSet) OnGain(queue func(owns func(cache.ObjectName) bool)) func() {
	s.mu.Lock()
	id := s.nextID
	s.nextID++
	s.gainFn[id] = queue
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.gainFn, id)
		s.mu.Unlock()
	}
}

// gain takes bucket i's keys; now is the renew time its Lease was
// acquired with, from which its RenewDeadline counts.
func (s *shardSet) gain(i int, now time.Time) {
	b := s.buckets[i]
	b.held.Store(true)
	b.lastRenew = now
	s.held.Add(1)
	s.handovers.Add(1)
	s.mu.Lock()
	fns := make([]func(func(cache.ObjectName) bool), 0, len(s.gainFn))
	for _, f := range s.gainFn {
		fns = append(fns, f)
	}
	s.mu.Unlock()
	owns := func(k cache.ObjectName) bool { return controller.Bucket(k, s.n) == i }
	for _, f := range fns {
		f(owns)
	}
}

// drop stops taking bucket i's keys and waits for its reconciles to end.
func (s *shardSet) drop(i int) {
	b := s.buckets[i]
	if !b.held.Swap(false) {
		return
	}
	b.mu.Lock()
	b.mu.Unlock() //nolint:staticcheck // waiting for the readers is the point
	s.held.Add(-1)
	s.handovers.Add(1)
}

func (s *shardSet) leaseName(i int) string { return s.group + "-shard-" + strconv.Itoa(i) }
func (s *shardSet) memberName() string     { return s.group + "-member-" + s.member }

// run campaigns until ctx is done. It then gives up and releases every
// bucket and its membership, so that the others take over at once; the
// caller stops the controllers first.
func (s *shardSet) run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("shardGroup", s.group, "identity", s.identity)
	logger.Info("Campaigning for shard buckets", "buckets", s.n, "namespace", s.namespace)
	leases := s.client.Leases(s.namespace)
	changed := make(chan struct{}, 1)
	go s.watchLeases(ctx, changed)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-changed:
		}
		if err := s.tick(ctx, leases); err != nil && ctx.Err() == nil {
			if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) {
				logger.Error(err, "Shard campaign")
			} else {
				logger.V(2).Info("Shard campaign", "err", err.Error())
			}
		}
		t.Reset(s.retry)
	}
}

// watchLeases signals changed when the group's Leases change in a way
// that can change this replica's share: a member joins or leaves, or a
// bucket is released or deleted. Renewals do not signal: every replica
// renews every RetryPeriod, and ticking on them would make the replicas
// tick on each other's ticks.
func (s *shardSet) watchLeases(ctx context.Context, changed chan<- struct{}) {
	sel := labels.SelectorFromSet(labels.Set{labelShardGroup: s.group}).String()
	for ctx.Err() == nil {
		w, err := s.client.Leases(s.namespace).Watch(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.retry):
			}
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				break
			}
			if l, ok := ev.Object.(*coordv1.Lease); ok && shareMayChange(ev.Type, l) {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
		w.Stop()
	}
}

func shareMayChange(t watch.EventType, l *coordv1.Lease) bool {
	switch t {
	case watch.Added:
		return l.Labels[labelShardRole] == roleMember
	case watch.Deleted:
		return true
	case watch.Modified:
		return l.Labels[labelShardRole] == roleBucket && ptr.Deref(l.Spec.HolderIdentity, "") == ""
	}
	return false
}

func (s *shardSet) tick(ctx context.Context, leases coordinationv1.LeaseInterface) error {
	now := s.now()
	// A slow apiserver must not keep a bucket past its RenewDeadline: the
	// tick's calls end by the earliest deadline of the buckets held, and
	// those not renewed by then are given up.
	ctx, cancel := context.WithDeadline(ctx, s.renewBy(now))
	defer cancel()
	if err := s.renewMembership(ctx, leases, now); err != nil {
		s.expireUnrenewed(s.now())
		return err
	}
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{labelShardGroup: s.group}).String()})
	if err != nil {
		s.expireUnrenewed(s.now())
		return err
	}
	members := 0
	byName := map[string]*coordv1.Lease{}
	for i := range list.Items {
		l := &list.Items[i]
		byName[l.Name] = l
		if l.Labels[labelShardRole] == roleMember && (l.Name == s.memberName() || !s.expired(l, now)) {
			members++
		}
	}
	share := (s.n + members - 1) / max(members, 1)

	var held []int
	for i, b := range s.buckets {
		if !b.held.Load() {
			continue
		}
		if err := s.renewBucket(ctx, leases, byName[s.leaseName(i)], now); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || errLost(err) {
				s.drop(i) // someone else has it
				continue
			}
			if !s.now().Before(s.renewDeadline(b)) {
				s.drop(i)
			}
			continue
		}
		b.lastRenew = now
		held = append(held, i)
	}
	// Over the share: give up the last ones.
	for len(held) > share {
		i := held[len(held)-1]
		held = held[:len(held)-1]
		s.drop(i)
		s.release(ctx, leases, i)
	}
	// Room: take free or expired buckets, starting at a place of our own
	// so that replicas starting together do not all race for bucket 0.
	start := controller.Bucket(cache.ObjectName{Name: s.identity}, s.n)
	for k := 0; k < s.n && len(held) < share; k++ {
		i := (start + k) % s.n
		if s.buckets[i].held.Load() {
			continue
		}
		l := byName[s.leaseName(i)]
		if l != nil && !s.free(l, now) {
			continue
		}
		if err := s.acquire(ctx, leases, i, l, now); err != nil {
			continue
		}
		s.gain(i, now)
		held = append(held, i)
	}
	return nil
}

// renewBy is when the first held bucket reaches its RenewDeadline, or a
// RenewDeadline from now if none is held.
func (s *shardSet) renewBy(now time.Time) time.Time {
	by := now.Add(s.renew)
	for _, b := range s.buckets {
		if b.held.Load() && s.renewDeadline(b).Before(by) {
			by = s.renewDeadline(b)
		}
	}
	return by
}

// renewDeadline is when held bucket b is given up unless renewed.
func (s *shardSet) renewDeadline(b *bucket) time.Time { return b.lastRenew.Add(s.renew) }

// expireUnrenewed gives up the buckets not renewed for RenewDeadline.
func (s *shardSet) expireUnrenewed(now time.Time) {
	for i, b := range s.buckets {
		if b.held.Load() && !now.Before(s.renewDeadline(b)) {
			s.drop(i)
		}
	}
}

func (s *shardSet) expired(l *coordv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second))
}

func (s *shardSet) free(l *coordv1.Lease, now time.Time) bool {
	return l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || s.expired(l, now)
}

type lostError struct{ holder string }

func (e lostError) Error() string { return "bucket held by " + e.holder }

func errLost(err error) bool { _, ok := err.(lostError); return ok }

func (s *shardSet) spec(now time.Time) coordv1.LeaseSpec {
	return coordv1.LeaseSpec{
		HolderIdentity:       ptr.To(s.identity),
		LeaseDurationSeconds: ptr.To(int32(s.lease / time.Second)),
		RenewTime:            &metav1.MicroTime{Time: now},
		AcquireTime:          &metav1.MicroTime{Time: now},
	}
}

func (s *shardSet) meta(name, role string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.namespace, Labels: map[string]string{labelShardGroup: s.group, labelShardRole: role}}
}

func (s *shardSet) renewMembership(ctx context.Context, leases coordinationv1.LeaseInterface, now time.Time) error {
	l, err := leases.Get(ctx, s.memberName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordv1.Lease{ObjectMeta: s.meta(s.memberName(), roleMember), Spec: s.spec(now)}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &metav1.MicroTime{Time: now}
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

func (s *shardSet) renewBucket(ctx context.Context, leases coordinationv1.LeaseInterface, l *coordv1.Lease, now time.Time) error {
	if l == nil {
		return apierrors.NewNotFound(coordv1.Resource("leases"), "")
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != s.identity {
		return lostError{ptr.Deref(l.Spec.HolderIdentity, "")}
	}
	l = l.DeepCopy()
	l.Spec.RenewTime = &metav1.MicroTime{Time: now}
	_, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// acquire takes bucket i's Lease l (nil: none yet) with an optimistic
// write: of two replicas that try at once, one gets a conflict.
func (s *shardSet) acquire(ctx context.Context, leases coordinationv1.LeaseInterface, i int, l *coordv1.Lease, now time.Time) error {
	if l == nil {
		_, err := leases.Create(ctx, &coordv1.Lease{ObjectMeta: s.meta(s.leaseName(i), roleBucket), Spec: s.spec(now)}, metav1.CreateOptions{})
		return err
	}
	l = l.DeepCopy()
	transitions := ptr.Deref(l.Spec.LeaseTransitions, 0) + 1
	l.Spec = s.spec(now)
	l.Spec.LeaseTransitions = &transitions
	_, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// release empties bucket i's Lease if this replica still holds it.
func (s *shardSet) release(ctx context.Context, leases coordinationv1.LeaseInterface, i int) {
	l, err := leases.Get(ctx, s.leaseName(i), metav1.GetOptions{})
	if err != nil || ptr.Deref(l.Spec.HolderIdentity, "") != s.identity {
		return
	}
	l.Spec.HolderIdentity = nil
	l.Spec.RenewTime = nil
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		klog.FromContext(ctx).V(2).Info("Releasing a shard", "lease", l.Name, "err", err.Error())
	}
}

// shutdown gives up and releases every bucket and deletes the membership
// Lease, with a context of its own: ctx is already done.
func (s *shardSet) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), s.renew)
	defer cancel()
	leases := s.client.Leases(s.namespace)
	var held []int
	for i := range s.buckets {
		if s.buckets[i].held.Load() {
			held = append(held, i)
		}
		s.drop(i)
	}
	// Leaving first: the others' share grows before the buckets come free.
	if err := leases.Delete(ctx, s.memberName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).V(2).Info("Deleting the shard membership", "err", err.Error())
	}
	for _, i := range slices.Backward(held) {
		s.release(ctx, leases, i)
	}
}

func (s *shardSet) String() string {
	return fmt.Sprintf("%s: %d of %d buckets", s.identity, s.held.Load(), s.n)
}
