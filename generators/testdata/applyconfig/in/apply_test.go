package applyconfig_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"

	shopv1 "example.com/applyconfig/apis/shop/v1"
	applyshopv1 "example.com/applyconfig/generated/applyconfiguration/shop/v1"
	"example.com/applyconfig/generated/clientset/versioned/fake"
)

func apply(t *testing.T, cs *fake.Clientset, ac *applyshopv1.StoreApplyConfiguration, manager string, force bool) (*shopv1.Store, error) {
	t.Helper()
	return cs.ShopV1().Stores("ns").Apply(context.Background(), ac, metav1.ApplyOptions{FieldManager: manager, Force: force})
}

func managers(s *shopv1.Store) map[string]bool {
	out := map[string]bool{}
	for _, m := range s.ManagedFields {
		out[m.Manager] = true
	}
	return out
}

func TestApplyCreates(t *testing.T) {
	cs := fake.NewClientset()
	ac := applyshopv1.Store("corner", "ns").
		WithLabels(map[string]string{"town": "north"}).
		WithSpec(applyshopv1.StoreSpec().
			WithOwner("ann").
			WithReplicas(2).
			WithTags(map[string]string{"a": "1"}).
			WithShelves(applyshopv1.Shelf().WithName("top").WithItems("tea")).
			WithTemplate(applycorev1.PodTemplateSpec().WithSpec(applycorev1.PodSpec().
				WithContainers(applycorev1.Container().WithName("app").WithImage("shop:1")))))
	got, err := apply(t, cs, ac, "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := cs.ShopV1().Stores("ns").Get(context.Background(), "corner", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Spec.Owner != "ann" || *stored.Spec.Replicas != 2 || stored.Spec.Tags["a"] != "1" || stored.Labels["town"] != "north" ||
		len(stored.Spec.Shelves) != 1 || stored.Spec.Template.Spec.Containers[0].Image != "shop:1" {
		t.Fatalf("stored %+v", stored.Spec)
	}
	if !managers(got)["alice"] {
		t.Fatalf("managedFields %v, want alice's", got.ManagedFields)
	}
}

func TestApplyFewerFieldsRemovesThem(t *testing.T) {
	cs := fake.NewClientset()
	spec := applyshopv1.StoreSpec().WithOwner("ann").WithTags(map[string]string{"a": "1", "b": "2"})
	if _, err := apply(t, cs, applyshopv1.Store("corner", "ns").WithSpec(spec), "alice", false); err != nil {
		t.Fatal(err)
	}
	got, err := apply(t, cs, applyshopv1.Store("corner", "ns").WithSpec(applyshopv1.StoreSpec().WithTags(map[string]string{"a": "1"})), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Owner != "" || len(got.Spec.Tags) != 1 || got.Spec.Tags["a"] != "1" {
		t.Fatalf("owner %q tags %v: want the fields alice no longer applies gone", got.Spec.Owner, got.Spec.Tags)
	}
}

func TestManagersConflictAndForceTakesOver(t *testing.T) {
	cs := fake.NewClientset()
	if _, err := apply(t, cs, applyshopv1.Store("corner", "ns").WithSpec(applyshopv1.StoreSpec().WithOwner("ann")), "alice", false); err != nil {
		t.Fatal(err)
	}
	bobs := applyshopv1.Store("corner", "ns").WithSpec(applyshopv1.StoreSpec().WithOwner("bob"))
	_, err := apply(t, cs, bobs, "bob", false)
	if !apierrors.IsConflict(err) {
		t.Fatalf("bob's apply of alice's field: %v, want a conflict", err)
	}
	got, err := apply(t, cs, bobs, "bob", true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Owner != "bob" {
		t.Fatalf("owner %q after bob forced", got.Spec.Owner)
	}
	extracted, err := applyshopv1.ExtractStore(got, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if extracted.Spec != nil && extracted.Spec.Owner != nil {
		t.Fatalf("alice still owns owner %q", *extracted.Spec.Owner)
	}
	extracted, err = applyshopv1.ExtractStore(got, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if extracted.Spec == nil || extracted.Spec.Owner == nil || *extracted.Spec.Owner != "bob" {
		t.Fatalf("bob's extracted configuration %+v, want owner bob", extracted.Spec)
	}
}

// Shelves are a +listType=map keyed by name, containers a list map of
// client-go's schema: two managers' items both stay.
func TestListMapsMergeByKey(t *testing.T) {
	cs := fake.NewClientset()
	withShelf := func(name, image string) *applyshopv1.StoreApplyConfiguration {
		return applyshopv1.Store("corner", "ns").WithSpec(applyshopv1.StoreSpec().
			WithShelves(applyshopv1.Shelf().WithName(name)).
			WithTemplate(applycorev1.PodTemplateSpec().WithSpec(applycorev1.PodSpec().
				WithContainers(applycorev1.Container().WithName(name).WithImage(image)))))
	}
	if _, err := apply(t, cs, withShelf("top", "a"), "alice", false); err != nil {
		t.Fatal(err)
	}
	got, err := apply(t, cs, withShelf("bottom", "b"), "bob", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Shelves) != 2 || len(got.Spec.Template.Spec.Containers) != 2 {
		t.Fatalf("shelves %v containers %v: want both managers' items", got.Spec.Shelves, got.Spec.Template.Spec.Containers)
	}
	var names []string
	for _, c := range got.Spec.Template.Spec.Containers {
		names = append(names, c.Name)
	}
	if names[0] == names[1] {
		t.Fatalf("containers %v", names)
	}
}

func TestApplyStatusAndConditions(t *testing.T) {
	cs := fake.NewClientset()
	if _, err := apply(t, cs, applyshopv1.Store("corner", "ns").WithSpec(applyshopv1.StoreSpec().WithOwner("ann")), "alice", false); err != nil {
		t.Fatal(err)
	}
	status := applyshopv1.Store("corner", "ns").WithStatus(applyshopv1.StoreStatus().
		WithVisitors(3).
		WithConditions(applymetav1.Condition().WithType("Ready").WithStatus(metav1.ConditionTrue).
			WithReason("Open").WithMessage("open").WithLastTransitionTime(metav1.Now())))
	got, err := cs.ShopV1().Stores("ns").ApplyStatus(context.Background(), status, metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Visitors != 3 || len(got.Status.Conditions) != 1 || got.Spec.Owner != "ann" {
		t.Fatalf("status %+v spec %+v", got.Status, got.Spec)
	}
}

func TestClusterScopedApply(t *testing.T) {
	cs := fake.NewClientset()
	got, err := cs.ShopV1().Regions().Apply(context.Background(),
		applyshopv1.Region("west").WithSpec(applyshopv1.RegionSpec().WithStores("corner")),
		metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Namespace != "" || len(got.Spec.Stores) != 1 {
		t.Fatalf("region %+v", got)
	}
}

// Objects given to NewClientset are there, and an apply merges into them.
func TestApplyMergesIntoSeededObjects(t *testing.T) {
	seeded := &shopv1.Coupon{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Code: "OLD", Discount: 5}
	cs := fake.NewClientset(seeded)
	got, err := cs.ShopV1().Coupons("ns").Apply(context.Background(),
		applyshopv1.Coupon("c", "ns").WithCode("NEW"), metav1.ApplyOptions{FieldManager: "alice", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != "NEW" || got.Discount != 5 {
		t.Fatalf("coupon %+v: want code applied and discount kept", got)
	}
}
