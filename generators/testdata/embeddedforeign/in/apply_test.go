package embeddedforeign_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	duckv1 "example.com/embeddedforeign/duck/v1"
	applyservingv1beta1 "example.com/embeddedforeign/generated/applyconfiguration/serving/v1beta1"
	"example.com/embeddedforeign/generated/clientset/versioned/fake"
)

// The fields of the embedded Go structs go through server-side apply
// as those of the status and spec that embed them.
func TestApplyEmbeddedForeignStructs(t *testing.T) {
	cs := fake.NewClientset()
	client := cs.ServingV1beta1().DomainMappings("ns")
	ctx := context.Background()
	spec := applyservingv1beta1.DomainMapping("example.org", "ns").WithSpec(applyservingv1beta1.DomainMappingSpec().
		WithHost("svc.ns").WithHosts("a", "b"))
	if _, err := client.Apply(ctx, spec, metav1.ApplyOptions{FieldManager: "alice"}); err != nil {
		t.Fatal(err)
	}
	status := applyservingv1beta1.DomainMapping("example.org", "ns").WithStatus(applyservingv1beta1.DomainMappingStatus().
		WithObservedGeneration(2).
		WithConditions(duckv1.Conditions{{Type: "Ready", Status: "True"}}).
		WithAnnotations(map[string]string{"a": "1"}).
		WithOwners(metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: "svc", UID: "u"}).
		WithPort(443).
		WithURL("https://example.org"))
	got, err := client.ApplyStatus(ctx, status, metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatal(err)
	}
	s := got.Status
	if s.ObservedGeneration != 2 || len(s.Conditions) != 1 || s.Conditions[0].Type != "Ready" || s.Annotations["a"] != "1" ||
		len(s.Owners) != 1 || s.Port != 443 || s.URL == nil || *s.URL != "https://example.org" {
		t.Fatalf("status %+v", s)
	}
	if got.Spec.Host != "svc.ns" || len(got.Spec.Hosts) != 2 {
		t.Fatalf("spec %+v", got.Spec)
	}
}
