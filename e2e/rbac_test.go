package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/testenv"
)

// permission is one verb on one resource, as a role grants it.
type permission struct {
	roleKind, role        string // the generated role that grants it
	group, resource, verb string
}

func (p permission) String() string {
	return fmt.Sprintf("%s %s/%s in %q", p.verb, p.role, p.resource, p.group)
}

// permissions expands rules into one permission per group, resource and
// verb.
func permissions(roleKind, role string, rules []rbacv1.PolicyRule) []permission {
	var out []permission
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, permission{roleKind: roleKind, role: role, group: g, resource: res, verb: v})
				}
			}
		}
	}
	return out
}

// grant returns the rules of role's permissions but except, a rule each.
func grant(perms []permission, role string, except permission) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, p := range perms {
		if p.role == role && p != except {
			out = append(out, rbacv1.PolicyRule{APIGroups: []string{p.group}, Resources: []string{p.resource}, Verbs: []string{p.verb}})
		}
	}
	return out
}

// refuses reports whether f is the apiserver refusing what p grants: the
// authorizer's refusal of that verb on that resource or, for
// <plural>/finalizers, the OwnerReferencesPermissionEnforcement plugin's
// refusal to let an ownerReference block the owner's deletion.
func (p permission) refuses(f forbidden) bool {
	if strings.HasSuffix(p.resource, "/finalizers") && p.verb == "update" && strings.Contains(f.message, "cannot set blockOwnerDeletion") {
		return true
	}
	return f.verb == p.verb && f.group == p.group && f.resource == p.resource
}

// TestMydemoRBACIsMinimal runs the mydemo command as the ServiceAccount of
// its generated config/rbac through short scenarios that, between them,
// make every request the controller and its manager can make: with the
// whole role the apiserver refuses none, and with any one permission of
// the manager's ClusterRole or of the leader election Role taken away, it
// refuses one that needs it. The informers list (client-go's WatchListClient
// is off, as against a server that refuses streamed lists), so that list
// is needed alongside watch.
func TestMydemoRBACIsMinimal(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	kc := kubeClient(t, e)
	ns := namespace(t, kc)
	account := newMydemoAccount(t, e, ns)
	s := &rbacScenario{e: e, account: account, bin: buildMydemo(t), md: mydemoClient(t, e), kc: kc}
	// Each scenario's manager reconciles every Mydemo of the cluster:
	// those of tests that ran before, in namespaces being deleted, would
	// be ahead of the scenario's in its queue, each time.
	begin := time.Now()
	eventually(t, 5*time.Minute, "the Mydemos of earlier tests to be deleted", func() (bool, string) {
		l, err := s.md.CrddemoV1().Mydemos("").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(l.Items) == 0, fmt.Sprintf("%d Mydemos", len(l.Items))
	})
	t.Logf("the Mydemos of earlier tests were gone after %v", time.Since(begin).Round(time.Millisecond))

	manager := permissions("ClusterRole", "manager-role", account.rules(t, "ClusterRole", "manager-role"))
	leader := permissions("Role", "leader-election-role", account.rules(t, "Role", "leader-election-role"))
	cert := permissions("Role", "webhook-cert-role", account.rules(t, "Role", "webhook-cert-role"))
	if len(manager) == 0 || len(leader) == 0 || len(cert) == 0 {
		t.Fatalf("no permissions: manager-role %v, leader-election-role %v, webhook-cert-role %v", manager, leader, cert)
	}
	all := append(append(manager, leader...), cert...)

	t.Run("whole role", func(t *testing.T) {
		s.mydemos(t, nil)
		s.leaderElection(t, nil)
		s.shards(t, nil)
		s.webhooks(t, nil)
		account.log.checkNone(t)
	})
	var prev *permission
	for _, p := range all {
		t.Run(p.String(), func(t *testing.T) {
			account.setRules(t, e, p.roleKind, p.role, grant(all, p.role, p))
			if prev != nil && prev.role != p.role {
				account.setRules(t, e, prev.roleKind, prev.role, grant(all, prev.role, permission{}))
			}
			if prev != nil {
				account.waitAllowed(t, e, prev.verb, prev.group, prev.resource, ns, true)
			}
			account.waitAllowed(t, e, p.verb, p.group, p.resource, ns, false)
			prev = &p
			refused := func() bool {
				_, ok := account.log.find(p.refuses)
				return ok
			}
			switch {
			case p.group == "admissionregistration.k8s.io" || p.group == "apiextensions.k8s.io" || p.resource == "secrets":
				s.webhooks(t, refused)
			case p.resource != "leases":
				s.mydemos(t, refused)
			case p.verb == "list" || p.verb == "watch" || p.verb == "delete":
				s.shards(t, refused)
			default:
				s.leaderElection(t, refused)
			}
			f, ok := account.log.find(p.refuses)
			if !ok {
				t.Errorf("without %s the scenarios ran through and nothing needed it; refused: %v", p, account.log.take())
			} else {
				t.Logf("refused: %s", f)
			}
			account.log.take()
		})
	}
}

// webhooks serves the Mydemo webhooks with the manager's own
// certificates, controllers off: started over a garbled certificates'
// Secret (get and update it), then, once ready, webhook configurations
// created (watched, listed, read and updated with the CA bundle before the
// ten-minute sync period could), then started again without the Secret
// (create it). With refused it stops as soon as refused holds.
func (s *rbacScenario) webhooks(t *testing.T, refused func() bool) {
	ctx := context.Background()
	secrets := s.kc.CoreV1().Secrets(s.account.ns)
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "webhook-server-cert"},
		Data: map[string][]byte{"tls.crt": []byte("garbled")}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	addr := localAddr(t)
	start := func() *mydemoProcess {
		return s.start(t, "webhooks", "--leader-elect=false", "--controllers=-"+mydemo.ControllerName,
			"--leader-elect-namespace="+s.account.ns, "--webhook-bind-address="+addr, "--webhook-hosts=127.0.0.1",
			"--webhook-cert-sync-period=10m")
	}
	p := start()
	defer func() { s.stop(t, p) }()
	if !waitFor(t, p, refused, "the webhook server to serve a valid certificate", func() (bool, string) { return ready(p) }) {
		return
	}
	ns := namespace(t, s.kc)
	applyWebhookManifests(t, dynamic.NewForConfigOrDie(s.e.Config()), mydemoWebhookManifests, "https://"+addr, ns)
	refusedByWebhook := func() (bool, string) {
		_, err := s.md.CrddemoV1().Mydemos(ns).Create(ctx, newMydemo(ns, "bad", "not-an-ip", 80, nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), `admission webhook "vmydemo-v1.kb.io" denied the request`), fmt.Sprint(err)
	}
	if !waitFor(t, p, refused, "the apiserver to call the webhooks", refusedByWebhook) {
		return
	}
	// mydemo serves the Mydemo conversion webhook too: it writes its CA
	// bundle into the CRDs whose conversion webhook calls it.
	crds := dynamic.NewForConfigOrDie(s.e.Config()).Resource(crdGVR)
	probe := conversionProbeCRD(ns, "https://"+addr+"/convert")
	if _, err := crds.Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer crds.Delete(ctx, probe.GetName(), metav1.DeleteOptions{})
	if !waitFor(t, p, refused, "the CA bundle in a CRD's conversion webhook", func() (bool, string) {
		crd, err := crds.Get(ctx, probe.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		bundle, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return bundle != "", "no caBundle yet"
	}) {
		return
	}
	s.stop(t, p)
	if err := secrets.Delete(ctx, "webhook-server-cert", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	p = start()
	if !waitFor(t, p, refused, "the webhook server to make its certificates", func() (bool, string) { return ready(p) }) {
		return
	}
	waitFor(t, p, refused, "the apiserver to call the webhooks", refusedByWebhook)
}

// conversionProbeCRD is a CRD of its own group, per namespace ns, whose
// conversion webhook calls url.
func conversionProbeCRD(ns, url string) *unstructured.Unstructured {
	group := ns + ".rbac.example.com"
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "probes." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "probes", "singular": "probe", "kind": "Probe", "listKind": "ProbeList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}}},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": url},
			}},
		},
	}}
}

// rbacScenario runs the mydemo command as account through scenarios.
type rbacScenario struct {
	e       *testenv.Env
	account *rbacAccount
	bin     string
	md      *versioned.Clientset
	kc      *kubernetes.Clientset
	runs    int
}

// start runs the mydemo command as the account, its informers listing.
func (s *rbacScenario) start(t *testing.T, name string, args ...string) *mydemoProcess {
	t.Helper()
	s.runs++
	addrs := localAddrs(t, 2)
	p := &mydemoProcess{metricsAddr: addrs[0], healthAddr: addrs[1]}
	p.child = startChildEnv(t, fmt.Sprintf("%s-%d", name, s.runs), s.bin, []string{"KUBE_FEATURE_WatchListClient=false"}, append([]string{
		"--kubeconfig=" + s.account.kubeconfig,
		"--metrics-bind-address=" + p.metricsAddr,
		"--webhook-bind-address=", // webhook_test.go serves them
		"--metrics-secure=false",  // scraped over plain HTTP; metrics_test.go is about security
		"--health-probe-bind-address=" + p.healthAddr,
		"--workers=2",
	}, args...)...)
	return p
}

// stop stops p gracefully, as a Deployment's rollout would.
func (s *rbacScenario) stop(t *testing.T, p *mydemoProcess) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running 30s after SIGTERM", p.name)
	}
}

// waitFor polls cond until it holds (true) or until refused does (false,
// the scenario is over); without either in a minute, or if p (when not
// nil) exits, the test fails.
func waitFor(t *testing.T, p *mydemoProcess, refused func() bool, what string, cond func() (bool, string)) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if refused != nil && refused() {
			return false
		}
		ok, why := cond()
		if ok {
			return true
		}
		if p != nil && p.exited() {
			t.Fatalf("%s exited while waiting for %s: %v", p.name, what, p.err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %s", what, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ready(p *mydemoProcess) (bool, string) {
	code, body, err := httpGet("http://" + p.healthAddr + "/readyz")
	if err != nil {
		return false, err.Error()
	}
	return code == http.StatusOK, fmt.Sprintf("/readyz: %d %s", code, body)
}

// mydemos reconciles Mydemos in a namespace of its own: a new one (the
// informers' lists and watches, applying its ConfigMap, whose controller
// reference blocks the Mydemo's deletion, and writing status), a spec
// change (applying the ConfigMap again), a status write raced by another
// writer (which conflicts for a controller that updates status and gets
// the Mydemo afresh; mydemo applies it), a ConfigMap created by someone
// else just before the controller's apply, and a Mydemo whose
// ConfigMap the apiserver refuses, twice (a Warning event created, then
// patched when it recurs). With refused it stops as soon as refused holds.
func (s *rbacScenario) mydemos(t *testing.T, refused func() bool) {
	ctx := context.Background()
	ns := namespace(t, s.kc)
	mydemos := s.md.CrddemoV1().Mydemos(ns)
	p := s.start(t, "mydemos", "--leader-elect=false")
	defer func() {
		// No Mydemo of this scenario is left for the next one's manager.
		if err := mydemos.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Error(err)
		}
		eventually(t, time.Minute, "the scenario's Mydemos to be deleted", func() (bool, string) {
			l, err := mydemos.List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error()
			}
			return len(l.Items) == 0, fmt.Sprintf("%d left", len(l.Items))
		})
		s.stop(t, p)
	}()
	begin := time.Now()
	step := func(what string) {
		if refused == nil {
			t.Logf("%v: %s", time.Since(begin).Round(time.Millisecond), what)
		}
	}
	if !waitFor(t, p, refused, "the manager to be ready", func() (bool, string) { return ready(p) }) {
		return
	}
	step("ready")
	isReady := func(name string, generation int64) func() (bool, string) {
		return func() (bool, string) {
			obj, err := mydemos.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			if obj.Generation != generation {
				return false, fmt.Sprintf("%s at generation %d, want %d", name, obj.Generation, generation)
			}
			return mydemoReady(obj)
		}
	}
	setPort := func(name string, port int) {
		t.Helper()
		if _, err := mydemos.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"spec":{"port":%d}}`, port), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := mydemos.Create(ctx, newMydemo(ns, "a", "10.2.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, p, refused, "a new Mydemo to be Ready", isReady("a", 1)) {
		return
	}
	step("a new Mydemo is Ready")
	setPort("a", 81)
	if !waitFor(t, p, refused, "a changed Mydemo to be Ready", isReady("a", 2)) {
		return
	}
	step("a changed Mydemo is Ready")

	statusPath := "/apis/crddemo.k8s.io/v1/namespaces/" + ns + "/mydemos/a/status"
	// (A status written by server-side apply is a PATCH, and does not
	// conflict.)
	conflicted := s.account.proxy.before(func(r *http.Request) bool {
		return (r.Method == http.MethodPut || r.Method == http.MethodPatch) && r.URL.Path == statusPath
	}, func() {
		// The controller's status write now carries an old resourceVersion.
		if _, err := mydemos.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"annotations":{"e2e/touched":"true"}}}`), metav1.PatchOptions{}); err != nil {
			t.Error(err)
		}
	})
	setPort("a", 82)
	if !waitFor(t, p, refused, "a Mydemo whose status write conflicted to be Ready", func() (bool, string) {
		select {
		case <-conflicted:
			return isReady("a", 3)()
		default:
			return false, "no status write yet"
		}
	}) {
		return
	}
	step("a Mydemo whose status write conflicted is Ready")

	configMapsPath := "/api/v1/namespaces/" + ns + "/configmaps"
	// (A ConfigMap written by server-side apply is a PATCH of it, which
	// takes over the one found there.)
	raced := s.account.proxy.before(func(r *http.Request) bool {
		return r.Method == http.MethodPost && r.URL.Path == configMapsPath || r.Method == http.MethodPatch && r.URL.Path == configMapsPath+"/b-config"
	}, func() {
		b, err := mydemos.Get(ctx, "b", metav1.GetOptions{})
		if err == nil {
			_, err = s.kc.CoreV1().ConfigMaps(ns).Create(ctx, mydemo.DesiredConfigMap(b), metav1.CreateOptions{})
		}
		if err != nil {
			t.Error(err)
		}
	})
	if _, err := mydemos.Create(ctx, newMydemo(ns, "b", "10.2.0.2", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, p, refused, "a Mydemo whose ConfigMap someone else created first to be Ready", func() (bool, string) {
		select {
		case <-raced:
			return isReady("b", 1)()
		default:
			return false, "no ConfigMap create yet"
		}
	}) {
		return
	}
	step("a Mydemo whose ConfigMap someone else created first is Ready")

	long := strings.Repeat("c", 250) // "-config" makes 257 characters, more than a name may have
	if _, err := mydemos.Create(ctx, newMydemo(ns, long, "10.2.0.3", 80, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	warned := func(count int32) func() (bool, string) {
		return func() (bool, string) {
			events, err := s.kc.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + long})
			if err != nil {
				return false, err.Error()
			}
			for _, ev := range events.Items {
				if ev.Type == corev1.EventTypeWarning && ev.Count >= count {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%d events", len(events.Items))
		}
	}
	if !waitFor(t, p, refused, "a Warning event on a Mydemo whose ConfigMap is invalid", warned(1)) {
		return
	}
	step("a Warning event is recorded")
	setPort(long, 81)
	if waitFor(t, p, refused, "the Warning event to recur", warned(2)) {
		step("the Warning event recurred")
	}
}

// leaderElection runs the manager with leader election until it leads and
// has renewed its Lease, then stops it (releasing the Lease).
func (s *rbacScenario) leaderElection(t *testing.T, refused func() bool) {
	ctx := context.Background()
	id := fmt.Sprintf("e2e-rbac-leader-%d", s.runs)
	p := s.start(t, "leader", "--leader-elect=true", "--leader-elect-namespace="+s.account.ns, "--leader-elect-id="+id,
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=250ms")
	defer s.stop(t, p)
	if !waitFor(t, p, refused, "the manager to lead", func() (bool, string) {
		m, err := scrape(p.metricsAddr)
		if err != nil {
			return false, err.Error()
		}
		v, _ := m.sum("leader_election_master_status", "name", id)
		return v == 1, "not leading"
	}) {
		return
	}
	leases := s.kc.CoordinationV1().Leases(s.account.ns)
	first, err := leases.Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, refused, "the Lease to be renewed", func() (bool, string) {
		l, err := leases.Get(ctx, id, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return l.ResourceVersion != first.ResourceVersion, "not renewed"
	})
}

// shards runs the manager with two shards until it holds both buckets,
// then stops it (leaving: its membership Lease is deleted).
func (s *rbacScenario) shards(t *testing.T, refused func() bool) {
	ctx := context.Background()
	group := fmt.Sprintf("e2e-rbac-shards-%d", s.runs)
	p := s.start(t, "shards", "--shards=2", "--leader-elect-namespace="+s.account.ns, "--leader-elect-id="+group,
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=250ms")
	if !waitFor(t, p, refused, "the manager to hold both buckets", func() (bool, string) {
		m, err := scrape(p.metricsAddr)
		if err != nil {
			return false, err.Error()
		}
		v, _ := m.sum("ctrlgen_shard_buckets_held")
		return v == 2, fmt.Sprintf("%v buckets held", v)
	}) {
		s.stop(t, p)
		return
	}
	s.stop(t, p)
	members := "ctrlgen.io/shard-group=" + group + ",ctrlgen.io/shard-role=member"
	waitFor(t, nil, refused, "the membership Lease to be deleted", func() (bool, string) {
		l, err := s.kc.CoordinationV1().Leases(s.account.ns).List(ctx, metav1.ListOptions{LabelSelector: members})
		if err != nil {
			return false, err.Error()
		}
		return len(l.Items) == 0, fmt.Sprintf("%d membership Leases", len(l.Items))
	})
}

// TestServerSideApplyThatCreatesNeedsCreate: a server-side apply that
// creates its object needs create as well as patch (the apiserver checks
// create when the patch handler finds nothing to patch); one that changes
// an existing object needs patch alone. A controller that writes its
// children by apply declares both (+kubebuilder:rbac verbs=create;patch).
func TestServerSideApplyThatCreatesNeedsCreate(t *testing.T) {
	e := env(t)
	ctx := context.Background()
	kc := kubeClient(t, e)
	ns := namespace(t, kc)
	const name = "applier"
	if _, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"patch"}}}}
	if _, err := kc.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	account := &rbacAccount{ns: ns, sa: name, log: &forbiddenLog{}}
	account.waitAllowed(t, e, "patch", "", "configmaps", ns, true)
	tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	account.token = tr.Status.Token
	configMaps := kubernetes.NewForConfigOrDie(account.config(e)).CoreV1().ConfigMaps(ns)
	apply := func(value string) error {
		_, err := configMaps.Apply(ctx, applycorev1.ConfigMap("applied", ns).WithData(map[string]string{"k": value}),
			metav1.ApplyOptions{FieldManager: "e2e", Force: true})
		return err
	}
	setVerbs := func(verbs ...string) {
		t.Helper()
		role.Rules[0].Verbs = verbs
		if _, err := kc.RbacV1().Roles(ns).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		account.waitAllowed(t, e, "create", "", "configmaps", ns, len(verbs) == 2)
	}

	if err := apply("1"); !apierrors.IsForbidden(err) {
		t.Fatalf("an apply that creates, with patch alone: %v, want Forbidden", err)
	}
	if f, ok := account.log.find(func(f forbidden) bool { return f.verb == "create" && f.resource == "configmaps" }); !ok {
		t.Errorf("the refusal is not of create: %v", account.log.take())
	} else {
		t.Logf("refused: %s", f)
	}
	account.log.take()
	role = mustGetRole(t, kc, ns, name)
	setVerbs("create", "patch")
	if err := apply("2"); err != nil {
		t.Fatalf("an apply that creates, with create and patch: %v", err)
	}
	role = mustGetRole(t, kc, ns, name)
	setVerbs("patch")
	if err := apply("3"); err != nil {
		t.Fatalf("an apply that changes an existing object, with patch alone: %v", err)
	}
	if cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, "applied", metav1.GetOptions{}); err != nil || cm.Data["k"] != "3" {
		t.Errorf("the applied ConfigMap: %v, %v", cm, err)
	}
	account.log.checkNone(t)
}

func mustGetRole(t *testing.T, kc kubernetes.Interface, ns, name string) *rbacv1.Role {
	t.Helper()
	r, err := kc.RbacV1().Roles(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
