// Package rbac writes the RBAC manifests of the manager that runs a
// project's controllers, in kubebuilder's config/rbac layout: the
// manager's ClusterRole, derived from what the generated controllers do
// and merged with the "+kubebuilder:rbac" markers as controller-gen
// merges them, its ServiceAccount and bindings, the leader election Role,
// the roles secure metrics serving needs, and a kustomization.yaml.
package rbac

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v2"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Object names, kubebuilder v4's. Namespace is its placeholder namespace,
// which a kustomization (config/default's namespace:) replaces.
const (
	ServiceAccount     = "controller-manager"
	ManagerRole        = "manager-role"
	LeaderElectionRole = "leader-election-role"
	MetricsReaderRole  = "metrics-reader"
	MetricsAuthRole    = "metrics-auth-role"
	WebhookCertRole    = "webhook-cert-role"
	Namespace          = "system"
)

// Generator is the "rbac" generator.
type Generator struct{}

func (Generator) Name() string { return "rbac" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{RBACDir: true, OnRequest: true} }

// Owns is true for the YAML files directly in the RBAC directory.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.RBACDir != "" && filepath.Dir(path) == filepath.Clean(p.RBACDir) && strings.HasSuffix(path, ".yaml")
}

// Generate returns config/rbac's files.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	roles := Roles(append(Derive(p), scopeMarkers(p)...), ManagerRole)
	if len(p.RBACNamespaces) == 0 && !slices.ContainsFunc(roles, func(r Role) bool { return r.Namespace == "" && r.Name == ManagerRole }) {
		// The manager's ClusterRole exists, empty if need be, as
		// kubebuilder's; limited to namespaces, it has its Roles, and a
		// ClusterRole only for rules about cluster-scoped resources.
		roles = append([]Role{{Name: ManagerRole}}, roles...)
	}
	var roleObjs, bindingObjs []any
	for _, r := range roles {
		roleObjs = append(roleObjs, r.object())
		bindingObjs = append(bindingObjs, r.binding())
	}
	files := []struct {
		name string
		objs []any
	}{
		{"role.yaml", roleObjs},
		{"role_binding.yaml", bindingObjs},
		{"service_account.yaml", []any{object{APIVersion: "v1", Kind: "ServiceAccount", Metadata: metadata{Name: ServiceAccount, Namespace: Namespace}}}},
		{"leader_election_role.yaml", []any{leaderElection.object()}},
		{"leader_election_role_binding.yaml", []any{leaderElection.binding()}},
		{"metrics_auth_role.yaml", []any{metricsAuth.object()}},
		{"metrics_auth_role_binding.yaml", []any{metricsAuth.binding()}},
		{"metrics_reader_role.yaml", []any{Role{Name: MetricsReaderRole, Rules: metricsReaderRules}.object()}},
	}
	kustomize := kustomization
	if len(p.Webhooks) > 0 || len(p.ConversionKinds()) > 0 {
		files = append(files, []struct {
			name string
			objs []any
		}{
			{"webhook_cert_role.yaml", []any{webhookCert.object()}},
			{"webhook_cert_role_binding.yaml", []any{webhookCert.binding()}},
		}...)
		kustomize += webhookKustomization
	}
	var out []*gen.File
	for _, f := range files {
		content, err := Marshal(f.objs...)
		if err != nil {
			return nil, err
		}
		out = append(out, gen.NewText(filepath.Join(p.RBACDir, f.name), content))
	}
	out = append(out, gen.NewText(filepath.Join(p.RBACDir, "kustomization.yaml"), []byte(gen.YAMLHeader+"\n"+kustomize)))
	return out, nil
}

// kustomization is kubebuilder's config/rbac/kustomization.yaml, less the
// roles kubebuilder writes per API (editor, viewer), which ctrlgen does
// not.
const kustomization = `resources:
# Every RBAC object here is for this ServiceAccount in the namespace the
# manager is deployed to (config/default's namespace).
- service_account.yaml
- role.yaml
- role_binding.yaml
- leader_election_role.yaml
- leader_election_role_binding.yaml
# Secure metrics serving: the manager authenticates (TokenReview) and
# authorizes (SubjectAccessReview) scrapes of /metrics; bind metrics-reader
# to who scrapes.
- metrics_auth_role.yaml
- metrics_auth_role_binding.yaml
- metrics_reader_role.yaml
`

const webhookKustomization = `# The webhook server keeps its CA and certificate in a Secret of the
# manager's namespace (without --webhook-cert-dir).
- webhook_cert_role.yaml
- webhook_cert_role_binding.yaml
`

// webhookCert is what runtime/manager does with the Secret of its own
// webhook certificates, in the namespace it is deployed to: it reads it,
// creates it on the first start and updates it to renew them.
var webhookCert = Role{Name: WebhookCertRole, Namespaced: true, Rules: []PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "get", "update"}},
}}

// leaderElection is what runtime/manager does with Leases, in the
// namespace it is deployed to: leader election (client-go's LeaseLock)
// gets, creates and updates its Lease; --shards also lists and watches
// the group's Leases and deletes its membership Lease on the way out.
var leaderElection = Role{Name: LeaderElectionRole, Namespaced: true, Rules: []PolicyRule{
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "delete", "get", "list", "update", "watch"}},
}}

// metricsAuth lets the manager check the bearer token of a /metrics
// request (TokenReview) and whether its user may get /metrics
// (SubjectAccessReview), as controller-runtime's secure serving does.
var metricsAuth = Role{Name: MetricsAuthRole, Rules: []PolicyRule{
	{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
	{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
}}

var metricsReaderRules = []PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}

// Role is a ClusterRole, or a Role in Namespace, or (Namespaced) a Role
// in the namespace the manager is deployed to, which a kustomization
// gives.
type Role struct {
	Namespace  string
	Namespaced bool
	Name       string
	Rules      []PolicyRule
}

func (r Role) kind() string {
	if r.Namespace != "" || r.Namespaced {
		return "Role"
	}
	return "ClusterRole"
}

func (r Role) object() object {
	return object{APIVersion: rbacAPIVersion, Kind: r.kind(), Metadata: metadata{Name: r.Name, Namespace: r.Namespace}, Rules: r.Rules}
}

// binding binds the manager's ServiceAccount to r: a ClusterRoleBinding
// for a ClusterRole, a RoleBinding next to a Role. It is named as
// kubebuilder names its bindings: manager-role's is manager-rolebinding.
func (r Role) binding() object {
	kind := "ClusterRoleBinding"
	if r.kind() == "Role" {
		kind = "RoleBinding"
	}
	return object{APIVersion: rbacAPIVersion, Kind: kind,
		Metadata: metadata{Name: strings.TrimSuffix(r.Name, "-role") + "-rolebinding", Namespace: r.Namespace},
		RoleRef:  &roleRef{APIGroup: "rbac.authorization.k8s.io", Kind: r.kind(), Name: r.Name},
		Subjects: []subject{{Kind: "ServiceAccount", Name: ServiceAccount, Namespace: Namespace}}}
}

// PolicyRule is rbac.authorization.k8s.io/v1's.
type PolicyRule struct {
	Verbs           []string `json:"verbs"`
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

const rbacAPIVersion = "rbac.authorization.k8s.io/v1"

// object is the part of a ServiceAccount, role or binding written here.
type object struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   metadata     `json:"metadata"`
	Rules      []PolicyRule `json:"rules,omitempty"`
	RoleRef    *roleRef     `json:"roleRef,omitempty"`
	Subjects   []subject    `json:"subjects,omitempty"`
}

type metadata struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type roleRef struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

type subject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// Marshal returns objs as controller-gen writes them: ctrlgen's header,
// then each object marshalled to JSON and then to YAML with sorted keys
// (sigs.k8s.io/yaml's Marshal), after a "---" line.
func Marshal(objs ...any) ([]byte, error) {
	out := []byte(gen.YAMLHeader + "\n")
	for _, o := range objs {
		j, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(j, &v); err != nil {
			return nil, err
		}
		y, err := yaml.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(append(out, "---\n"...), y...)
	}
	return out, nil
}
