package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	mydemowebhook "github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/admission"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/conversion"
)

var (
	mydemoGVR = schema.GroupVersionResource{Group: "crddemo.k8s.io", Version: "v1", Resource: "mydemos"}
	widgetsV1 = schema.GroupVersionResource{Group: widgetGroup, Version: "v1", Resource: "widgets"}
	widgetsV2 = schema.GroupVersionResource{Group: widgetGroup, Version: "v2", Resource: "widgets"}
)

// balancer stands for a Service in front of the webhook replicas: each
// connection goes to the next replica that accepts it.
type balancer struct {
	ln       net.Listener
	backends []string
	next     atomic.Uint32
}

func startBalancer(t *testing.T, backends []string) *balancer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &balancer{ln: ln, backends: backends}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go b.forward(in)
		}
	}()
	return b
}

func (b *balancer) forward(in net.Conn) {
	defer in.Close()
	start := int(b.next.Add(1))
	for i := range b.backends {
		out, err := net.Dial("tcp", b.backends[(start+i)%len(b.backends)])
		if err != nil {
			continue
		}
		defer out.Close()
		done := make(chan struct{})
		go func() {
			io.Copy(out, in)
			out.(*net.TCPConn).CloseWrite()
			close(done)
		}()
		io.Copy(in, out)
		in.(*net.TCPConn).CloseWrite()
		<-done
		return
	}
}

func widgetCRD(url string) *unstructured.Unstructured {
	schemaOf := func(spec map[string]any) map[string]any {
		return map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
			"spec": map[string]any{"type": "object", "properties": spec},
		}}}
	}
	v1 := schemaOf(map[string]any{"size": map[string]any{"type": "integer"}, "color": map[string]any{"type": "string"}, "replicas": map[string]any{"type": "integer"}})
	v2 := schemaOf(map[string]any{"size": map[string]any{"type": "integer"}, "colors": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, "replicas": map[string]any{"type": "integer"}})
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": false, "schema": v1},
				map[string]any{"name": "v2", "served": true, "storage": true, "schema": v2},
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": url + "/convert"},
			}},
		},
	}}
}

func widgetWebhookConfigs(ns, url string) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{widgetGroup}, APIVersions: []string{"v2"}, Resources: []string{"widgets"}}}}
	}
	only := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	mutateURL, validateURL := url+"/mutate-widget", url+"/validate-widget"
	return &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets-" + ns},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "mwidget." + widgetGroup, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &mutateURL},
				Rules: rule(admissionregistrationv1.Create, admissionregistrationv1.Update), FailurePolicy: &fail,
				MatchPolicy: &equivalent, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: only,
			}},
		}, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets-" + ns},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "vwidget." + widgetGroup, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &validateURL},
				Rules:         rule(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
				FailurePolicy: &fail, MatchPolicy: &equivalent, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: only,
			}},
		}
}

func widget(ns, name string, gvk schema.GroupVersionKind, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     spec,
	}}
}

// warningLog collects the warnings the apiserver passes on.
type warningLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

// TestWebhooks runs two replicas of a manager serving defaulting,
// validation and conversion for Widgets behind one address, with the
// manager's own certificates, against the real apiserver.
func TestWebhooks(t *testing.T) {
	e := env(t)
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	warned := &warningLog{}
	cfg := e.Config()
	cfg.WarningHandler = warned
	dyn := dynamic.NewForConfigOrDie(cfg)

	replicaAddrs := localAddrs(t, 2)
	lb := startBalancer(t, replicaAddrs)
	url := "https://" + lb.ln.Addr().String()

	crds := dyn.Resource(crdGVR)
	crd := widgetCRD(url)
	crds.Delete(ctx, crd.GetName(), metav1.DeleteOptions{})
	eventually(t, time.Minute, "an earlier Widget CRD to be gone", func() (bool, string) {
		_, err := crds.Get(ctx, crd.GetName(), metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { crds.Delete(context.Background(), crd.GetName(), metav1.DeleteOptions{}) })
	mutating, validating := widgetWebhookConfigs(ns, url)
	if _, err := kc.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kc.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), mutating.Name, metav1.DeleteOptions{})
	})
	if _, err := kc.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kc.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), validating.Name, metav1.DeleteOptions{})
	})

	// Short lifetimes, so that serving certificates and a CA are renewed
	// while the test runs.
	const caValidity = 45 * time.Second
	var replicas []*inProcessManager
	for _, addr := range replicaAddrs {
		o := manager.DefaultOptions()
		o.Kubeconfig, o.LeaderElect = e.KubeconfigPath(), false
		o.LeaderElectionNamespace = ns
		o.WebhookAddr, o.WebhookHosts = addr, []string{"127.0.0.1"}
		o.WebhookSecret, o.WebhookService = "widget-webhook-cert", "widget-webhook"
		o.WebhookCAValidity, o.WebhookCertValidity = caValidity, 12*time.Second
		o.WebhookCARotationGrace, o.WebhookCertSyncPeriod = 3*time.Second, 300*time.Millisecond
		replicas = append(replicas, startManagerWith(t, o, func(m *manager.Manager) {
			scheme := widgetScheme()
			m.RegisterWebhook("/mutate-widget", func(context.Context, *manager.Context) (http.Handler, error) {
				return admission.Defaulting(admission.NewDecoder[*widgetV2](scheme), widgetHooks{}), nil
			})
			m.RegisterWebhook("/validate-widget", func(context.Context, *manager.Context) (http.Handler, error) {
				return admission.Validating(admission.NewDecoder[*widgetV2](scheme), widgetHooks{}), nil
			})
			m.RegisterWebhook("/convert", func(context.Context, *manager.Context) (http.Handler, error) {
				return conversion.NewWebhook(scheme), nil
			})
		}))
	}
	// Ready means serving a valid certificate; the apiserver trusts it once
	// the bundle is injected and it has seen the new configurations.
	v2 := dyn.Resource(widgetsV2).Namespace(ns)
	v1 := dyn.Resource(widgetsV1).Namespace(ns)
	eventually(t, time.Minute, "the apiserver to call the webhooks", func() (bool, string) {
		_, err := v1.Create(ctx, widget(ns, "probe", widgetV1GVK, map[string]any{"size": int64(1)}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, fmt.Sprint(err)
	})

	t.Run("defaulting", func(t *testing.T) {
		got, err := v2.Create(ctx, widget(ns, "defaulted", widgetV2GVK, map[string]any{"size": int64(2)}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _ := unstructured.NestedMap(got.Object, "spec")
		if want := map[string]any{"size": int64(2), "replicas": int64(3), "colors": []any{"white"}}; !reflect.DeepEqual(spec, want) {
			t.Errorf("spec %v, want %v", spec, want)
		}
	})

	t.Run("validation", func(t *testing.T) {
		// Written as v1, the object reaches the v2 webhook converted.
		for gvk, client := range map[schema.GroupVersionKind]dynamic.ResourceInterface{widgetV2GVK: v2, widgetV1GVK: v1} {
			_, err := client.Create(ctx, widget(ns, "bad", gvk, map[string]any{"size": int64(0)}), metav1.CreateOptions{})
			want := `admission webhook "vwidget.webhooktest.ctrlgen.io" denied the request: Widget.webhooktest.ctrlgen.io "bad" is invalid: spec.size: Invalid value: 0: must be at least 1`
			if !apierrors.IsInvalid(err) || err.Error() != want {
				t.Errorf("%s: got %v, want an Invalid error %q", gvk.Version, err, want)
				continue
			}
			var status apierrors.APIStatus
			errors.As(err, &status)
			if d := status.Status().Details; d == nil || len(d.Causes) != 1 || d.Causes[0].Field != "spec.size" {
				t.Errorf("%s: details %+v", gvk.Version, d)
			}
		}
		warned.mu.Lock()
		warned.msgs = nil
		warned.mu.Unlock()
		if _, err := v2.Create(ctx, widget(ns, "big", widgetV2GVK, map[string]any{"size": int64(200)}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		warned.mu.Lock()
		defer warned.mu.Unlock()
		if !reflect.DeepEqual(warned.msgs, []string{"a size above 100 is unusual"}) {
			t.Errorf("warnings %q", warned.msgs)
		}
	})

	t.Run("delete is validated", func(t *testing.T) {
		w := widget(ns, "protected", widgetV2GVK, map[string]any{"size": int64(1)})
		w.SetLabels(map[string]string{"protected": "true"})
		if _, err := v2.Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := v2.Delete(ctx, "protected", metav1.DeleteOptions{})
		if err == nil || !strings.Contains(err.Error(), "this Widget is protected") || !apierrors.IsForbidden(err) {
			t.Fatalf("delete of a protected Widget: %v", err)
		}
		patch := []byte(`{"metadata":{"labels":{"protected":null}}}`)
		if _, err := v2.Patch(ctx, "protected", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := v2.Delete(ctx, "protected", metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete once unprotected: %v", err)
		}
	})

	t.Run("conversion round trip", func(t *testing.T) {
		created, err := v1.Create(ctx, widget(ns, "roundtrip", widgetV1GVK, map[string]any{"size": int64(5), "color": "red", "replicas": int64(2)}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		asV2, err := v2.Get(ctx, "roundtrip", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if colors, _, _ := unstructured.NestedStringSlice(asV2.Object, "spec", "colors"); !reflect.DeepEqual(colors, []string{"red"}) {
			t.Errorf("read as v2: colors %v", colors)
		}
		asV1, err := v1.Get(ctx, "roundtrip", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(asV1.Object["spec"], created.Object["spec"]) || !reflect.DeepEqual(asV1.GetAnnotations(), created.GetAnnotations()) ||
			asV1.GetResourceVersion() != created.GetResourceVersion() {
			t.Errorf("v1 → v2 → v1:\n got %v\nwant %v", asV1.Object, created.Object)
		}
		// v2 holds more than v1: the rest travels in an annotation.
		if _, err := v2.Create(ctx, widget(ns, "colorful", widgetV2GVK, map[string]any{"size": int64(1), "colors": []any{"a", "b", "c"}}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		old, err := v1.Get(ctx, "colorful", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		unstructured.SetNestedField(old.Object, int64(7), "spec", "size")
		if _, err := v1.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		back, err := v2.Get(ctx, "colorful", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _ := unstructured.NestedMap(back.Object, "spec")
		if want := map[string]any{"size": int64(7), "colors": []any{"a", "b", "c"}, "replicas": int64(3)}; !reflect.DeepEqual(spec, want) || len(back.GetAnnotations()) != 0 {
			t.Errorf("v2 updated through v1: spec %v annotations %v, want %v and none", spec, back.GetAnnotations(), want)
		}
	})

	t.Run("a list of 1000 is converted", func(t *testing.T) {
		const n = 1000
		createMany(t, n, func(i int) error {
			_, err := v2.Create(ctx, widget(ns, fmt.Sprintf("many-%04d", i), widgetV2GVK, map[string]any{"size": int64(i + 1), "colors": []any{"blue"}}), metav1.CreateOptions{})
			return err
		})
		list, err := v1.List(ctx, metav1.ListOptions{LabelSelector: ""})
		if err != nil {
			t.Fatal(err)
		}
		many := 0
		for _, item := range list.Items {
			if !strings.HasPrefix(item.GetName(), "many-") {
				continue
			}
			many++
			if item.GetAPIVersion() != widgetGroup+"/v1" {
				t.Fatalf("%s: apiVersion %s", item.GetName(), item.GetAPIVersion())
			}
			if c, _, _ := unstructured.NestedString(item.Object, "spec", "color"); c != "blue" {
				t.Fatalf("%s: color %q", item.GetName(), c)
			}
		}
		if many != n {
			t.Errorf("listed %d of %d as v1", many, n)
		}
	})

	t.Run("certificates rotate while requests flow", func(t *testing.T) {
		// Through a CA's rotation: its successor joins the bundle when a
		// third of its 45s is left and signs a few seconds later.
		serials, issuers := map[string]bool{}, map[string]bool{}
		deadline := time.Now().Add(caValidity + 10*time.Second)
		requests, failures := 0, 0
		var firstFailure error
		for i := 0; time.Now().Before(deadline) || len(issuers) < 2; i++ {
			if time.Now().After(deadline.Add(time.Minute)) {
				t.Fatalf("no CA rotation seen in %v: issuers %d, serials %d", caValidity+70*time.Second, len(issuers), len(serials))
			}
			name := fmt.Sprintf("rotation-%d", i)
			gvr, gvk := v2, widgetV2GVK
			if i%2 == 1 {
				gvr, gvk = v1, widgetV1GVK
			}
			requests++
			if _, err := gvr.Create(ctx, widget(ns, name, gvk, map[string]any{"size": int64(1)}), metav1.CreateOptions{}); err != nil {
				failures++
				if firstFailure == nil {
					firstFailure = err
				}
			}
			if cert := servedCertificate(t, lb.ln.Addr().String()); cert != nil {
				serials[cert.SerialNumber.String()] = true
				issuers[string(cert.AuthorityKeyId)] = true
			}
		}
		t.Logf("%d requests, %d serving certificates from %d CAs", requests, len(serials), len(issuers))
		if failures > 0 {
			t.Errorf("%d of %d requests failed during the rotation; the first: %v", failures, requests, firstFailure)
		}
		if len(serials) < 3 {
			t.Errorf("%d serving certificates seen, want the 12s certificate renewed at least twice", len(serials))
		}
	})

	t.Run("one replica down, admission goes on", func(t *testing.T) {
		replicas[0].stop(t)
		// A call the apiserver writes on a kept-alive connection to the
		// stopped replica as that replica closes it fails with EOF:
		// HTTP/1.1's idle-connection race, which the apiserver does not
		// retry for admission. Such a connection is dropped on its
		// failure; from then on every call must go through.
		for i := 0; ; i++ {
			_, err := v2.Create(ctx, widget(ns, fmt.Sprintf("first-%d", i), widgetV2GVK, map[string]any{"size": int64(0)}), metav1.CreateOptions{})
			if apierrors.IsInvalid(err) {
				break
			}
			if i == 10 || err == nil || !strings.Contains(err.Error(), ": EOF") && !strings.Contains(err.Error(), "connection reset by peer") {
				t.Fatalf("call %d with one replica down: got %v, want the validator's refusal", i, err)
			}
			t.Logf("call %d on a connection to the stopped replica: %v", i, err)
		}
		for i := range 50 {
			_, err := v2.Create(ctx, widget(ns, fmt.Sprintf("survivor-%d", i), widgetV2GVK, map[string]any{"size": int64(0)}), metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("request %d with one replica down: got %v, want the validator's refusal", i, err)
			}
			if _, err := v1.Create(ctx, widget(ns, fmt.Sprintf("survivor-%d", i), widgetV1GVK, map[string]any{"size": int64(1)}), metav1.CreateOptions{}); err != nil {
				t.Fatalf("request %d with one replica down: %v", i, err)
			}
		}
	})
}

// servedCertificate is the certificate the webhook address serves now.
func servedCertificate(t *testing.T, addr string) *x509.Certificate {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Logf("dialing the webhooks: %v", err)
		return nil
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// mydemoWebhookManifests is the example's config/webhook/manifests.yaml,
// generated from +ctrlgen:webhook on Mydemo.
const mydemoWebhookManifests = "../examples/mydemo/config/webhook/manifests.yaml"

// applyWebhookManifests creates the webhook configurations of a generated
// manifests.yaml as a deployment's kustomization would, but calling base
// (https://127.0.0.1:port) instead of the Service, and only for objects in
// namespace ns; they are deleted on cleanup.
func applyWebhookManifests(t *testing.T, dyn dynamic.Interface, file, base, ns string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil || len(obj.Object) == 0 {
			continue
		}
		obj.SetName(obj.GetName() + "-" + ns)
		hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		for i, h := range hooks {
			h := h.(map[string]any)
			path, _, _ := unstructured.NestedString(h, "clientConfig", "service", "path")
			h["clientConfig"] = map[string]any{"url": base + path}
			h["namespaceSelector"] = map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}
			hooks[i] = h
		}
		unstructured.SetNestedSlice(obj.Object, hooks, "webhooks")
		gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1",
			Resource: strings.ToLower(obj.GetKind()) + "s"}
		if _, err := dyn.Resource(gvr).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		t.Cleanup(func() { dyn.Resource(gvr).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
	}
}

// TestMydemoWebhooks serves the webhooks ctrlgen generated for the
// example's Mydemo (+ctrlgen:webhook:defaulting,validation), with the
// generated manifests, against the real apiserver.
func TestMydemoWebhooks(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, kc)
	warned := &warningLog{}
	cfg := e.Config()
	cfg.WarningHandler = warned
	dyn := dynamic.NewForConfigOrDie(cfg)

	addr := localAddr(t)
	o := manager.DefaultOptions()
	o.Kubeconfig, o.LeaderElect, o.LeaderElectionNamespace = e.KubeconfigPath(), false, ns
	o.WebhookAddr, o.WebhookHosts = addr, []string{"127.0.0.1"}
	startManagerWith(t, o, mydemowebhook.Register)
	applyWebhookManifests(t, dyn, mydemoWebhookManifests, "https://"+addr, ns)

	mydemos := dyn.Resource(mydemoGVR).Namespace(ns)
	mydemo := func(name, ip string, port int64) *unstructured.Unstructured {
		spec := map[string]any{"ip": ip}
		if port != 0 {
			spec["port"] = port
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "crddemo.k8s.io/v1", "kind": "Mydemo",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
	}
	eventually(t, time.Minute, "the apiserver to call the webhooks", func() (bool, string) {
		_, err := mydemos.Create(ctx, mydemo("probe", "10.0.0.1", 1), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, fmt.Sprint(err)
	})

	byGenerated, _ := jsoncodec.Decodes()
	got, err := mydemos.Create(ctx, mydemo("defaulted", "10.0.0.1", 0), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if port, _, _ := unstructured.NestedInt64(got.Object, "spec", "port"); port != mydemowebhook.DefaultPort {
		t.Errorf("spec.port = %d, want the default %d", port, mydemowebhook.DefaultPort)
	}
	if after, _ := jsoncodec.Decodes(); after-byGenerated < 2 {
		t.Errorf("the webhooks decoded %d Mydemos with the generated decoder, want 2 (defaulting and validation)", after-byGenerated)
	}

	_, err = mydemos.Create(ctx, mydemo("bad", "not-an-ip", 1), metav1.CreateOptions{})
	want := `admission webhook "vmydemo-v1.kb.io" denied the request: Mydemo.crddemo.k8s.io "bad" is invalid: spec.ip: Invalid value: "not-an-ip": must be an IPv4 or IPv6 address`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("an invalid Mydemo: got %v, want %q", err, want)
	}

	warned.mu.Lock()
	warned.msgs = nil
	warned.mu.Unlock()
	if _, err := mydemos.Create(ctx, mydemo("loopback", "127.0.0.1", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	warned.mu.Lock()
	if len(warned.msgs) != 1 || !strings.Contains(warned.msgs[0], "loopback") {
		t.Errorf("warnings %q", warned.msgs)
	}
	warned.mu.Unlock()

	protected := mydemo("protected", "10.0.0.2", 1)
	protected.SetLabels(map[string]string{mydemowebhook.ProtectedLabel: "true"})
	if _, err := mydemos.Create(ctx, protected, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := mydemos.Delete(ctx, "protected", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "remove the label to delete it") {
		t.Errorf("deleting a protected Mydemo: %v", err)
	}
	if err := mydemos.Delete(ctx, "defaulted", metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting an unprotected Mydemo: %v", err)
	}
}
