package rbac

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

// project returns a project with one controller kind, Widget
// (apps.example.com/v1, "widgets"), whose controller set changes, and the
// kinds it may own: ConfigMap (core/v1) and Gadget (apps.example.com/v1).
func project(set func(c *model.Controller, configMap, gadget *model.Kind)) *model.Project {
	core := &model.Group{Name: ""}
	coreV1 := &model.Version{Group: core, Name: "v1"}
	apps := &model.Group{Name: "apps.example.com"}
	appsV1 := &model.Version{Group: apps, Name: "v1"}
	configMap := &model.Kind{Version: coreV1, Name: "ConfigMap", Plural: "configmaps"}
	gadget := &model.Kind{Version: appsV1, Name: "Gadget", Plural: "gadgets"}
	widget := &model.Kind{Version: appsV1, Name: "Widget", Plural: "widgets", Controller: &model.Controller{}}
	appsV1.Kinds = []*model.Kind{gadget, widget}
	apps.Versions = []*model.Version{appsV1}
	set(widget.Controller, configMap, gadget)
	return &model.Project{Groups: []*model.Group{apps}}
}

// rules is the manager role's rules, one "group resource verb,verb" each.
func rules(t *testing.T, p *model.Project) []string {
	t.Helper()
	roles := Roles(append(Derive(p), scopeMarkers(p)...), ManagerRole)
	var out []string
	for _, r := range roles {
		for _, pr := range r.Rules {
			s := strings.Join(pr.APIGroups, ";") + " " + strings.Join(pr.Resources, ";") + strings.Join(pr.NonResourceURLs, ";") + " " + strings.Join(pr.Verbs, ",")
			if r.Namespace != "" || r.Name != ManagerRole {
				s = r.Namespace + "/" + r.Name + ": " + s
			}
			out = append(out, s)
		}
	}
	return out
}

func check(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules:\n got %q\nwant %q", got, want)
	}
}

// TestDeriveInformer: a controller lists and watches its kind; it
// records events.
func TestDeriveInformer(t *testing.T) {
	p := project(func(*model.Controller, *model.Kind, *model.Kind) {})
	check(t, rules(t, p),
		" events create,patch",
		"apps.example.com widgets list,watch")
}

// TestDeriveOwned: each owns= kind, built-in or not, is listed and
// watched too; the wiring never gets one.
func TestDeriveOwned(t *testing.T) {
	p := project(func(c *model.Controller, cm, g *model.Kind) {
		c.Owns = []*model.Owned{{Kind: cm, Builtin: true}, {Kind: g}}
	})
	check(t, rules(t, p),
		" configmaps list,watch",
		" events create,patch",
		"apps.example.com gadgets;widgets list,watch")
}

// TestDeriveStatus: status write-back updates the status subresource,
// and gets the object afresh when that conflicts.
func TestDeriveStatus(t *testing.T) {
	p := project(func(c *model.Controller, _, _ *model.Kind) { c.StatusWriteBack = true })
	check(t, rules(t, p),
		" events create,patch",
		"apps.example.com widgets get,list,watch",
		"apps.example.com widgets/status update")
}

// TestDeriveStatusApply: status written by server-side apply
// (+ctrlgen:controller:statusApply) is a patch of the status subresource,
// and nothing reads the object afresh.
func TestDeriveStatusApply(t *testing.T) {
	p := project(func(c *model.Controller, _, _ *model.Kind) { c.StatusWriteBack, c.StatusApply = true, true })
	check(t, rules(t, p),
		" events create,patch",
		"apps.example.com widgets list,watch",
		"apps.example.com widgets/status patch")
}

// TestDeriveFinalizer: the finalizer is added and removed by updating the
// object; no finalizers subresource is involved.
func TestDeriveFinalizer(t *testing.T) {
	p := project(func(c *model.Controller, _, _ *model.Kind) { c.Finalizer = "apps.example.com/cleanup" })
	check(t, rules(t, p),
		" events create,patch",
		"apps.example.com widgets list,update,watch")
}

// TestDeriveAdoption: adopting reads the owner live and patches the
// child's ownerReferences, which the OwnerReferencesPermissionEnforcement
// plugin lets only those who may delete the child do, and its
// blockOwnerDeletion needs the owner's finalizers.
func TestDeriveAdoption(t *testing.T) {
	p := project(func(c *model.Controller, cm, _ *model.Kind) {
		c.Owns = []*model.Owned{{Kind: cm, Builtin: true, Adopt: &model.Adopt{}}}
		c.Expectations = true // needs nothing
	})
	check(t, rules(t, p),
		" configmaps delete,list,patch,watch",
		" events create,patch",
		"apps.example.com widgets get,list,watch",
		"apps.example.com widgets/finalizers update")
}

// TestDeriveNoControllers: no controller, no derived rule.
func TestDeriveNoControllers(t *testing.T) {
	p := project(func(*model.Controller, *model.Kind, *model.Kind) {})
	p.Groups[0].Versions[0].Kinds[1].Controller = nil
	if got := Derive(p); len(got) != 0 {
		t.Errorf("derived %v", got)
	}
}

// TestMarkersMerge: markers join the derived rules, with controller-gen's
// normalization; namespace= and roleName= make roles of their own.
func TestMarkersMerge(t *testing.T) {
	p := project(func(*model.Controller, *model.Kind, *model.Kind) {})
	p.RBACRules = []*model.RBACRule{
		{Groups: []string{"core"}, Resources: []string{"configmaps"}, Verbs: []string{"create", "update"}},
		{Groups: []string{"apps.example.com"}, Resources: []string{"widgets"}, Verbs: []string{"watch", "delete"}},
		{URLs: []string{"/metrics"}, Verbs: []string{"get"}},
		{Groups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"create"}, Namespace: "work"},
		{Groups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"creds"}, Verbs: []string{"get"}, Namespace: "work", RoleName: "creds-reader"},
		{Groups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "*"}},
	}
	check(t, rules(t, p),
		" /metrics get",
		" configmaps create,update",
		" events create,patch",
		"apps deployments *",
		"apps.example.com widgets delete,list,watch",
		"work/creds-reader:  secrets get",
		"work/manager-role: batch jobs create")
}

// TestNormalizeLikeControllerGen: controller-gen's merging, case by case
// (its own testdata has each of them; bench/rbac compares the whole file).
func TestNormalizeLikeControllerGen(t *testing.T) {
	r := func(groups, resources, verbs string) *model.RBACRule {
		split := func(s string) []string {
			if s == "-" {
				return nil
			}
			return strings.Split(s, ";")
		}
		return &model.RBACRule{Groups: split(groups), Resources: split(resources), Verbs: split(verbs)}
	}
	for _, tc := range []struct {
		name string
		in   []*model.RBACRule
		want []string
	}{
		{"verbs of one resource merge", []*model.RBACRule{r("g", "some", "get;list"), r("g", "some", "get"), r("g", "some", "list")},
			[]string{"g some get,list"}},
		{"resources with the same verbs merge", []*model.RBACRule{r("g", "one", "create"), r("g", "two", "create"), r("g", "three", "create")},
			[]string{"g one;three;two create"}},
		{"groups with the same resources and verbs merge", []*model.RBACRule{r("g1", "foo", "patch"), r("g2", "foo", "patch")},
			[]string{"g1;g2 foo patch"}},
		{"different verbs stay apart", []*model.RBACRule{r("g", "some", "get"), r("g", "another", "list")},
			[]string{"g another list", "g some get"}},
		{"a multi-resource marker splits", []*model.RBACRule{r("g", "foo;bar", "get;list"), r("g", "foo", "get"), r("g", "bar", "list")},
			[]string{"g bar;foo get,list"}},
		{"core is the core group", []*model.RBACRule{r("core", "a", "list"), r(`;some`, "a", "list;get")},
			[]string{" a list", ";some a get,list"}},
		{"* stands for every verb", []*model.RBACRule{r("g", "xyz", "get;update"), r("g", "xyz", "*")},
			[]string{"g xyz *"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, role := range Roles(tc.in, ManagerRole) {
				for _, pr := range role.Rules {
					got = append(got, strings.Join(pr.APIGroups, ";")+" "+strings.Join(pr.Resources, ";")+" "+strings.Join(pr.Verbs, ","))
				}
			}
			check(t, got, tc.want...)
		})
	}
}

// TestGenerateLayout: kubebuilder's file names, each with ctrlgen's
// header, and a manager role even when nothing needs one, since the
// binding and the kustomization name it.
func TestGenerateLayout(t *testing.T) {
	p := project(func(*model.Controller, *model.Kind, *model.Kind) {})
	p.Groups[0].Versions[0].Kinds[1].Controller = nil
	p.RBACDir = "/m/config/rbac"
	files, err := Generator{}.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path))
		if !bytes.HasPrefix(f.Text, []byte("# Code generated by ctrlgen. DO NOT EDIT.\n")) {
			t.Errorf("%s has no header", f.Path)
		}
		if !(Generator{}).Owns(p, f.Path) {
			t.Errorf("%s not owned", f.Path)
		}
		if filepath.Base(f.Path) == "role.yaml" && !bytes.Contains(f.Text, []byte("kind: ClusterRole\nmetadata:\n  name: manager-role\n")) {
			t.Errorf("role.yaml:\n%s", f.Text)
		}
	}
	check(t, names, "role.yaml", "role_binding.yaml", "service_account.yaml", "leader_election_role.yaml", "leader_election_role_binding.yaml",
		"metrics_auth_role.yaml", "metrics_auth_role_binding.yaml", "metrics_reader_role.yaml", "kustomization.yaml")
	if (Generator{}).Owns(p, "/m/config/rbac/sub/x.yaml") || (Generator{}).Owns(p, "/m/config/crd/x.yaml") {
		t.Error("owns files outside config/rbac")
	}
}

// TestOneManagerRole: a cluster-wide role of a marker's roleName= sorts
// before manager-role, which is still written once, and bound.
func TestOneManagerRole(t *testing.T) {
	p := project(func(*model.Controller, *model.Kind, *model.Kind) {})
	p.RBACDir = "/m/config/rbac"
	p.RBACRules = []*model.RBACRule{{Groups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get"}, RoleName: "aaa-reader"}}
	files, err := Generator{}.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		switch filepath.Base(f.Path) {
		case "role.yaml":
			if n := bytes.Count(f.Text, []byte("  name: manager-role\n")); n != 1 {
				t.Errorf("manager-role written %d times:\n%s", n, f.Text)
			}
			if !bytes.Contains(f.Text, []byte("  name: aaa-reader\n")) {
				t.Errorf("no aaa-reader:\n%s", f.Text)
			}
		case "role_binding.yaml":
			for _, name := range []string{"manager-rolebinding", "aaa-reader-rolebinding"} {
				if !bytes.Contains(f.Text, []byte("  name: "+name+"\n")) {
					t.Errorf("no %s:\n%s", name, f.Text)
				}
			}
		}
	}
}

// TestDeriveNamespaces: with --rbac-namespaces, the rules about namespaced
// resources, derived or declared for the ClusterRole, go into a Role in
// each namespace; those about cluster-scoped ones, URLs and a marker's own
// namespace= or roleName= stay where they were.
func TestDeriveNamespaces(t *testing.T) {
	p := project(func(c *model.Controller, configMap, gadget *model.Kind) {
		c.Owns = []*model.Owned{{Kind: configMap}, {Kind: gadget}}
		configMap.Namespaced = true
		c.StatusWriteBack = true
	})
	p.Groups[0].Versions[0].Kinds[1].Namespaced = true // Widget; Gadget is cluster-scoped
	p.RBACRules = []*model.RBACRule{
		{Groups: []string{"core"}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		{Groups: []string{"apps.example.com"}, Resources: []string{"gadgets"}, Verbs: []string{"delete"}},
		{URLs: []string{"/healthz"}, Verbs: []string{"get"}},
		{Groups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, Namespace: "c"},
	}
	p.RBACNamespaces = []string{"a", "b"}
	check(t, rules(t, p),
		" /healthz get",
		"apps.example.com gadgets delete,list,watch",
		"a/manager-role:  configmaps create,list,watch",
		"a/manager-role:  events create,patch",
		"a/manager-role: apps.example.com widgets get,list,watch",
		"a/manager-role: apps.example.com widgets/status update",
		"b/manager-role:  configmaps create,list,watch",
		"b/manager-role:  events create,patch",
		"b/manager-role: apps.example.com widgets get,list,watch",
		"b/manager-role: apps.example.com widgets/status update",
		"c/manager-role:  secrets get")
}
