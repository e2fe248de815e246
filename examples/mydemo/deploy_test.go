package main

import (
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// The checks here need no cluster; e2e/deploy_test.go applies
// config/default to a real apiserver (server-side dry-run).

// managerDeployment returns the Deployment of `kustomize build
// config/manager`.
func managerDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join("config", "manager"))
	if err != nil {
		t.Fatalf("kustomize build config/manager: %v", err)
	}
	for _, r := range resources.Resources() {
		if r.GetKind() != "Deployment" {
			continue
		}
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		if err := yaml.UnmarshalStrict(b, d); err != nil {
			t.Fatalf("the Deployment: %v", err)
		}
		return d
	}
	t.Fatal("config/manager has no Deployment")
	return nil
}

// port is the port number of addr (":8081"), or of the named port of c.
func port(t *testing.T, c *corev1.Container, p intstr.IntOrString) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	t.Fatalf("container %s has no port named %q", c.Name, p.StrVal)
	return 0
}

func addrPort(t *testing.T, addr string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

func TestManagerDeploymentIsLockedDownAndMatchesTheFlags(t *testing.T) {
	d := managerDeployment(t)
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := &pod.Containers[0]

	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and seccomp RuntimeDefault", psc)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
		t.Errorf("container securityContext %+v: want a read-only root, no privilege escalation, all capabilities dropped", sc)
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[name], c.Resources.Limits[name]
		if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
			t.Errorf("%s: request %v, limit %v", name, req.String(), lim.String())
		}
	}
	if pod.ServiceAccountName != "controller-manager" {
		t.Errorf("ServiceAccount %q; config/rbac makes controller-manager", pod.ServiceAccountName)
	}
	if !slices.Equal(c.Command, []string{"/manager"}) {
		t.Errorf("command %q; the Dockerfile puts the binary at /manager", c.Command)
	}

	// Every argument is a flag of this command, and every $(VAR) in them
	// is the container's.
	env := map[string]bool{}
	for _, e := range c.Env {
		env[e.Name] = true
	}
	for _, m := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(strings.Join(c.Args, " "), -1) {
		if !env[m[1]] {
			t.Errorf("the arguments use $(%s), which the container's env does not set", m[1])
		}
	}
	opts, err := parseFlags(flag.NewFlagSet("mydemo", flag.ContinueOnError), c.Args)
	if err != nil {
		t.Fatalf("the Deployment's arguments %q: %v", c.Args, err)
	}
	if !opts.LeaderElect || opts.Shards != 0 {
		t.Errorf("leader election %v, shards %d: the Deployment runs with leader election", opts.LeaderElect, opts.Shards)
	}
	if !opts.MetricsSecure || opts.MetricsCertDir != "" {
		t.Errorf("metrics secure %v, certificate directory %q: the Deployment serves secure metrics with a self-signed certificate", opts.MetricsSecure, opts.MetricsCertDir)
	}
	if want := port(t, c, intstr.FromString("metrics")); addrPort(t, opts.MetricsAddr) != want {
		t.Errorf("--metrics-bind-address %s, but the container's metrics port is %d", opts.MetricsAddr, want)
	}
	health := addrPort(t, opts.HealthAddr)
	for name, probe := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		want := map[string]string{"liveness": "/healthz", "readiness": "/readyz"}[name]
		if probe == nil || probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", name)
			continue
		}
		if probe.HTTPGet.Path != want || port(t, c, probe.HTTPGet.Port) != health || probe.HTTPGet.Scheme == corev1.URISchemeHTTPS {
			t.Errorf("%s probe %+v: want HTTP GET %s on --health-probe-bind-address's port %d", name, probe.HTTPGet, want, health)
		}
	}
}

func TestMetricsServiceSelectsTheManagersMetricsPort(t *testing.T) {
	d := managerDeployment(t)
	raw, err := os.ReadFile(filepath.Join("config", "default", "metrics_service.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{}
	if err := yaml.UnmarshalStrict(raw, svc); err != nil {
		t.Fatal(err)
	}
	labels := d.Spec.Template.Labels
	for k, v := range svc.Spec.Selector {
		if labels[k] != v {
			t.Errorf("the Service selects %s=%s; the manager's pods have %v", k, v, labels)
		}
	}
	if len(svc.Spec.Selector) == 0 || len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service spec %+v", svc.Spec)
	}
	c := &d.Spec.Template.Spec.Containers[0]
	if got, want := port(t, c, svc.Spec.Ports[0].TargetPort), port(t, c, intstr.FromString("metrics")); got != want || svc.Spec.Ports[0].Port != 8443 {
		t.Errorf("the Service sends %d to port %d; the metrics are on %d", svc.Spec.Ports[0].Port, got, want)
	}
}

func TestCRDKustomizationListsEveryGeneratedCRD(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("config", "crd", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	crds, err := filepath.Glob(filepath.Join("config", "crd", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, f := range crds {
		if name := filepath.Base(f); name != "kustomization.yaml" && name != "kustomizeconfig.yaml" {
			generated = append(generated, name)
		}
	}
	slices.Sort(k.Resources)
	if len(generated) == 0 || !slices.Equal(generated, k.Resources) {
		t.Errorf("config/crd/kustomization.yaml lists %q; ctrlgen generated %q", k.Resources, generated)
	}
}

// TestWebhooksReachTheManagerThroughConfigDefault: in what config/default
// deploys, every webhook (the Mydemo CRD's conversion webhook too) calls
// the Service config/webhook brings, under
// the name and namespace config/default gives it; that Service selects
// the manager's pods and sends to their webhook port; and the manager is
// told that name (--webhook-service), for its serving certificate and the
// CA bundle it writes into those configurations.
func TestWebhooksReachTheManagerThroughConfigDefault(t *testing.T) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join("config", "default"))
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	var deploy *appsv1.Deployment
	var svc *corev1.Service
	type clientConfig struct {
		Service *struct{ Name, Namespace string } `json:"service"`
	}
	var calls []clientConfig
	for _, r := range resources.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		switch r.GetKind() {
		case "Deployment":
			deploy = &appsv1.Deployment{}
			if err := yaml.Unmarshal(b, deploy); err != nil {
				t.Fatal(err)
			}
		case "Service":
			if strings.HasSuffix(r.GetName(), "webhook-service") {
				svc = &corev1.Service{}
				if err := yaml.Unmarshal(b, svc); err != nil {
					t.Fatal(err)
				}
			}
		case "CustomResourceDefinition":
			var crd struct {
				Spec struct {
					Conversion struct {
						Webhook struct {
							ClientConfig clientConfig `json:"clientConfig"`
						} `json:"webhook"`
					} `json:"conversion"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal(b, &crd); err != nil {
				t.Fatal(err)
			}
			if crd.Spec.Conversion.Webhook.ClientConfig.Service == nil {
				t.Errorf("CRD %s has no conversion webhook", r.GetName())
			}
			calls = append(calls, crd.Spec.Conversion.Webhook.ClientConfig)
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			var cfg struct {
				Webhooks []struct {
					ClientConfig clientConfig `json:"clientConfig"`
				} `json:"webhooks"`
			}
			if err := yaml.Unmarshal(b, &cfg); err != nil {
				t.Fatal(err)
			}
			for _, w := range cfg.Webhooks {
				calls = append(calls, w.ClientConfig)
			}
		}
	}
	if deploy == nil || svc == nil || len(calls) == 0 {
		t.Fatalf("config/default deploys the manager (%v), the webhook Service (%v) and %d webhooks; want all three", deploy != nil, svc != nil, len(calls))
	}
	for _, c := range calls {
		if c.Service == nil || c.Service.Name != svc.Name || c.Service.Namespace != svc.Namespace {
			t.Errorf("a webhook calls %+v; the Service is %s/%s", c.Service, svc.Namespace, svc.Name)
		}
	}
	if svc.Namespace != deploy.Namespace {
		t.Errorf("the webhook Service is in %s, the manager in %s", svc.Namespace, deploy.Namespace)
	}
	labels := deploy.Spec.Template.Labels
	for k, v := range svc.Spec.Selector {
		if labels[k] != v {
			t.Errorf("the webhook Service selects %s=%s; the manager's pods have %v", k, v, labels)
		}
	}
	c := &deploy.Spec.Template.Spec.Containers[0]
	if len(svc.Spec.Selector) == 0 || len(svc.Spec.Ports) != 1 || port(t, c, svc.Spec.Ports[0].TargetPort) != 9443 {
		t.Errorf("the webhook Service %+v: want one port to the manager's webhook server, 9443", svc.Spec)
	}
	if !slices.Contains(c.Args, "--webhook-service="+svc.Name) {
		t.Errorf("the manager's args %q do not name its webhook Service %s", c.Args, svc.Name)
	}
}
