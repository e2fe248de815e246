// Command demo is what `make demo` runs: it starts a local control plane,
// installs (and prints) the Mydemo CRD ctrlgen generated, starts the
// mydemo controller as its own process, installs the webhook
// configurations ctrlgen generated, applies config/sample.yaml, prints the
// reconciled Mydemo and the ConfigMap it owns, shows an invalid Mydemo
// refused and a port defaulted by the webhooks, gives the CRD its
// conversion webhook and reads the sample as v2, scrapes the controller's
// metrics without and with a token, and stops everything.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/ctrlgen/ctrlgen/testenv"
)

var (
	crdGVR    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	mydemoGVR = schema.GroupVersionResource{Group: "crddemo.k8s.io", Version: "v1", Resource: "mydemos"}
)

func main() {
	dir := flag.String("example-dir", "examples/mydemo", "the mydemo example's directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func step(format string, args ...any) { fmt.Printf("==> "+format+"\n", args...) }

func run(ctx context.Context, dir string) error {
	work, err := os.MkdirTemp("", "ctrlgen-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	step("building the mydemo controller")
	bin := filepath.Join(work, "mydemo")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./"+dir)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}

	step("starting etcd, kube-apiserver and kube-controller-manager on 127.0.0.1")
	env, err := testenv.Start(ctx, testenv.Options{})
	if err != nil {
		return err
	}
	defer func() {
		step("stopping the control plane")
		env.Stop()
	}()
	fmt.Println("    kubeconfig:", env.KubeconfigPath())
	cfg := env.Config()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	crdFile := filepath.Join(dir, "config", "crd", "crddemo.k8s.io_mydemos.yaml")
	step("installing the Mydemo CRD that ctrlgen generated from apis/crddemo/v1 and v2 (%s):", crdFile)
	crdYAML, err := os.ReadFile(crdFile)
	if err != nil {
		return err
	}
	fmt.Print(indent(string(crdYAML)))
	if err := apply(ctx, dyn, crdGVR, "", crdFile); err != nil {
		return err
	}
	if err := waitFor(ctx, "the CRD to be served", func() (bool, error) {
		_, err := dyn.Resource(mydemoGVR).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	}); err != nil {
		return err
	}
	crd, err := dyn.Resource(crdGVR).Get(ctx, "mydemos.crddemo.k8s.io", metav1.GetOptions{})
	if err != nil {
		return err
	}
	step("the apiserver serves it")
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	var established []map[string]any
	for _, c := range conditions {
		if m, _ := c.(map[string]any); m["type"] == "Established" || m["type"] == "NamesAccepted" {
			established = append(established, map[string]any{"type": m["type"], "status": m["status"]})
		}
	}
	if err := printYAML(map[string]any{"name": crd.GetName(), "conditions": established}); err != nil {
		return err
	}

	step("starting the mydemo controller (logs: %s)", filepath.Join(work, "mydemo.log"))
	logs, err := os.Create(filepath.Join(work, "mydemo.log"))
	if err != nil {
		return err
	}
	defer logs.Close()
	metricsAddr, err := freeAddr()
	if err != nil {
		return err
	}
	webhookAddr, err := freeAddr()
	if err != nil {
		return err
	}
	ctrl := exec.Command(bin, "--kubeconfig", env.KubeconfigPath(), "--leader-elect=true",
		"--leader-elect-namespace", "default", "--metrics-bind-address", metricsAddr, "--health-probe-bind-address", "127.0.0.1:0",
		"--webhook-bind-address", webhookAddr, "--webhook-hosts", "127.0.0.1")
	ctrl.Stdout, ctrl.Stderr = logs, logs
	if err := ctrl.Start(); err != nil {
		return err
	}
	defer func() {
		step("stopping the controller")
		ctrl.Process.Signal(syscall.SIGTERM)
		ctrl.Wait()
	}()

	webhookFile := filepath.Join(dir, "config", "webhook", "manifests.yaml")
	step("installing the webhook configurations ctrlgen generated from +ctrlgen:webhook (%s),\n    calling https://%s instead of the Service a deployment has; the controller writes their caBundle", webhookFile, webhookAddr)
	if err := installWebhooks(ctx, dyn, webhookFile, "https://"+webhookAddr); err != nil {
		return err
	}
	invalid := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "crddemo.k8s.io/v1", "kind": "Mydemo",
		"metadata": map[string]any{"name": "invalid", "namespace": "default"}, "spec": map[string]any{"ip": "not-an-ip", "port": int64(80)}}}
	var refusal error
	if err := waitFor(ctx, "the apiserver to call the webhooks", func() (bool, error) {
		_, refusal = dyn.Resource(mydemoGVR).Namespace("default").Create(ctx, invalid, metav1.CreateOptions{})
		return apierrors.IsInvalid(refusal), refusal
	}); err != nil {
		return err
	}

	step("applying %s/config/sample.yaml", dir)
	if err := apply(ctx, dyn, mydemoGVR, "default", filepath.Join(dir, "config", "sample.yaml")); err != nil {
		return err
	}
	var sample *unstructured.Unstructured
	if err := waitFor(ctx, "the sample to be Ready", func() (bool, error) {
		sample, err = dyn.Resource(mydemoGVR).Namespace("default").Get(ctx, "sample", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return ready(sample), nil
	}); err != nil {
		return err
	}

	step("the reconciled Mydemo's status")
	if err := printYAML(sample.Object["status"]); err != nil {
		return err
	}
	cmName, _, _ := unstructured.NestedString(sample.Object, "status", "configMapName")
	cm, err := kube.CoreV1().ConfigMaps("default").Get(ctx, cmName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	step("the ConfigMap it owns")
	cm.ManagedFields = nil
	if err := printYAML(map[string]any{"metadata": map[string]any{
		"name": cm.Name, "namespace": cm.Namespace, "ownerReferences": cm.OwnerReferences,
	}, "data": cm.Data}); err != nil {
		return err
	}

	step("a Mydemo whose spec.ip is not an IP address, refused by the validating webhook:")
	fmt.Printf("    %v\n", refusal)
	noPort := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "crddemo.k8s.io/v1", "kind": "Mydemo",
		"metadata": map[string]any{"name": "no-port", "namespace": "default"}, "spec": map[string]any{"ip": "10.0.0.9"}}}
	created, err := dyn.Resource(mydemoGVR).Namespace("default").Create(ctx, noPort, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	step("a Mydemo created without a port, defaulted by the mutating webhook:")
	if err := printYAML(map[string]any{"spec": created.Object["spec"]}); err != nil {
		return err
	}

	patchFile := filepath.Join(dir, "config", "crd", "patches", "webhook_in_mydemos.yaml")
	step("giving the CRD the conversion webhook ctrlgen generated from +ctrlgen:webhook:conversion (%s),\n    calling https://%s/convert; v1 is stored, the hub, and v2 converts through it", patchFile, webhookAddr)
	if err := useConversionWebhook(ctx, dyn, patchFile, "https://"+webhookAddr+"/convert"); err != nil {
		return err
	}
	mydemoV2 := schema.GroupVersionResource{Group: mydemoGVR.Group, Version: "v2", Resource: mydemoGVR.Resource}
	var asV2 *unstructured.Unstructured
	if err := waitFor(ctx, "the apiserver to convert with the injected CA bundle", func() (bool, error) {
		asV2, err = dyn.Resource(mydemoV2).Namespace("default").Get(ctx, "sample", metav1.GetOptions{})
		return err == nil, err
	}); err != nil {
		return err
	}
	step("the sample, written as v1, read as v2 (spec.ip is spec.address there):")
	if err := printYAML(map[string]any{"apiVersion": asV2.GetAPIVersion(), "spec": asV2.Object["spec"]}); err != nil {
		return err
	}

	step("its metrics, over HTTPS (a self-signed certificate) on %s", metricsAddr)
	for _, scraper := range []struct{ who, token string }{{"without a token", ""}, {"with the admin kubeconfig's token", cfg.BearerToken}} {
		status, reconciles, err := scrapeMetrics(ctx, metricsAddr, scraper.token)
		if err != nil {
			return err
		}
		fmt.Printf("    %s: %s%s\n", scraper.who, status, reconciles)
	}
	return nil
}

// scrapeMetrics GETs /metrics with token (if any) and returns the status
// and the reconcile counter's lines.
func scrapeMetrics(ctx context.Context, addr, token string) (status, reconciles string, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "https://"+addr+"/metrics", nil)
	if err != nil {
		return "", "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", err
	}
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "controller_runtime_reconcile_total{") {
			reconciles += "\n      " + strings.TrimSpace(line)
		}
	}
	return resp.Status, reconciles, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// apply creates the object in file, or leaves an existing one alone.
func apply(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	_, err = dyn.Resource(gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// useConversionWebhook applies the generated kustomize patch that gives
// the CRD its conversion webhook, calling url instead of the Service a
// deployment has, and waits for the controller to inject its CA bundle.
func useConversionWebhook(ctx context.Context, dyn dynamic.Interface, file, url string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	patch := map[string]any{}
	if err := yaml.Unmarshal(raw, &patch); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := unstructured.SetNestedField(patch, map[string]any{"url": url}, "spec", "conversion", "webhook", "clientConfig"); err != nil {
		return err
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	name, _, _ := unstructured.NestedString(patch, "metadata", "name")
	crds := dyn.Resource(crdGVR)
	if _, err := crds.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		return err
	}
	return waitFor(ctx, "the controller to inject its CA bundle into the CRD", func() (bool, error) {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		bundle, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return bundle != "", nil
	})
}

// installWebhooks creates the webhook configurations of a generated
// manifests.yaml, calling base (https://host:port) at each webhook's path
// instead of the Service.
func installWebhooks(ctx context.Context, dyn dynamic.Interface, file, base string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		for i, h := range hooks {
			h := h.(map[string]any)
			path, _, _ := unstructured.NestedString(h, "clientConfig", "service", "path")
			h["clientConfig"] = map[string]any{"url": base + path}
			hooks[i] = h
		}
		if err := unstructured.SetNestedSlice(obj.Object, hooks, "webhooks"); err != nil {
			return err
		}
		gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: strings.ToLower(obj.GetKind()) + "s"}
		if _, err := dyn.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

func ready(obj *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" && m["status"] == "True" {
			return true
		}
	}
	return false
}

func waitFor(ctx context.Context, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(ctx.Err(), last))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func printYAML(v any) error {
	out, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Print(indent(string(out)))
	return nil
}

func indent(s string) string {
	out := "    "
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "    "
		}
	}
	return out[:len(out)-4]
}
