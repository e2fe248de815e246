package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration"
	applycrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// TestEventFiltersSkipStatusChurn runs mydemo's Reconcile and the wiring
// ctrlgen generates for it (status by server-side apply, the owned
// ConfigMaps watched) three times on the real apiserver: without a filter,
// with SkipOwnStatusWrites (+ctrlgen:controller:filter=ownStatusWrites)
// and with GenerationChanged (filter=generationChanged). Each run creates
// filterMydemos Mydemos and counts the reconciles of each:
//
//   - "to Ready": from the create until the Mydemo is Ready and quiet;
//   - "churn": while another field manager rewrites an unrelated status
//     condition filterChurnRounds times on every Mydemo.
//
// A spec change of every Mydemo ends the run: once it is Ready for the new
// generation, every earlier reconcile has ended (a key is reconciled by
// one worker at a time), so the counts are complete without waiting for
// quiet. Without a filter, the churn is reconciled; GenerationChanged
// reconciles none of it and fewer times in all, and still converges;
// SkipOwnStatusWrites drops the controller's own status writes only, so
// the churn, someone else's status writes, is still reconciled.
func TestEventFiltersSkipStatusChurn(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	type counts struct{ toReady, churn int }
	runs := []struct {
		name   string
		filter controller.UpdateFilter[*crddemov1.Mydemo]
		skip   bool
	}{
		{name: "none"},
		{name: "ownStatusWrites", skip: true},
		{name: "generationChanged", filter: controller.GenerationChanged[*crddemov1.Mydemo]},
	}
	got := map[string]counts{}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			start := time.Now()
			toReady, churn := runFilteredMydemos(t, r.filter, r.skip)
			got[r.name] = counts{toReady, churn}
			t.Logf("%s: %.2f reconciles per Mydemo to Ready, %.2f during %d status churn writes per Mydemo (%d Mydemos, %v)",
				r.name, float64(toReady)/filterMydemos, float64(churn)/filterMydemos, filterChurnRounds, filterMydemos, time.Since(start).Round(time.Millisecond))
		})
	}
	if t.Failed() {
		return
	}
	none, own, gen := got["none"], got["ownStatusWrites"], got["generationChanged"]
	if none.churn == 0 {
		t.Errorf("without a filter, the status churn was not reconciled: %+v", none)
	}
	if own.churn == 0 {
		t.Errorf("with ownStatusWrites, someone else's status writes were not reconciled: %+v", own)
	}
	if gen.churn != 0 {
		t.Errorf("with generationChanged, %d reconciles during the status churn, want 0", gen.churn)
	}
	if gen.toReady+gen.churn >= none.toReady+none.churn {
		t.Errorf("generationChanged reconciled %d times, no filter %d: want fewer", gen.toReady+gen.churn, none.toReady+none.churn)
	}
}

const (
	filterMydemos     = 20
	filterChurnRounds = 5
	churnCondition    = "Churn"
)

// runFilteredMydemos runs one controller with the filter in a namespace
// of its own and returns its reconciles to Ready and during the churn,
// summed over the Mydemos.
func runFilteredMydemos(t *testing.T, filter controller.UpdateFilter[*crddemov1.Mydemo], skip bool) (toReady, churn int) {
	e := env(t)
	md, kc := mydemoClient(t, e), kubeClient(t, e)
	ns := namespace(t, kc)
	ctx, cancel := context.WithCancel(context.Background())
	factory := externalversions.NewSharedInformerFactoryWithOptions(md, 0, externalversions.WithNamespace(ns))
	kubeFactory := kubeinformers.NewSharedInformerFactoryWithOptions(kc, 0, kubeinformers.WithNamespace(ns))
	// mydemo's Controller, for its Reconcile and listers; its own loop is
	// never run.
	mdc, err := mydemo.New(md, factory, kc, kubeFactory, &record.FakeRecorder{})
	if err != nil {
		t.Fatal(err)
	}

	// Which phase each reconcile is in, by what it was given.
	var mu sync.Mutex
	phases := map[string]int{}
	typeConverter := applyconfiguration.NewTypeConverter(scheme.Scheme)
	informer := factory.Crddemo().V1().Mydemos()
	c, err := controller.New(controller.Options[*crddemov1.Mydemo]{
		Name:     "e2e-filters",
		Informer: informer.TypedInformer(),
		DeepCopy: (*crddemov1.Mydemo).DeepCopy,
		Reconcile: func(ctx context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
			phase := "spec"
			if obj.Generation == 1 {
				phase = "toReady"
				if meta.FindStatusCondition(obj.Status.Conditions, churnCondition) != nil {
					phase = "churn"
				}
			}
			mu.Lock()
			phases[phase]++
			mu.Unlock()
			return mdc.Reconcile(ctx, obj)
		},
		// As zz_generated.controller.go's.
		StatusApply: &controller.StatusApply[*crddemov1.Mydemo]{
			ToTyped: func(obj *crddemov1.Mydemo) (*typed.TypedValue, error) {
				withKind := *obj
				withKind.TypeMeta = metav1.TypeMeta{APIVersion: "crddemo.k8s.io/v1", Kind: "Mydemo"}
				return typeConverter.ObjectToTyped(&withKind)
			},
			Apply: func(ctx context.Context, obj *crddemov1.Mydemo, fields map[string]any, opts metav1.ApplyOptions) (*crddemov1.Mydemo, error) {
				applied := &applycrddemov1.MydemoApplyConfiguration{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(fields, applied); err != nil {
					return nil, err
				}
				applied.WithName(obj.Name).WithNamespace(obj.Namespace).WithKind("Mydemo").WithAPIVersion("crddemo.k8s.io/v1")
				return md.CrddemoV1().Mydemos(obj.Namespace).ApplyStatus(ctx, applied, opts)
			},
			ObservedGeneration: []string{"status", "observedGeneration"},
		},
		StatusEqual:           func(a, b *crddemov1.Mydemo) bool { return equality.Semantic.DeepEqual(a.Status, b.Status) },
		SetObservedGeneration: func(obj *crddemov1.Mydemo, generation int64) { obj.Status.ObservedGeneration = generation },
		UpdateFilter:          filter,
		SkipOwnStatusWrites:   skip,
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := controller.Owner{GroupKind: schema.GroupKind{Group: crddemov1.GroupName, Kind: "Mydemo"}, Namespaced: true}
	if err := controller.WatchOwned(c, kubeFactory.Core().V1().ConfigMaps().TypedInformer(), owner); err != nil {
		t.Fatal(err)
	}
	runController(t, ctx, cancel, func(ctx context.Context) error { return c.Run(ctx, 2) }, factory, kubeFactory)

	mydemos := md.CrddemoV1().Mydemos(ns)
	names := make([]string, filterMydemos)
	for i := range names {
		names[i] = fmt.Sprintf("filtered-%d", i)
		if _, err := mydemos.Create(ctx, newMydemo(ns, names[i], "10.0.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitMydemosReady(t, md, ns, time.Minute, names...)

	// Someone else (field manager "churner") rewrites a condition of its
	// own, which the controller has no business with.
	for round := range filterChurnRounds {
		for _, name := range names {
			churn := applycrddemov1.Mydemo(name, ns).WithStatus(applycrddemov1.MydemoStatus().WithConditions(
				applymetav1.Condition().WithType(churnCondition).WithStatus(metav1.ConditionTrue).WithReason("Churning").
					WithMessage(fmt.Sprintf("round %d", round)).WithLastTransitionTime(metav1.Now())))
			if _, err := mydemos.ApplyStatus(ctx, churn, metav1.ApplyOptions{FieldManager: "churner", Force: true}); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The spec change that ends the run, and shows that the controller
	// still converges.
	for _, name := range names {
		if _, err := mydemos.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"port":81}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	poll(t, time.Minute, 20*time.Millisecond, "every Mydemo Ready for generation 2", func() (bool, string) {
		list, err := mydemos.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if ok, why := mydemoReady(obj); !ok || obj.Generation != 2 {
				return false, fmt.Sprintf("generation %d: %s", obj.Generation, why)
			}
		}
		return len(list.Items) == filterMydemos, fmt.Sprintf("%d Mydemos", len(list.Items))
	})
	for _, name := range names {
		cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, name+"-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["port"] != "81" {
			t.Errorf("ConfigMap %s: port %q, want 81", cm.Name, cm.Data["port"])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return phases["toReady"], phases["churn"]
}
