package markers

import (
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// TestRBACRuleSyntax: controller-tools' value syntax, the one its own
// testdata uses.
func TestRBACRuleSyntax(t *testing.T) {
	for _, tc := range []struct {
		text string
		want RBACRule
	}{
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch`,
			RBACRule{Groups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}}},
		{`kubebuilder:rbac:groups="",resources=pods;services/status,verbs=get`,
			RBACRule{Groups: []string{""}, Resources: []string{"pods", "services/status"}, Verbs: []string{"get"}}},
		{`kubebuilder:rbac:groups=core;"";batch.io,resources={a,b},verbs=*`,
			RBACRule{Groups: []string{"core", "", "batch.io"}, Resources: []string{"a", "b"}, Verbs: []string{"*"}}},
		{`kubebuilder:rbac:groups="",resources=configmaps,resourceNames=my-config,verbs=get,namespace=kube-system,roleName=cm-reader`,
			RBACRule{Groups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"my-config"}, Verbs: []string{"get"}, Namespace: "kube-system", RoleName: "cm-reader"}},
		{`kubebuilder:rbac:urls=/metrics;/healthz,verbs=get`,
			RBACRule{URLs: []string{"/metrics", "/healthz"}, Verbs: []string{"get"}}},
	} {
		vals, diags := RBAC.Read([]Line{{Text: tc.text}})
		if len(diags) != 0 || len(vals) != 1 {
			t.Errorf("%s: %v", tc.text, diags)
			continue
		}
		if !reflect.DeepEqual(vals[0].V, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.text, vals[0].V, tc.want)
		}
	}
}

// TestRBACRuleErrors: a rule the apiserver would refuse, or that grants
// nothing, fails with what was expected.
func TestRBACRuleErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`kubebuilder:rbac:groups=apps,resources=deployments`, "missing argument verbs"},
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=`, "verbs= needs at least one verb"},
		{`kubebuilder:rbac:groups=apps,verbs=get`, "needs resources= (with groups=) or urls="},
		{`kubebuilder:rbac:resources=deployments,verbs=get`, `resources= needs groups=`},
		{`kubebuilder:rbac:groups=apps,resources=deployments,urls=/metrics,verbs=get`, "urls= cannot be combined"},
		{`kubebuilder:rbac:urls=/metrics,verbs=get,namespace=default`, "non-resource URLs are cluster-wide"},
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,namespace=Default`, `namespace "Default" is not`},
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,nmespace=default`, "did you mean namespace?"},
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,verbs=list`, "verbs given twice"},
		{`kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;;list`, `verbs: "" is not a name`},
		{`kubebuilder:rbac=groups=apps`, "needs arguments after ':'"},
	} {
		_, diags := RBAC.Read([]Line{{Text: tc.text, Pos: token.Position{Filename: "reconcile.go", Line: 7}}})
		if len(diags) != 1 || !strings.Contains(diags[0].Error(), tc.want) || !strings.HasPrefix(diags[0].Error(), "reconcile.go:7: error:") {
			t.Errorf("%s: got %v, want one error at reconcile.go:7 containing %q", tc.text, diags, tc.want)
		}
	}
}

// TestRBACReadAnywhere: the registry leaves +kubebuilder:rbac to its
// reader wherever it is (no "detached" warning, no check twice), but a
// misspelt one is still an unknown marker.
func TestRBACReadAnywhere(t *testing.T) {
	src := `package p

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=watch
type T struct {
	// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=bad verb
	F int
}

func f() {
	// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=list
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	scanned := Scan(fset, f, false)
	for _, tl := range scanned.Types {
		if _, diags := All.Collect(tl.Lines, TargetType); len(diags) != 0 {
			t.Errorf("type markers: %v", diags)
		}
	}
	for _, fl := range scanned.Fields {
		if _, diags := All.Collect(fl.Lines, TargetField); len(diags) != 0 {
			t.Errorf("field markers: %v", diags)
		}
	}
	for _, d := range scanned.Detached {
		if diags := All.Detached(d); len(diags) != 0 {
			t.Errorf("detached: %v", diags)
		}
	}
	vals, diags := RBAC.Read(scanned.Lines())
	var got []string
	for _, v := range vals {
		got = append(got, v.V.Resources[0]+":"+v.V.Verbs[0])
	}
	if want := []string{"deployments:get", "deployments:watch", "replicasets:list"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if len(diags) != 1 || diags[0].Pos.Line != 7 {
		t.Errorf("diagnostics %v, want one at line 7", diags)
	}
	if _, diags := All.Collect([]Line{{Text: "kubebuilder:rbca:groups=apps"}}, TargetType); len(diags) != 1 || !strings.Contains(diags[0].Msg, "did you mean +kubebuilder:rbac") {
		t.Errorf("misspelt marker: %v", diags)
	}
}
