// Package e2e runs ctrlgen's runtime and examples against a real control
// plane (etcd, kube-apiserver, kube-controller-manager) that testenv builds
// from Go modules and starts on 127.0.0.1. One control plane serves every
// test in the package; tests run one at a time because some restart it.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/testenv"
)

var shared *testenv.Env

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	env, err := testenv.Start(ctx, testenv.Options{
		// ConfigMaps bypass the watch cache, so compacting etcd makes their
		// watches expire with 410 as on a busy cluster. Changing an
		// object's ownerReferences needs the right to delete it, and
		// blocking its owner's deletion the right to update the owner's
		// finalizers, as on clusters that run this admission plugin (the
		// controllers' generated RBAC must hold for them too).
		APIServerFlags: []string{"--watch-cache-sizes=configmaps#0", "--enable-admission-plugins=OwnerReferencesPermissionEnforcement"},
	})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: starting the control plane:", err)
		os.Exit(1)
	}
	shared = env
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stopping the control plane:", err)
	}
	os.Exit(code)
}

// env returns the shared control plane, or skips in -short mode.
func env(t *testing.T) *testenv.Env {
	t.Helper()
	if shared == nil {
		t.Skip("end-to-end tests need the control plane; skipped with -short")
	}
	return shared
}

// namespace creates a namespace for one test and deletes it afterwards.
func namespace(t *testing.T, c kubernetes.Interface) string {
	t.Helper()
	ns, err := c.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s", timeout, what, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
