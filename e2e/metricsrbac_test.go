package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/ctrlgen/ctrlgen/testenv"
)

// The RBAC of secure metrics, as kubebuilder's config/rbac has it. Until
// examples/mydemo/config/rbac is generated (issue 11's RBAC part), the
// tests create these from here; then they should read the generated files.

// metricsAuthRole lets the manager authenticate and authorize scrapers
// (kubebuilder's metrics_auth_role.yaml).
func metricsAuthRole(name string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		},
	}
}

// metricsReaderRole lets a scraper get /metrics (kubebuilder's
// metrics_reader_role.yaml).
func metricsReaderRole(name string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
}

// mydemoWorkRole is what the mydemo controller does without leader
// election, broadly: the generated manager-role is the exact one.
func mydemoWorkRole(name string) *rbacv1.ClusterRole {
	rw := []string{"get", "list", "watch", "create", "update", "patch"}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"crddemo.k8s.io"}, Resources: []string{"mydemos", "mydemos/status", "mydemos/finalizers"}, Verbs: rw},
			{APIGroups: []string{""}, Resources: []string{"configmaps", "events"}, Verbs: rw},
			{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: rw},
		},
	}
}

// writeRBACStandIn writes, in dir, a config/rbac kustomization with the
// ServiceAccount and the metrics roles and binding that config/default
// expects of the generated one, in kubebuilder's file names.
func writeRBACStandIn(t *testing.T, dir string) {
	t.Helper()
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: "controller-manager", Namespace: "system"},
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-auth-rolebinding"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "metrics-auth-role"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "controller-manager", Namespace: "system"}},
	}
	files := []struct {
		name string
		obj  any
	}{
		{"service_account.yaml", sa},
		{"metrics_auth_role.yaml", metricsAuthRole("metrics-auth-role")},
		{"metrics_auth_role_binding.yaml", binding},
		{"metrics_reader_role.yaml", metricsReaderRole("metrics-reader")},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kustomization := "resources:\n"
	for _, f := range files {
		b, err := yaml.Marshal(f.obj)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		kustomization += "- " + f.name + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
}

// createClusterRole creates role under a name of its own (role.Name is the
// prefix) and deletes it after the test.
func createClusterRole(t *testing.T, kc kubernetes.Interface, role *rbacv1.ClusterRole) string {
	t.Helper()
	ctx := context.Background()
	role = role.DeepCopy()
	role.GenerateName, role.Name = role.Name+"-", ""
	created, err := kc.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kc.RbacV1().ClusterRoles().Delete(ctx, created.Name, metav1.DeleteOptions{}) })
	return created.Name
}

// serviceAccountToken creates the ServiceAccount ns/name, bound to the
// named ClusterRoles, and returns a token of it (a TokenRequest).
func serviceAccountToken(t *testing.T, kc kubernetes.Interface, ns, name string, clusterRoles ...string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, role := range clusterRoles {
		b, err := kc.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: role + "-"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kc.RbacV1().ClusterRoleBindings().Delete(ctx, b.Name, metav1.DeleteOptions{}) })
	}
	expiry := int64((time.Hour).Seconds())
	tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// tokenKubeconfig writes a kubeconfig for the env's apiserver that
// authenticates with token.
func tokenKubeconfig(t *testing.T, e *testenv.Env, token string) string {
	t.Helper()
	admin := e.Config()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["testenv"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["testenv"] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: "user"}
	cfg.CurrentContext = "testenv"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
