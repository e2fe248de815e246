package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcache "k8s.io/client-go/tools/cache"

	informerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/informers/core/v1"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// requestLog records the GET requests a client sends for one resource,
// and whether each response came gzipped (Go's transport inflates it).
type requestLog struct {
	resource   string
	mu         sync.Mutex
	queries    []url.Values
	compressed []bool
}

type recordingTransport struct {
	log  *requestLog
	next http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/"+t.log.resource) {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	t.log.mu.Lock()
	t.log.queries = append(t.log.queries, req.URL.Query())
	t.log.compressed = append(t.log.compressed, err == nil && resp.Uncompressed)
	t.log.mu.Unlock()
	return resp, err
}

// requests returns the queries logged and whether each response was gzipped.
func (l *requestLog) requests() ([]url.Values, []bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]url.Values(nil), l.queries...), append([]bool(nil), l.compressed...)
}

// recorded returns cfg with a transport that logs the GETs of resource.
func recorded(cfg *rest.Config, resource string) (*rest.Config, *requestLog) {
	log := &requestLog{resource: resource}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{log, rt} })
	return cfg, log
}

// streamedAndListed returns the streamed lists (watches with
// sendInitialEvents=true) and counts the LISTs logged.
func (l *requestLog) streamedAndListed() (streamed []url.Values, listed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range l.queries {
		switch {
		case q.Get("watch") != "true":
			listed++
		case q.Get("sendInitialEvents") == "true":
			streamed = append(streamed, q)
		}
	}
	return streamed, listed
}

// checkStreamed checks a streamed list's parameters: the latest state
// ("" and NotOlderThan) with bookmarks, as client-go asks.
func checkStreamed(t *testing.T, q url.Values) {
	t.Helper()
	if q.Get("resourceVersionMatch") != string(metav1.ResourceVersionMatchNotOlderThan) || q.Get("allowWatchBookmarks") != "true" || q.Get("resourceVersion") != "" {
		t.Errorf("streamed list %v, want resourceVersionMatch=NotOlderThan, allowWatchBookmarks=true and no resourceVersion", q)
	}
}

// syncGeneratedInformer runs the shipped (generated) ConfigMap informer of
// one namespace over cfg until it has synced n objects, and returns what
// it asked of the apiserver.
func syncGeneratedInformer(t *testing.T, cfg *rest.Config, writer kubernetes.Interface, ns string, n int) (streamed []url.Values, listed int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range n {
		_, err := writer.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg, log := recorded(cfg, "configmaps")
	inf := informerscorev1.NewConfigMapInformer(kubernetes.NewForConfigOrDie(cfg), ns, 0, clientcache.Indexers{})
	runSynced(t, inf)
	// The namespace's kube-root-ca.crt is cached too.
	if got := len(inf.GetStore().ListKeys()); got < n {
		t.Fatalf("synced %d objects, want at least %d", got, n)
	}
	return log.streamedAndListed()
}

// runSynced runs inf until the test ends and waits until it has synced.
func runSynced(t *testing.T, inf clientcache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	syncCtx, syncCancel := context.WithTimeout(ctx, time.Minute)
	defer syncCancel()
	if !clientcache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
}

// The generated informer's initial sync is a streamed list on an apiserver
// that serves them: a watch with sendInitialEvents=true, and no LIST.
func TestGeneratedInformerSyncsWithStreamedList(t *testing.T) {
	e := env(t)
	writer := kubernetes.NewForConfigOrDie(e.Config())
	streamed, listed := syncGeneratedInformer(t, e.Config(), writer, namespace(t, writer), 30)
	if len(streamed) != 1 || listed != 0 {
		t.Fatalf("%d streamed lists and %d LISTs, want one streamed list and no LIST", len(streamed), listed)
	}
	checkStreamed(t, streamed[0])
}

// An apiserver with the WatchList feature off refuses streamed lists; the
// informer falls back to LIST and syncs.
func TestGeneratedInformerFallsBackToListWhenServerRefusesStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane of its own; skipped with -short")
	}
	env(t) // the shared control plane built the binary
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := testenv.Start(ctx, testenv.Options{
		APIServerFlags:           []string{"--feature-gates=WatchList=false"},
		DisableControllerManager: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	writer := kubernetes.NewForConfigOrDie(e.Config())
	ns, err := writer.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	streamed, listed := syncGeneratedInformer(t, e.Config(), writer, ns.Name, 30)
	if len(streamed) != 1 || listed != 1 {
		t.Fatalf("%d streamed lists and %d LISTs, want the refused streamed list, then one LIST", len(streamed), listed)
	}
}

// kube-apiserver 1.37 gzips a streamed list's whole response
// (WatchListCompression) when the client accepts gzip, as Go's transport
// does by default, flushing every later event as a gzip member of its own.
// The generated informer leaves that watch at the initial-events-end
// bookmark and carries on with a plain watch from its resourceVersion,
// which is not compressed, and sees the changes made after the sync.
func TestGeneratedInformerWatchesUncompressedAfterStreamedList(t *testing.T) {
	e := env(t)
	writer := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, writer)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := writer.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, log := recorded(e.Config(), "configmaps")
	inf := informerscorev1.NewConfigMapInformer(kubernetes.NewForConfigOrDie(cfg), ns, 0, clientcache.Indexers{})
	seen := make(chan string, 16)
	if _, err := inf.AddEventHandler(clientcache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		seen <- obj.(*corev1.ConfigMap).Name
	}}); err != nil {
		t.Fatal(err)
	}
	runSynced(t, inf)
	syncedRV := inf.LastSyncResourceVersion()
	if _, err := writer.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name := ""; name != "after"; {
		select {
		case name = <-seen:
		case <-time.After(time.Minute):
			t.Fatal("the ConfigMap created after the sync was not delivered")
		}
	}

	queries, compressed := log.requests()
	if len(queries) != 2 {
		t.Fatalf("requests %v, want the streamed list and one watch", queries)
	}
	list, plain := queries[0], queries[1]
	if list.Get("sendInitialEvents") != "true" || !compressed[0] {
		t.Errorf("first request %v (gzipped: %v), want a streamed list the server gzips", list, compressed[0])
	}
	if plain.Get("watch") != "true" || plain.Has("sendInitialEvents") || plain.Get("resourceVersion") != syncedRV ||
		plain.Get("allowWatchBookmarks") != "true" || compressed[1] {
		t.Errorf("second request %v (gzipped: %v), want a plain watch from the sync's version %s with bookmarks, not gzipped", plain, compressed[1], syncedRV)
	}
}
