package webhookcert

import (
	"context"
	"encoding/base64"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

func crd(name string, service map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"conversion": map[string]any{"strategy": "None"}},
	}}
	if service != nil {
		u.Object["spec"] = map[string]any{"conversion": map[string]any{"strategy": "Webhook",
			"webhook": map[string]any{"clientConfig": map[string]any{"service": service}}}}
	}
	return u
}

func TestInjectWritesOnlyThisServersWebhooks(t *testing.T) {
	ctx := context.Background()
	ours := &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook-service"}
	theirs := &admissionregistrationv1.ServiceReference{Namespace: "other", Name: "webhook-service"}
	url := "https://127.0.0.1:9443/validate-x"
	kube := fake.NewClientset(
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{
				{Name: "a", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: ours}},
				{Name: "b", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: theirs, CABundle: []byte("keep")}},
			}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "c", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}}}},
	)
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClient(scheme,
		crd("ours.example.com", map[string]any{"namespace": "system", "name": "webhook-service"}),
		crd("theirs.example.com", map[string]any{"namespace": "other", "name": "webhook-service"}),
		crd("none.example.com", nil))
	target := Target{Service: types.NamespacedName{Namespace: "system", Name: "webhook-service"}, Hosts: []string{"127.0.0.1"}, CRDs: true}

	n, err := Inject(ctx, kube, dyn, target, []byte("bundle"))
	if err != nil || n != 3 {
		t.Fatalf("changed %d objects (%v), want 3", n, err)
	}
	m, _ := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "m", metav1.GetOptions{})
	if string(m.Webhooks[0].ClientConfig.CABundle) != "bundle" || string(m.Webhooks[1].ClientConfig.CABundle) != "keep" {
		t.Errorf("mutating: %q %q", m.Webhooks[0].ClientConfig.CABundle, m.Webhooks[1].ClientConfig.CABundle)
	}
	v, _ := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "v", metav1.GetOptions{})
	if string(v.Webhooks[0].ClientConfig.CABundle) != "bundle" {
		t.Errorf("validating by URL: %q", v.Webhooks[0].ClientConfig.CABundle)
	}
	for name, want := range map[string]string{"ours.example.com": base64.StdEncoding.EncodeToString([]byte("bundle")), "theirs.example.com": "", "none.example.com": ""} {
		c, _ := dyn.Resource(CRDs).Get(ctx, name, metav1.GetOptions{})
		got, _, _ := unstructured.NestedString(c.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		if got != want {
			t.Errorf("CRD %s: caBundle %q, want %q", name, got, want)
		}
	}
	if n, err := Inject(ctx, kube, dyn, target, []byte("bundle")); err != nil || n != 0 {
		t.Errorf("second injection changed %d (%v), want nothing", n, err)
	}
}
