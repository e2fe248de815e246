package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// TestRelistAfterWatchCacheRestartReachesTheLatestState: an apiserver that
// restarts fills its watch cache afresh, so a watch from an older
// resourceVersion gets 410 although etcd still has that version. A relist
// that asked for exactly that version (a limit with a resourceVersion and
// no resourceVersionMatch) would read the old state from etcd and loop;
// it must ask for at least that version and reach the latest state. An
// informer that streams its lists must do the same with its streamed
// relist.
func TestRelistAfterWatchCacheRestartReachesTheLatestState(t *testing.T) {
	e := env(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, writer)

	p, readerCfg := proxied(t, e)
	// Secrets keep the watch cache (only ConfigMaps bypass it here).
	secrets := kubernetes.NewForConfigOrDie(readerCfg).CoreV1().Secrets(ns)
	var mu sync.Mutex
	var lists []metav1.ListOptions
	var expired bool
	lw := &cache.ListWatch[*corev1.Secret]{
		ListFunc: func(ctx context.Context, o metav1.ListOptions) (cache.ListPage[*corev1.Secret], error) {
			mu.Lock()
			lists = append(lists, o)
			mu.Unlock()
			l, err := secrets.List(ctx, o)
			if err != nil {
				return cache.ListPage[*corev1.Secret]{}, err
			}
			return cache.ListPage[*corev1.Secret]{Items: cache.PointersWithAlloc(l.Items), ResourceVersion: l.ResourceVersion, Continue: l.Continue}, nil
		},
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return secrets.Watch(ctx, o) },
	}
	backoff := cache.BackoffConfig{Initial: 50 * time.Millisecond, Max: time.Second, Jitter: 0.5}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Secret](lw, cache.SharedIndexInformerOptions{
		Reflector: cache.ReflectorOptions{Backoff: backoff, DisableWatchList: true},
	})
	inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *clientcache.Reflector, err error) {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			mu.Lock()
			expired = true
			mu.Unlock()
		}
	})
	go inf.RunWithContext(ctx)

	// Beside it, through the same proxy, an informer that streams its
	// lists goes through the same restart: its relist must stream a state
	// at least as new as the last version it saw.
	streamingCfg, streamingLog := recorded(readerCfg, "secrets")
	streamingSecrets := kubernetes.NewForConfigOrDie(streamingCfg).CoreV1().Secrets(ns)
	streaming := cache.NewSharedIndexInformerWithOptions[*corev1.Secret](&cache.ListWatch[*corev1.Secret]{
		ListFunc: func(ctx context.Context, o metav1.ListOptions) (cache.ListPage[*corev1.Secret], error) {
			l, err := streamingSecrets.List(ctx, o)
			if err != nil {
				return cache.ListPage[*corev1.Secret]{}, err
			}
			return cache.ListPage[*corev1.Secret]{Items: cache.PointersWithAlloc(l.Items), ResourceVersion: l.ResourceVersion, Continue: l.Continue}, nil
		},
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return streamingSecrets.Watch(ctx, o)
		},
	}, cache.SharedIndexInformerOptions{Reflector: cache.ReflectorOptions{Backoff: backoff}})
	go streaming.RunWithContext(ctx)

	const n = 20
	for i := range n {
		_, err := writer.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%02d", i)}, StringData: map[string]string{"v": "0"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	matches := func(want string) func() (bool, string) {
		return func() (bool, string) {
			for _, inf := range []cache.SharedIndexInformer[*corev1.Secret]{inf, streaming} {
				for i := range n {
					name := fmt.Sprintf("s-%02d", i)
					s, ok := inf.FastIndexer().GetByName(cache.NewObjectName(ns, name))
					if !ok || string(s.Data["v"]) != want {
						return false, fmt.Sprintf("%s: %s not cached at v=%s", inf.Description(), name, want)
					}
				}
			}
			return true, ""
		}
	}
	eventually(t, 60*time.Second, "initial sync", matches("0"))

	p.Cut()
	for i := range n {
		_, err := writer.CoreV1().Secrets(ns).Update(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%02d", i)}, StringData: map[string]string{"v": "1"}}, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	before := len(lists)
	mu.Unlock()
	streamedBefore, _ := streamingLog.streamedAndListed()
	p.Restore()
	eventually(t, 60*time.Second, "the latest state after the relist", matches("1"))

	mu.Lock()
	defer mu.Unlock()
	if !expired {
		t.Fatal("the watch never got 410 after the restart; the relist path was not exercised")
	}
	relists := lists[before:]
	if len(relists) == 0 {
		t.Fatal("no relist after the 410")
	}
	if o := relists[0]; o.ResourceVersion == "" || o.ResourceVersion == "0" || (o.Limit != 0 && o.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan) {
		t.Errorf("first relist after the 410 asked for %+v; want at least the last version seen (no limit, or NotOlderThan)", o)
	}
	if len(relists) > 3 {
		t.Errorf("%d relists after one 410; the reflector loops", len(relists))
	}

	streamed, listed := streamingLog.streamedAndListed()
	restreamed := streamed[len(streamedBefore):]
	if listed != 0 || len(streamedBefore) != 1 || len(restreamed) == 0 || len(restreamed) > 3 {
		t.Fatalf("the streaming informer made %d LISTs, %d streamed lists before the restart and %d after; want no LIST, 1, and 1 to 3",
			listed, len(streamedBefore), len(restreamed))
	}
	if rv := restreamed[0].Get("resourceVersion"); rv == "" || rv == "0" {
		t.Errorf("the streamed relist asked for resourceVersion %q; want at least the last version seen", rv)
	}
}
