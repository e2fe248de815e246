package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// logWriter sends the components' logs to the test log when TESTENV_LOGS is
// set (they are always in <env dir>/logs while the env runs).
type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(b))
	return len(b), nil
}

// eventually polls cond every 100ms until it returns nil or the deadline
// passes, then fails with cond's last error.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not done after %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// watchFrom starts a watch on kind ("configmaps" or "secrets") in ns from rv,
// retrying while the apiserver answers 429 (its watch cache is still
// initializing after a restart).
func watchFrom(ctx context.Context, t *testing.T, cs kubernetes.Interface, kind, ns, rv string) (watch.Interface, error) {
	t.Helper()
	opts := metav1.ListOptions{ResourceVersion: rv}
	for {
		var w watch.Interface
		var err error
		switch kind {
		case "configmaps":
			w, err = cs.CoreV1().ConfigMaps(ns).Watch(ctx, opts)
		case "secrets":
			w, err = cs.CoreV1().Secrets(ns).Watch(ctx, opts)
		default:
			t.Fatalf("watchFrom: unknown kind %q", kind)
		}
		if apierrors.IsTooManyRequests(err) && ctx.Err() == nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		return w, err
	}
}

// expectGone checks that a watch from an expired resourceVersion fails with
// 410 Gone: either when it is opened or as its first (ERROR) event.
func expectGone(ctx context.Context, t *testing.T, cs kubernetes.Interface, kind, ns, rv string) {
	t.Helper()
	w, err := watchFrom(ctx, t, cs, kind, ns, rv)
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			t.Logf("watch %s from rv %s: %v", kind, rv, err)
			return
		}
		t.Fatalf("watch %s from rv %s: want 410 Gone, got %v", kind, rv, err)
	}
	defer w.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch %s from rv %s: closed without an event, want a 410 ERROR event", kind, rv)
		}
		st, isStatus := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !isStatus || st.Code != 410 {
			t.Fatalf("watch %s from rv %s: want an ERROR event with code 410, got %s %#v", kind, rv, ev.Type, ev.Object)
		}
		t.Logf("watch %s from rv %s: ERROR event %d %s", kind, rv, st.Code, st.Message)
	case <-time.After(20 * time.Second):
		t.Fatalf("watch %s from rv %s: no event in 20s, want a 410 ERROR event", kind, rv)
	}
}

func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func TestEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	opts := Options{
		// Secrets keep the watch cache (the default); ConfigMaps are served
		// from etcd, so that compaction shows through as 410 Gone.
		APIServerFlags: []string{"--watch-cache-sizes=configmaps#0"},
		// A generated config/crd: the CRD, a kustomization.yaml and a
		// patches directory, which are not CRDs.
		CRDDirectoryPaths: []string{"../examples/mydemo/config/crd"},
		FeatureGates:      map[string]bool{"ShardedListAndWatch": true},
	}
	if os.Getenv("TESTENV_LOGS") != "" {
		opts.Logs = logWriter{t}
	}
	// Build first, so that the start-up time below is measured separately.
	buildStart := time.Now()
	if _, err := BuildBinary(ctx, t.Logf); err != nil {
		t.Fatal(err)
	}
	t.Logf("BuildBinary: %v", time.Since(buildStart).Round(time.Millisecond))

	start := time.Now()
	env, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start (etcd, kube-apiserver /readyz, kube-controller-manager working): %v", time.Since(start).Round(time.Millisecond))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			if err := env.Stop(); err != nil {
				t.Error(err)
			}
		}
	})

	// Config returns independent copies.
	c1 := env.Config()
	c1.Host = "https://example.invalid"
	if env.Config().Host == c1.Host {
		t.Fatal("Config does not return a copy")
	}
	cs := kubernetes.NewForConfigOrDie(env.Config())

	// The kubeconfig file works too.
	kc, err := clientcmd.BuildConfigFromFlags("", env.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	info, err := kubernetes.NewForConfigOrDie(kc).Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version through the kubeconfig: %v", err)
	}
	t.Logf("server version %s", info.GitVersion)

	ns := "testenv-e2e"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("CRDDirectoryPaths", func(t *testing.T) {
		// Start returned once the CRD was Established: it is served at once.
		raw, err := cs.RESTClient().Get().AbsPath("/apis/crddemo.k8s.io/v2/namespaces/" + ns + "/mydemos").DoRaw(ctx)
		if err != nil || !strings.Contains(string(raw), `"kind":"MydemoList"`) {
			t.Fatalf("listing the installed CRD's objects: %v %s", err, raw)
		}
		// Installing again replaces; a path without CRDs is an error.
		if err := env.InstallCRDs(ctx, "../examples/mydemo/config/crd/crddemo.k8s.io_mydemos.yaml"); err != nil {
			t.Error(err)
		}
		if err := env.InstallCRDs(ctx, "../examples/mydemo/config/rbac"); err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition in ../examples/mydemo/config/rbac") {
			t.Errorf("a directory without CRDs: %v", err)
		}
		if err := env.InstallCRDs(ctx, "no/such/dir"); err == nil {
			t.Error("a missing path is not an error")
		}
	})

	t.Run("FeatureGates", func(t *testing.T) {
		// ShardedListAndWatch is on: two halves of the uid hash space split
		// the namespace's ConfigMaps, and each list says which half it is.
		for i := range 10 {
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("shard-%d", i)}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		total := 0
		for _, half := range []string{
			"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
			"shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
		} {
			list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ShardSelector: half})
			if err != nil {
				t.Fatal(err)
			}
			if list.ShardInfo == nil || list.ShardInfo.Selector != half {
				t.Errorf("list with shard selector %q: shardInfo %+v", half, list.ShardInfo)
			}
			for _, cm := range list.Items {
				if strings.HasPrefix(cm.Name, "shard-") {
					total++
				}
			}
		}
		if total != 10 {
			t.Errorf("the two halves hold %d of the 10 ConfigMaps", total)
		}
	})

	t.Run("ServiceAccountToken", func(t *testing.T) {
		// What kubectl create token does: the namespace's default
		// ServiceAccount, made by kube-controller-manager, gets a token.
		var token *authenticationv1.TokenRequest
		eventually(t, 30*time.Second, "a token for the default ServiceAccount", func() error {
			var err error
			token, err = cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
			return err
		})
		review, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token.Status.Token}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := "system:serviceaccount:" + ns + ":default"; !review.Status.Authenticated || review.Status.User.Username != want {
			t.Errorf("the token authenticates as %+v, want %s", review.Status, want)
		}
	})

	t.Run("GarbageCollector", func(t *testing.T) {
		owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "owner"},
			Data:       map[string]string{"k": "v"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: &yes,
			}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		eventually(t, 30*time.Second, "garbage collection of the dependent", func() error {
			_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "dependent", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("get dependent: %v", err)
		})
		t.Logf("dependent deleted %v after its owner", time.Since(start).Round(time.Millisecond))
	})

	t.Run("RestartAPIServer", func(t *testing.T) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "survivor"}, Data: map[string]string{"k": "v"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sec, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "survivor"}, StringData: map[string]string{"k": "v"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Make sec's resourceVersion not the latest of its resource: a
		// watch cache that starts after it has then missed an event.
		if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "newer"},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A watch open while the apiserver dies must end.
		w, err := watchFrom(ctx, t, cs, "secrets", ns, sec.ResourceVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()

		oldPID := env.PIDs()[KubeAPIServer]
		if err := env.StopAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		if processExists(oldPID) {
			t.Fatalf("kube-apiserver (pid %d) still exists after StopAPIServer", oldPID)
		}
		if _, ok := env.PIDs()[KubeAPIServer]; ok {
			t.Fatal("PIDs still lists kube-apiserver")
		}
		select {
		case _, ok := <-w.ResultChan():
			for ok {
				_, ok = <-w.ResultChan()
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the watch did not end after the apiserver was killed")
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "survivor", metav1.GetOptions{}); err == nil {
			t.Fatal("get succeeded while the apiserver is down")
		}
		if err := env.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		if err := env.StartAPIServer(ctx); err == nil {
			t.Fatal("StartAPIServer on a running apiserver: want an error")
		}
		got, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "survivor", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("after restart: %v", err)
		}
		if got.UID != cm.UID || got.Data["k"] != "v" {
			t.Fatalf("after restart: got %+v, want the same object as before", got)
		}
		// The new watch cache starts at the current state: a watch from
		// before the latest change (to secrets) before the restart is gone.
		expectGone(ctx, t, cs, "secrets", ns, sec.ResourceVersion)
	})

	t.Run("CompactEtcd", func(t *testing.T) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "old"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("newer-%d", i)},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// Before compaction, watching from the old resourceVersion works
		// and replays the newer objects.
		w, err := watchFrom(ctx, t, cs, "configmaps", ns, cm.ResourceVersion)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added {
				t.Fatalf("before compaction: got %s %#v, want ADDED", ev.Type, ev.Object)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("before compaction: no event")
		}
		w.Stop()

		rev, err := env.CompactEtcd(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("compacted at revision %d (old object at %s)", rev, cm.ResourceVersion)
		expectGone(ctx, t, cs, "configmaps", ns, cm.ResourceVersion)

		// Compacting again works (at a newer revision).
		rev2, err := env.CompactEtcd(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rev2 <= rev {
			t.Fatalf("second compaction at %d, want > %d", rev2, rev)
		}
	})

	t.Run("NamespaceDeletion", func(t *testing.T) {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		eventually(t, 60*time.Second, "deletion of namespace "+ns, func() error {
			got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			return fmt.Errorf("namespace is %s", got.Status.Phase)
		})
		t.Logf("namespace gone %v after its deletion", time.Since(start).Round(time.Millisecond))
	})

	t.Run("Stop", func(t *testing.T) {
		pids := env.PIDs()
		if len(pids) != 3 {
			t.Fatalf("PIDs: %v, want 3 components", pids)
		}
		dir := env.Dir()
		start := time.Now()
		stopped = true
		if err := env.Stop(); err != nil {
			t.Fatal(err)
		}
		t.Logf("Stop: %v", time.Since(start).Round(time.Millisecond))
		for name, pid := range pids {
			if processExists(pid) {
				t.Errorf("%s (pid %d) still exists after Stop", name, pid)
			}
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Stop (%v)", dir, err)
		}
		if err := env.Stop(); err != nil {
			t.Errorf("second Stop: %v", err)
		}
		if err := env.StartAPIServer(ctx); err == nil {
			t.Error("StartAPIServer after Stop: want an error")
		}
	})
}

// TestStartFailure checks that a component that cannot start makes Start fail
// with the end of its log, and that nothing is left behind.
func TestStartFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	_, err := Start(ctx, Options{
		Dir:                      dir,
		DisableControllerManager: true,
		APIServerFlags:           []string{"--no-such-flag"},
	})
	if err == nil {
		t.Fatal("Start with a bad apiserver flag succeeded")
	}
	t.Logf("Start error:\n%v", err)
	for _, want := range []string{"kube-apiserver", "unknown flag: --no-such-flag"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q", want)
		}
	}
	// The given Dir is kept, with the logs; the binary copy is removed.
	if _, err := os.Stat(dir + "/logs/kube-apiserver.log"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(dir + "/ctrlplane"); !os.IsNotExist(err) {
		t.Errorf("binary copy left in %s (%v)", dir, err)
	}
}

func TestFeatureGatesFlag(t *testing.T) {
	if got := featureGates(map[string]bool{"ShardedListAndWatch": true, "APIServerTracing": false}); got != "APIServerTracing=false,ShardedListAndWatch=true" {
		t.Errorf("featureGates = %q", got)
	}
	if got := featureGates(nil); got != "" {
		t.Errorf("no gates: %q", got)
	}
}
