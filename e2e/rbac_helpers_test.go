package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// Helpers for running the examples' controllers as the ServiceAccount
// bound to the RBAC ctrlgen generated for them (examples/*/config/rbac),
// and for seeing every request the apiserver refuses.

// The examples' generated config/rbac, relative to this package.
const (
	mydemoRBACDir       = "../examples/mydemo/config/rbac"
	configMapSetRBACDir = "../examples/configmapset/config/rbac"
)

// forbidden is a request the apiserver answered with 403 Forbidden.
type forbidden struct {
	method, path string
	// verb, group and resource (with its subresource) are what the
	// authorizer's message says the user may not do; empty when an
	// admission plugin refused.
	verb, group, resource string
	message               string
	at                    time.Time
}

func (f forbidden) String() string { return fmt.Sprintf("%s %s: %s", f.method, f.path, f.message) }

// rbacDenied is the RBAC authorizer's message, as in `User "x" cannot
// list resource "mydemos" in API group "crddemo.k8s.io" at the cluster scope`.
var rbacDenied = regexp.MustCompile(`cannot (\S+) resource "([^"]+)" in API group "([^"]*)"`)

// forbiddenLog records 403 responses.
type forbiddenLog struct {
	mu      sync.Mutex
	seen    []forbidden
	excused []excuse
}

// excuse is a time when refusals are not the role's doing.
type excuse struct {
	from, to time.Time
	why      string
}

// excuse makes checkNone accept the refusals recorded from from until a
// second after to (a response sent before to may be read a little after).
func (l *forbiddenLog) excuse(from, to time.Time, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.excused = append(l.excused, excuse{from, to.Add(time.Second), why})
}

func (l *forbiddenLog) record(resp *http.Response) {
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	f := forbidden{method: resp.Request.Method, path: resp.Request.URL.Path, message: string(body), at: time.Now()}
	status := &metav1.Status{}
	if err := runtime.DecodeInto(statusDecoder, body, status); err == nil && status.Message != "" {
		f.message = status.Message
	}
	if m := rbacDenied.FindStringSubmatch(f.message); m != nil {
		f.verb, f.resource, f.group = m[1], m[2], m[3]
	}
	l.mu.Lock()
	l.seen = append(l.seen, f)
	l.mu.Unlock()
}

// take returns what was recorded and forgets it.
func (l *forbiddenLog) take() []forbidden {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := l.seen
	l.seen = nil
	return seen
}

// find returns the first recorded refusal match accepts.
func (l *forbiddenLog) find(match func(forbidden) bool) (forbidden, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.seen {
		if match(f) {
			return f, true
		}
	}
	return forbidden{}, false
}

// checkNone fails the test for every refusal recorded, but those of
// writes to a namespace being deleted (the controllers also see the
// objects of namespaces other tests have just deleted, and the
// NamespaceLifecycle admission plugin refuses new content there whatever
// the role) and those of an excused time.
func (l *forbiddenLog) checkNone(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	excused := l.excused
	l.mu.Unlock()
	for _, f := range l.take() {
		if strings.Contains(f.message, "because it is being terminated") {
			continue
		}
		why := ""
		for _, e := range excused {
			if !f.at.Before(e.from) && !f.at.After(e.to) {
				why = e.why
			}
		}
		if why != "" {
			t.Logf("excused (%s): %s", why, f)
			continue
		}
		t.Errorf("the apiserver refused a request of the controller: %s", f)
	}
}

// wrap is a rest.Config WrapTransport that records refusals.
func (l *forbiddenLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusForbidden {
			l.record(resp)
		}
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// statusDecoder reads a Status in JSON or, as client-go's clientset asks
// for the built-in kinds, protobuf.
var statusDecoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(s).UniversalDeserializer()
}()

// apiProxy is a reverse proxy in front of the apiserver, for clients that
// run in another process: it forwards each request with its own
// credentials, records every 403, and can run a test's action just before
// it forwards a chosen request. It serves TLS, since client-go reads a
// kubeconfig's credentials only for a TLS server.
type apiProxy struct {
	url    string
	caData []byte // PEM of its certificate
	log    *forbiddenLog

	mu    sync.Mutex
	hooks []*proxyHook
}

type proxyHook struct {
	match func(*http.Request) bool
	run   func()
	done  chan struct{}
}

func startAPIProxy(t *testing.T, e *testenv.Env, l *forbiddenLog) *apiProxy {
	t.Helper()
	admin := e.Config()
	target, err := url.Parse(admin.Host)
	if err != nil {
		t.Fatal(err)
	}
	// TLS to the apiserver, no credentials: each request brings its own.
	transport, err := rest.TransportFor(&rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}})
	if err != nil {
		t.Fatal(err)
	}
	p := &apiProxy{log: l}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = transport
	rp.FlushInterval = -1 // watches stream
	rp.ErrorLog = log.New(io.Discard, "", 0)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusForbidden {
			l.record(resp)
		}
		return nil
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.runHooks(r)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	p.url = srv.URL
	p.caData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return p
}

// before runs action once, just before the first request that match
// accepts is forwarded; the returned channel is closed once it has run.
func (p *apiProxy) before(match func(*http.Request) bool, action func()) <-chan struct{} {
	h := &proxyHook{match: match, run: action, done: make(chan struct{})}
	p.mu.Lock()
	p.hooks = append(p.hooks, h)
	p.mu.Unlock()
	return h.done
}

func (p *apiProxy) runHooks(r *http.Request) {
	p.mu.Lock()
	var run []*proxyHook
	kept := p.hooks[:0]
	for _, h := range p.hooks {
		if h.match(r) {
			run = append(run, h)
		} else {
			kept = append(kept, h)
		}
	}
	p.hooks = kept
	p.mu.Unlock()
	for _, h := range run {
		h.run()
		close(h.done)
	}
}

// rbacAccount is the identity an example's manager runs as: the
// ServiceAccount of its generated config/rbac, with every object its
// kustomization.yaml lists applied as kustomize would with a namespace
// and a name prefix, and a token from the TokenRequest API.
type rbacAccount struct {
	dir        string // the config/rbac
	ns, prefix string
	sa         string // the ServiceAccount's name
	token      string
	log        *forbiddenLog
	proxy      *apiProxy
	kubeconfig string // through the proxy, as the ServiceAccount
	// objects are what was applied, by kind and generated name.
	objects map[string]*unstructured.Unstructured
}

// newMydemoAccount is newAccount for examples/mydemo, once the Mydemo CRD
// is installed and the apiserver admits the ConfigMaps the controller
// creates (waitOwnerKindAdmitted).
func newMydemoAccount(t *testing.T, e *testenv.Env, ns string) *rbacAccount {
	t.Helper()
	installMydemoCRD(t, e)
	a := newAccount(t, e, ns, mydemoRBACDir)
	a.waitOwnerKindAdmitted(t, e, crddemov1.SchemeGroupVersion.WithKind("Mydemo"))
	return a
}

// newAccount applies the generated RBAC of dir in ns and returns the
// account. A request the apiserver refuses it fails the test at the end
// (see forbiddenLog.checkNone).
func newAccount(t *testing.T, e *testenv.Env, ns, dir string) *rbacAccount {
	t.Helper()
	ctx := context.Background()
	a := &rbacAccount{dir: dir, ns: ns, prefix: ns + "-", log: &forbiddenLog{}, objects: map[string]*unstructured.Unstructured{}}
	dyn, err := dynamic.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range generatedRBAC(t, dir) {
		kind, name := obj.GetKind(), obj.GetName()
		a.objects[kind+"/"+name] = obj
		gvr, namespaced := rbacResource(t, kind)
		a.kustomize(obj, namespaced)
		res := dyn.Resource(gvr)
		var ri dynamic.ResourceInterface = res
		if namespaced {
			ri = res.Namespace(ns)
		} else {
			t.Cleanup(func() { _ = res.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
		}
		if _, err := ri.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("applying %s %s: %v", kind, name, err)
		}
		if kind == "ServiceAccount" {
			a.sa = obj.GetName()
		}
	}
	if a.sa == "" {
		t.Fatalf("%s has no ServiceAccount", dir)
	}
	kc := kubernetes.NewForConfigOrDie(e.Config())
	tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, a.sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.token = tr.Status.Token
	a.proxy = startAPIProxy(t, e, a.log)
	a.kubeconfig = filepath.Join(t.TempDir(), "mydemo.kubeconfig")
	if err := os.WriteFile(a.kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: mydemo
  user:
    token: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: mydemo
current-context: e2e
`, a.proxy.url, base64.StdEncoding.EncodeToString(a.proxy.caData), a.token)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The bindings are in effect once the authorizer says so.
	first := a.rules(t, "ClusterRole", "manager-role")[0]
	a.waitAllowed(t, e, first.Verbs[0], first.APIGroups[0], first.Resources[0], "", true)
	a.waitAllowed(t, e, "get", "coordination.k8s.io", "leases", ns, true)
	t.Cleanup(func() { a.log.checkNone(t) })
	return a
}

// kustomize does what kustomize's namePrefix and namespace do to obj.
func (a *rbacAccount) kustomize(obj *unstructured.Unstructured, namespaced bool) {
	obj.SetName(a.prefix + obj.GetName())
	if namespaced {
		obj.SetNamespace(a.ns)
	}
	if name, ok, _ := unstructured.NestedString(obj.Object, "roleRef", "name"); ok {
		_ = unstructured.SetNestedField(obj.Object, a.prefix+name, "roleRef", "name")
	}
	subjects, _, _ := unstructured.NestedSlice(obj.Object, "subjects")
	for _, s := range subjects {
		if s, ok := s.(map[string]any); ok && s["kind"] == "ServiceAccount" {
			s["name"] = a.prefix + s["name"].(string)
			s["namespace"] = a.ns
		}
	}
	if subjects != nil {
		_ = unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
	}
}

// waitOwnerKindAdmitted waits until the OwnerReferencesPermissionEnforcement
// admission plugin lets the account create, in its namespace, a ConfigMap
// whose ownerReference to an object of gvk blocks the owner's deletion.
// Right after a CRD is created the plugin refuses that (it "cannot find
// RESTMapping" for the new kind) until the apiserver's discovery catches
// up: the role is not at fault, and a controller started then would be
// refused for a while. The probes' refusals are not recorded.
func (a *rbacAccount) waitOwnerKindAdmitted(t *testing.T, e *testenv.Env, gvk schema.GroupVersionKind) {
	t.Helper()
	ctx := context.Background()
	cfg := a.config(e)
	cfg.WrapTransport = nil
	probe := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps(a.ns)
	eventually(t, 2*time.Minute, "the admission plugin to know "+gvk.Kind, func() (bool, string) {
		cm, err := probe.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-owner-probe-",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: "probe",
				UID: "00000000-0000-0000-0000-000000000000", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}}}, metav1.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		admin := kubernetes.NewForConfigOrDie(e.Config())
		// The garbage collector may have deleted it first: its owner
		// does not exist.
		if err := admin.CoreV1().ConfigMaps(a.ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return true, ""
	})
}

// config is a client configuration as the ServiceAccount, straight to
// the apiserver, recording refusals.
func (a *rbacAccount) config(e *testenv.Env) *rest.Config {
	admin := e.Config()
	return &rest.Config{Host: admin.Host, BearerToken: a.token, TLSClientConfig: admin.TLSClientConfig,
		QPS: admin.QPS, Burst: admin.Burst, WrapTransport: a.log.wrap}
}

// user is the ServiceAccount's user name.
func (a *rbacAccount) user() string { return "system:serviceaccount:" + a.ns + ":" + a.sa }

// waitAllowed waits until the authorizer says the account may (or, want
// false, may not) verb resource ("mydemos", "mydemos/status") in group,
// in namespace ns or cluster-wide.
func (a *rbacAccount) waitAllowed(t *testing.T, e *testenv.Env, verb, group, resource, ns string, want bool) {
	t.Helper()
	kc := kubernetes.NewForConfigOrDie(e.Config())
	res, sub, _ := strings.Cut(resource, "/")
	eventually(t, 30*time.Second, fmt.Sprintf("%s to be allowed=%v to %s %s in %q", a.user(), want, verb, resource, group), func() (bool, string) {
		sar, err := kc.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   a.user(),
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + a.ns, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Group: group, Resource: res, Subresource: sub,
			},
		}}, metav1.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		return sar.Status.Allowed == want, fmt.Sprintf("allowed=%v (%s)", sar.Status.Allowed, sar.Status.Reason)
	})
}

// rules returns the rules of the applied role of that kind and generated
// name ("ClusterRole", "manager-role").
func (a *rbacAccount) rules(t *testing.T, kind, name string) []rbacv1.PolicyRule {
	t.Helper()
	obj := a.objects[kind+"/"+name]
	if obj == nil {
		t.Fatalf("%s has no %s %s", a.dir, kind, name)
	}
	var role rbacv1.ClusterRole // a Role's rules are the same
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &role); err != nil {
		t.Fatal(err)
	}
	return role.Rules
}

// setRules replaces the rules of the applied role of that kind and
// generated name.
func (a *rbacAccount) setRules(t *testing.T, e *testenv.Env, kind, name string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(e.Config())
	var err error
	switch kind {
	case "ClusterRole":
		var r *rbacv1.ClusterRole
		if r, err = kc.RbacV1().ClusterRoles().Get(ctx, a.prefix+name, metav1.GetOptions{}); err == nil {
			r.Rules = rules
			_, err = kc.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{})
		}
	case "Role":
		var r *rbacv1.Role
		if r, err = kc.RbacV1().Roles(a.ns).Get(ctx, a.prefix+name, metav1.GetOptions{}); err == nil {
			r.Rules = rules
			_, err = kc.RbacV1().Roles(a.ns).Update(ctx, r, metav1.UpdateOptions{})
		}
	default:
		t.Fatalf("not a role: %s", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// generatedRBAC reads the objects of a generated config/rbac, from the
// files its kustomization.yaml lists.
func generatedRBAC(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, file := range k.Resources {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		d := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
		for {
			obj := map[string]any{}
			err := d.Decode(&obj)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(obj) > 0 {
				objs = append(objs, &unstructured.Unstructured{Object: obj})
			}
		}
		f.Close()
	}
	return objs
}

// rbacResource is where objects of kind are, and whether they are
// namespaced.
func rbacResource(t *testing.T, kind string) (schema.GroupVersionResource, bool) {
	rbac := func(r string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: r}
	}
	switch kind {
	case "ServiceAccount":
		return schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true
	case "ClusterRole":
		return rbac("clusterroles"), false
	case "ClusterRoleBinding":
		return rbac("clusterrolebindings"), false
	case "Role":
		return rbac("roles"), true
	case "RoleBinding":
		return rbac("rolebindings"), true
	}
	t.Fatalf("the generated RBAC holds a %s, which the test does not know how to apply", kind)
	return schema.GroupVersionResource{}, false
}
