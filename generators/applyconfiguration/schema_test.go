package applyconfiguration

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// The schema's type names must be those runtime.Scheme looks kinds up by,
// or the type converter finds no type for an object.
func TestOpenAPINameIsTheSchemesName(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	want, err := s.ToOpenAPIDefinitionName(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err != nil {
		t.Fatal(err)
	}
	if got := openAPIName(typegraph.Name{Pkg: "k8s.io/api/core/v1", Name: "ConfigMap"}); got != want {
		t.Errorf("openAPIName = %q, the scheme's %q", got, want)
	}
	if got := openAPIName(typegraph.Name{Pkg: "sigs.k8s.io/gateway-api/apis/v1", Name: "Gateway"}); got != "io.k8s.sigs.gateway-api.apis.v1.Gateway" {
		t.Errorf("openAPIName = %q", got)
	}
}

// Lists merge as kube-openapi's schemaconv makes them merge.
func TestListRelationship(t *testing.T) {
	for _, c := range []struct {
		comments []string
		tag      string
		rel      schema.ElementRelationship
		keys     []string
	}{
		{nil, "", schema.Atomic, nil},
		{[]string{"+listType=atomic"}, `patchStrategy:"merge" patchMergeKey:"name"`, schema.Atomic, nil},
		{[]string{"+listType=set"}, "", schema.Associative, nil},
		{[]string{"Doc.", "+listType=map", "+listMapKey=port", "+listMapKey=protocol"}, "", schema.Associative, []string{"port", "protocol"}},
		{nil, `json:"c" patchStrategy:"merge" patchMergeKey:"name"`, schema.Associative, []string{"name"}},
		{nil, `patchStrategy:"merge"`, schema.Associative, nil},
		{nil, `patchStrategy:"retainKeys"`, schema.Atomic, nil},
	} {
		rel, keys := listRelationship(c.comments, c.tag)
		if rel != c.rel || !slices.Equal(keys, c.keys) {
			t.Errorf("%q %q: %s %v, want %s %v", c.comments, c.tag, rel, keys, c.rel, c.keys)
		}
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{"status": "Status", "scale": "Scale", "ephemeralcontainers": "Ephemeralcontainers", "resize": "Resize"} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}
