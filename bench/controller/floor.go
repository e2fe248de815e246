package controllerbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
)

// Floor makes a controller's writes with no informer, no queue and no
// reads: each Mydemo handed to Add (as its create returns) gets its
// ConfigMap created and its status written (Ready, configMapName,
// observedGeneration) by one of a fixed pool of workers. It is the time
// the apiserver needs for the writes at this concurrency and these client
// limits, which no controller can beat.
type Floor struct {
	clients Clients
	in      chan *crddemov1.Mydemo
	wg      sync.WaitGroup

	mu        sync.Mutex
	lastWrite time.Time
	errs      []error
}

// StartFloor starts workers goroutines; they stop when ctx is done or
// after Finish.
func StartFloor(ctx context.Context, clients Clients, workers, capacity int) *Floor {
	f := &Floor{clients: clients, in: make(chan *crddemov1.Mydemo, capacity)}
	for range workers {
		f.wg.Go(func() {
			for md := range f.in {
				err := f.write(ctx, md)
				f.mu.Lock()
				if err != nil {
					f.errs = append(f.errs, fmt.Errorf("%s: %w", md.Name, err))
				} else {
					f.lastWrite = time.Now()
				}
				f.mu.Unlock()
			}
		})
	}
	return f
}

// Add hands md, as its create returned it, to the workers.
func (f *Floor) Add(md *crddemov1.Mydemo) { f.in <- md }

// Finish waits for the writes of every Mydemo added so far and returns
// when the last one returned.
func (f *Floor) Finish() (lastWrite time.Time, err error) {
	close(f.in)
	f.wg.Wait()
	return f.lastWrite, errors.Join(f.errs...)
}

func (f *Floor) write(ctx context.Context, md *crddemov1.Mydemo) error {
	err := retryTransient(ctx, func() error {
		_, err := f.clients.Kube.CoreV1().ConfigMaps(md.Namespace).Create(ctx, mydemo.DesiredConfigMap(md), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // an earlier attempt made it
		}
		return err
	})
	if err != nil {
		return err
	}
	markReady(md)
	md.Status.ObservedGeneration = md.Generation
	mydemos := f.clients.Mydemo.CrddemoV1().Mydemos(md.Namespace)
	return retryTransient(ctx, func() error {
		_, err := mydemos.UpdateStatus(ctx, md, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			// Nobody else writes these Mydemos; should it happen, write on
			// a fresh copy like the controllers do.
			fresh, gerr := mydemos.Get(ctx, md.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			md.Status.DeepCopyInto(&fresh.Status)
			_, err = mydemos.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
		}
		return err
	})
}

// retryTransient calls f until it succeeds, fails with an error retrying
// cannot fix, or has failed 10 times.
func retryTransient(ctx context.Context, f func() error) error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		if err = f(); err == nil || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		}
	}
	return err
}

func transient(err error) bool {
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsConflict(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err)
}
