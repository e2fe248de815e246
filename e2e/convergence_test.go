package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// mydemoWant is what a surviving Mydemo should end up as.
type mydemoWant struct {
	generation int64
	data       map[string]string // the ConfigMap's
	// labels are extra labels another field manager put on the ConfigMap,
	// which must stay.
	labels map[string]string
}

// TestMydemoConvergence runs the mydemo controller in process against the
// control plane and churns 1000 Mydemos: all created, half updated, a
// quarter deleted, all at once. Every survivor must end up Ready for its
// current generation with a ConfigMap rendered from its current spec and
// controlled by it, and the garbage collector must have deleted the
// ConfigMaps of the deleted ones. The controller runs as the
// ServiceAccount of its generated config/rbac, and the apiserver refuses
// none of its requests.
//
// The controller writes the ConfigMaps by server-side apply. Once all has
// converged, someone edits an eighth of the ConfigMaps (an Update of a
// data key, as kubectl edit makes) and another field manager applies an
// extra label to another eighth: the edits must be undone, and the labels
// must stay.
func TestMydemoConvergence(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md, kc := mydemoClient(t, e), kubeClient(t, e)
	waitGarbageCollectorKnowsMydemos(t, md, kc)
	ns := namespace(t, kc)
	ctx := context.Background()
	account := newMydemoAccount(t, e, ns)
	start := time.Now()

	mgr := startManager(t, account.kubeconfig, 8, func(m *manager.Manager) {
		m.Register(mydemo.ControllerName, mydemo.Init)
	})
	before, err := scrape(mgr.addr)
	if err != nil {
		t.Fatal(err)
	}

	const n = 1000
	const writers = 16
	name := func(i int) string { return fmt.Sprintf("md-%04d", i) }
	updated := func(i int) bool { return i%2 == 0 }
	deleted := func(i int) bool { return i%8 < 2 } // half of them updated first
	each := func(f func(i int) error) {
		t.Helper()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		next := make(chan int)
		for range writers {
			wg.Go(func() {
				for i := range next {
					if err := f(i); err != nil {
						mu.Lock()
						errs = append(errs, fmt.Errorf("%s: %w", name(i), err))
						mu.Unlock()
					}
				}
			})
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d writes failed, first: %v", len(errs), errors.Join(errs[:min(len(errs), 5)]...))
		}
	}

	want := map[string]mydemoWant{}
	var gone []string
	for i := range n {
		data := map[string]string{"index": strconv.Itoa(i), "phase": "created"}
		w := mydemoWant{generation: 1, data: map[string]string{"ip": ip(i), "port": strconv.Itoa(1000 + i)}}
		if updated(i) {
			data["phase"] = "updated"
			w = mydemoWant{generation: 2, data: map[string]string{"ip": ip(i), "port": strconv.Itoa(20000 + i)}}
		}
		maps.Copy(w.data, data)
		if deleted(i) {
			gone = append(gone, name(i))
		} else {
			want[name(i)] = w
		}
	}

	each(func(i int) error {
		_, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, name(i), ip(i), int32(1000+i),
			map[string]string{"index": strconv.Itoa(i), "phase": "created"}), metav1.CreateOptions{})
		return err
	})
	created := time.Since(start)
	// Updates and deletes race the controller, which is still working
	// through the creates. A merge patch of the spec needs no
	// resourceVersion, so the controller's status writes cannot conflict
	// with it.
	each(func(i int) error {
		if updated(i) {
			patch := fmt.Sprintf(`{"spec":{"port":%d,"data":{"phase":"updated"}}}`, 20000+i)
			if _, err := md.CrddemoV1().Mydemos(ns).Patch(ctx, name(i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				return err
			}
		}
		if deleted(i) {
			return md.CrddemoV1().Mydemos(ns).Delete(ctx, name(i), metav1.DeleteOptions{})
		}
		return nil
	})
	written := time.Since(start)

	poll(t, 4*time.Minute, time.Second, "convergence", func() (bool, string) {
		return mydemosConverged(ctx, md, kc, ns, want, gone)
	})
	converged := time.Since(start)

	edited := func(i int) bool { return i%8 == 2 }
	labelled := func(i int) bool { return i%8 == 3 }
	team := map[string]string{"team": "blue"}
	for i := range n {
		if labelled(i) {
			w := want[name(i)]
			w.labels = team
			want[name(i)] = w
		}
	}
	each(func(i int) error {
		cms := kc.CoreV1().ConfigMaps(ns)
		switch {
		case edited(i):
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cm, err := cms.Get(ctx, name(i)+"-config", metav1.GetOptions{})
				if err != nil {
					return err
				}
				cm.Data["ip"] = "192.0.2.1"
				_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
				return err
			})
		case labelled(i):
			label := corev1ac.ConfigMap(name(i)+"-config", ns).WithLabels(team)
			_, err := cms.Apply(ctx, label, metav1.ApplyOptions{FieldManager: "team-labeller"})
			return err
		}
		return nil
	})
	poll(t, 4*time.Minute, time.Second, "convergence after the edits", func() (bool, string) {
		return mydemosConverged(ctx, md, kc, ns, want, gone)
	})
	reverted := time.Since(start)

	after, err := scrape(mgr.addr)
	if err != nil {
		t.Fatal(err)
	}
	delta := func(labels ...string) float64 {
		l := append([]string{"controller", mydemo.ControllerName}, labels...)
		return after.get(t, "controller_runtime_reconcile_total", l...) - before.get(t, "controller_runtime_reconcile_total", l...)
	}
	panics := after.get(t, "controller_runtime_reconcile_panics_total", "controller", mydemo.ControllerName) -
		before.get(t, "controller_runtime_reconcile_panics_total", "controller", mydemo.ControllerName)
	if panics != 0 {
		t.Errorf("%v reconcile panics", panics)
	}
	t.Logf("%d Mydemos: created in %v, updated %d and deleted %d by %v, converged after %v, edits undone after %v; reconciles: %v success, %v error, %v requeue (conflicts)",
		n, created.Round(time.Millisecond), n/2, len(gone), written.Round(time.Millisecond), converged.Round(time.Millisecond), reverted.Round(time.Millisecond),
		delta("result", "success"), delta("result", "error"), delta("result", "requeue"))
}

func ip(i int) string { return fmt.Sprintf("10.0.%d.%d", i/256, i%256) }

// mydemosConverged compares the namespace with what the test wrote.
func mydemosConverged(ctx context.Context, md versioned.Interface, kc kubernetes.Interface, ns string, want map[string]mydemoWant, gone []string) (bool, string) {
	mds, err := md.CrddemoV1().Mydemos(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err.Error()
	}
	cms, err := kc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err.Error()
	}
	objs := map[string]*crddemov1.Mydemo{}
	for i := range mds.Items {
		objs[mds.Items[i].Name] = &mds.Items[i]
	}
	type problems struct {
		n     int
		first string
	}
	var notReady, badCM, lingering problems
	add := func(p *problems, msg string) {
		if p.n == 0 {
			p.first = msg
		}
		p.n++
	}
	ownedCMs := map[string]bool{}
	for i := range cms.Items {
		cm := &cms.Items[i]
		if cm.Name == "kube-root-ca.crt" {
			continue
		}
		ownedCMs[cm.Name] = true
	}
	for name, w := range want {
		obj := objs[name]
		if obj == nil {
			add(&notReady, name+" is missing")
			continue
		}
		if obj.Generation != w.generation {
			add(&notReady, fmt.Sprintf("%s is at generation %d, want %d", name, obj.Generation, w.generation))
			continue
		}
		if ok, why := mydemoReady(obj); !ok {
			add(&notReady, why)
			continue
		}
		if why := checkConfigMap(cms.Items, obj, w.data, w.labels); why != "" {
			add(&badCM, why)
		}
	}
	for _, name := range gone {
		if objs[name] != nil {
			add(&lingering, fmt.Sprintf("Mydemo %s still exists", name))
		}
		if ownedCMs[name+"-config"] {
			add(&lingering, fmt.Sprintf("ConfigMap %s-config of the deleted Mydemo %s still exists", name, name))
		}
	}
	if extra := len(ownedCMs) - len(want); lingering.n == 0 && extra != 0 {
		add(&lingering, fmt.Sprintf("%d ConfigMaps in the namespace, want %d", len(ownedCMs), len(want)))
	}
	if notReady.n+badCM.n+lingering.n == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("%d of %d not Ready (e.g. %s); %d bad ConfigMaps (e.g. %s); %d leftovers of deleted Mydemos (e.g. %s)",
		notReady.n, len(want), notReady.first, badCM.n, badCM.first, lingering.n, lingering.first)
}

// checkConfigMap returns what is wrong with obj's ConfigMap, or "": it
// must hold data, the controller's label and labels.
func checkConfigMap(cms []corev1.ConfigMap, obj *crddemov1.Mydemo, data, labels map[string]string) string {
	for i := range cms {
		cm := &cms[i]
		if cm.Name != mydemo.ConfigMapName(obj) {
			continue
		}
		if !maps.Equal(cm.Data, data) {
			return fmt.Sprintf("ConfigMap %s has %v, want %v", cm.Name, cm.Data, data)
		}
		if cm.Labels[mydemo.LabelMydemo] != obj.Name {
			return fmt.Sprintf("ConfigMap %s has labels %v", cm.Name, cm.Labels)
		}
		for k, v := range labels {
			if cm.Labels[k] != v {
				return fmt.Sprintf("ConfigMap %s has labels %v, want %s=%s kept", cm.Name, cm.Labels, k, v)
			}
		}
		ref := metav1.GetControllerOf(cm)
		switch {
		case ref == nil:
			return fmt.Sprintf("ConfigMap %s has no controller ownerReference: %v", cm.Name, cm.OwnerReferences)
		case ref.APIVersion != crddemov1.SchemeGroupVersion.String() || ref.Kind != "Mydemo" || ref.Name != obj.Name || ref.UID != obj.UID:
			return fmt.Sprintf("ConfigMap %s is controlled by %s %s %s (uid %s), want Mydemo %s (uid %s)",
				cm.Name, ref.APIVersion, ref.Kind, ref.Name, ref.UID, obj.Name, obj.UID)
		case ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion:
			return fmt.Sprintf("ConfigMap %s: the ownerReference does not block owner deletion", cm.Name)
		}
		return ""
	}
	return fmt.Sprintf("ConfigMap %s is missing", mydemo.ConfigMapName(obj))
}
