package controllerbench

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlgen/ctrlgen/bench/internal/benchenv"
	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/fake"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// TestMydemosBecomeReady runs each implementation on a few Mydemos against
// the real control plane, exactly as the benchmark does (run checks every
// Mydemo and ConfigMap), so that `go test ./...` catches a broken
// benchmark. Skipped with -short.
func TestMydemosBecomeReady(t *testing.T) {
	h := controlPlane(t)
	const n = 20
	for _, impl := range impls {
		t.Run(impl, func(t *testing.T) {
			r := h.run(t, impl, n, noTimer{}, "")
			t.Logf("%d Mydemos Ready in %v; the controller made %d requests", n, r.Elapsed, r.Controller.Requests)
			// The implementation ran in a process of its own, which
			// reported its peak memory.
			if r.ControllerPeakRSS < 1<<20 {
				t.Errorf("the implementation's process reported a peak RSS of %d bytes", r.ControllerPeakRSS)
			}
			// A ConfigMap create and a status write each, at least.
			if r.Controller.Requests < 2*n {
				t.Errorf("the controller's client made %d requests for %d Mydemos; the count is off", r.Controller.Requests, n)
			}
		})
	}
}

// TestSharedPartsMatchReconcileGo runs reconcile.go's Reconcile (what the
// ctrlgen implementation runs; it applies the ConfigMap) and the client-go
// controller's reconcile (reconcileByUpdates, which impl=ctrlgen-update
// runs too; it creates or updates the ConfigMap) on the same Mydemos and
// ConfigMaps, over fake clientsets, and requires the same ConfigMap and
// the same status: shared.go's copies of reconcile.go's unexported helpers
// must not drift from it.
func TestSharedPartsMatchReconcileGo(t *testing.T) {
	owned := func(md *crddemov1.Mydemo, data map[string]string) *corev1.ConfigMap {
		cm := mydemo.DesiredConfigMap(md)
		cm.Data = data
		cm.Labels = map[string]string{"other": "label"}
		return cm
	}
	md := NewMydemo("ns", 7)
	md.UID, md.Generation = types.UID("uid-7"), 3
	cases := []struct {
		name  string
		cm    *corev1.ConfigMap // there before the reconcile
		ready bool
	}{
		{name: "no ConfigMap", ready: true},
		{name: "stale ConfigMap", cm: owned(md, map[string]string{"ip": "old"}), ready: true},
		{name: "up-to-date ConfigMap", cm: owned(md, mydemo.DesiredConfigMap(md).Data), ready: true},
		{name: "someone else's ConfigMap", cm: &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: mydemo.ConfigMapName(md)}, Data: map[string]string{"theirs": "1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The Mydemo in the generated fake clientset, the ConfigMap in
			// client-go's, as each controller reads and writes them.
			clients := func() Clients {
				var cms []runtime.Object
				if tc.cm != nil {
					cms = append(cms, tc.cm.DeepCopy())
				}
				return Clients{Mydemo: fake.NewClientset(md.DeepCopy()), Kube: kubefake.NewClientset(cms...)}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			theirs := clients()
			factory := externalversions.NewSharedInformerFactory(theirs.Mydemo, 0)
			kubeFactory := kubeinformers.NewSharedInformerFactory(theirs.Kube, 0)
			c, err := mydemo.New(theirs.Mydemo, factory, theirs.Kube, kubeFactory, record.NewFakeRecorder(10))
			if err != nil {
				t.Fatal(err)
			}
			factory.StartWithContext(ctx)
			kubeFactory.StartWithContext(ctx)
			defer func() {
				cancel()
				factory.Shutdown()
				kubeFactory.Shutdown()
			}()
			for _, f := range []interface {
				WaitForCacheSyncWithContext(context.Context) cache.SyncResult
			}{factory, kubeFactory} {
				if err := f.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
					t.Fatal(err)
				}
			}
			want := md.DeepCopy()
			_, wantErr := c.Reconcile(ctx, want)

			ours := clients()
			cg, err := NewClientGoController(ours, 0)
			if err != nil {
				t.Fatal(err)
			}
			cg.Start(ctx)
			if err := benchenv.Poll(ctx, 10*time.Second, "the client-go caches", func() (bool, error) { return cg.HasSynced(), nil }); err != nil {
				t.Fatal(err)
			}
			got := md.DeepCopy()
			gotErr := cg.reconcile(ctx, got)

			if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
				t.Errorf("reconcile.go: %v; client-go: %v", wantErr, gotErr)
			}
			if IsReady(withObservedGeneration(got)) != tc.ready {
				t.Errorf("client-go: Ready %v, want %v: %+v", !tc.ready, tc.ready, got.Status)
			}
			if a, b := withoutTimes(want.Status), withoutTimes(got.Status); !equality.Semantic.DeepEqual(a, b) {
				t.Errorf("status:\nreconcile.go %+v\nclient-go    %+v", a, b)
			}
			wantCM, err := theirs.Kube.CoreV1().ConfigMaps("ns").Get(ctx, mydemo.ConfigMapName(md), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotCM, err := ours.Kube.CoreV1().ConfigMaps("ns").Get(ctx, mydemo.ConfigMapName(md), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// client-go's fake tracks managed fields, with the time of each write.
			wantCM.ManagedFields, gotCM.ManagedFields = nil, nil
			if !equality.Semantic.DeepEqual(wantCM.ObjectMeta, gotCM.ObjectMeta) || !equality.Semantic.DeepEqual(wantCM.Data, gotCM.Data) {
				t.Errorf("ConfigMap:\nreconcile.go %+v %v\nclient-go    %+v %v", wantCM.ObjectMeta, wantCM.Data, gotCM.ObjectMeta, gotCM.Data)
			}
			if tc.ready {
				if err := CheckConfigMap(md, gotCM); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// withoutTimes drops the transition times, which depend on the clock.
func withoutTimes(s crddemov1.MydemoStatus) crddemov1.MydemoStatus {
	s = *s.DeepCopy()
	for i := range s.Conditions {
		s.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return s
}

func withObservedGeneration(md *crddemov1.Mydemo) *crddemov1.Mydemo {
	md = md.DeepCopy()
	md.Status.ObservedGeneration = md.Generation
	return md
}
