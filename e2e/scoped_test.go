package e2e

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	listerscrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/listers/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// mydemoNamespacedRBACDir is mydemo's RBAC generated with
// --rbac-namespaces system: kustomize's namespace (here, the test's)
// replaces the placeholder.
const mydemoNamespacedRBACDir = "../examples/mydemo/config/rbac-namespaced"

// TestScopedCacheNeedsOnlyNamespacedRole runs the mydemo controller with
// its caches limited to one namespace (manager.Options.DefaultNamespaces,
// --namespaces) as the ServiceAccount of the RBAC generated with
// --rbac-namespaces: a Role in that namespace, and a ClusterRole with
// nothing about namespaced resources. The apiserver refuses nothing, the
// controller reconciles the Mydemos of its namespace, and its cache never
// holds the Mydemo of another namespace, which stays unreconciled.
func TestScopedCacheNeedsOnlyNamespacedRole(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md, kc := mydemoClient(t, e), kubeClient(t, e)
	ns, other := namespace(t, kc), namespace(t, kc)
	ctx := context.Background()

	account := newAccount(t, e, ns, mydemoNamespacedRBACDir)
	account.waitOwnerKindAdmitted(t, e, crddemov1.SchemeGroupVersion.WithKind("Mydemo"))
	namespacedResources := []string{"mydemos", "mydemos/status", "configmaps", "events"}
	for _, r := range account.rules(t, "ClusterRole", "manager-role") {
		for _, res := range r.Resources {
			if slices.Contains(namespacedResources, res) {
				t.Errorf("the ClusterRole grants %v on namespaced %s", r.Verbs, res)
			}
		}
	}
	account.waitAllowed(t, e, "list", "crddemo.k8s.io", "mydemos", ns, true)
	account.waitAllowed(t, e, "list", "crddemo.k8s.io", "mydemos", "", false)
	account.waitAllowed(t, e, "list", "crddemo.k8s.io", "mydemos", other, false)

	outside, err := md.CrddemoV1().Mydemos(other).Create(ctx, newMydemo(other, "outside", "10.0.0.1", 80, nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, "inside", "10.0.0.2", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	o := manager.DefaultOptions()
	o.Kubeconfig, o.LeaderElect, o.Workers = account.kubeconfig, false, 2
	o.DefaultNamespaces = []string{ns}
	var lister listerscrddemov1.MydemoLister
	startManagerWith(t, o, func(m *manager.Manager) {
		m.Register(mydemo.ControllerName, mydemo.Init)
		// The factory mydemo's wiring shares, by its key: the cache the
		// controller reads.
		m.Register("cache-probe", func(_ context.Context, mc *manager.Context) (manager.Runnable, error) {
			f, err := manager.SharedFactory(mc, "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned", func() (externalversions.SharedInformerFactory, error) {
				return nil, errors.New("mydemo's Init has not built its factory")
			})
			if err != nil {
				return nil, err
			}
			lister = f.Crddemo().V1().Mydemos().Lister()
			return nil, nil
		})
	})
	waitMydemosReady(t, md, ns, 30*time.Second, "inside")
	// A Mydemo created once the caches have synced is reconciled too.
	if _, err := md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, "later", "10.0.0.3", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMydemosReady(t, md, ns, 30*time.Second, "later")

	cached, err := lister.List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range cached {
		if obj.Namespace != ns {
			t.Errorf("the cache holds %s/%s, of a namespace it does not watch", obj.Namespace, obj.Name)
		}
	}
	if _, err := lister.Mydemos(other).Get("outside"); !apierrors.IsNotFound(err) {
		t.Errorf("the lister's Get of %s/outside: %v, want NotFound", other, err)
	}
	got, err := md.CrddemoV1().Mydemos(other).Get(ctx, "outside", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != outside.ResourceVersion || got.Status.ObservedGeneration != 0 {
		t.Errorf("the Mydemo of the other namespace was written (status %+v)", got.Status)
	}
	if cms, err := kc.CoreV1().ConfigMaps(other).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	} else {
		for _, cm := range cms.Items {
			if cm.Name == mydemo.ConfigMapName(got) {
				t.Errorf("the controller made ConfigMap %s/%s in the other namespace", other, cm.Name)
			}
		}
	}
}
