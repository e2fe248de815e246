package crdschema

import "github.com/ctrlgen/ctrlgen/internal/model"

// knownSchema is the schema controller-gen v0.23.0 hard-codes for some
// apimachinery and apiextensions types (its KnownPackages) instead of
// walking them; ObjectMeta is an opaque object, as without
// crd:generateEmbeddedObjectMeta.
func knownSchema(ref model.TypeRef) (*model.Schema, bool) {
	t := true
	switch ref {
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "ObjectMeta"},
		model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured", Name: "Unstructured"}:
		return &model.Schema{Type: "object"}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Time"},
		model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "MicroTime"}:
		return &model.Schema{Type: "string", Format: "date-time"}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Duration"}:
		return &model.Schema{Type: "string"}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Fields"}:
		// controller-gen writes additionalProperties: true here; a map of
		// anything is what that means to the apiserver too.
		return &model.Schema{Type: "object", XPreserveUnknownFields: &t}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/api/resource", Name: "Quantity"}:
		return &model.Schema{XIntOrString: true,
			AnyOf:   []*model.Schema{{Type: "integer"}, {Type: "string"}},
			Pattern: `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/runtime", Name: "RawExtension"}:
		return &model.Schema{Type: "object", XPreserveUnknownFields: &t}, true
	case model.TypeRef{Pkg: "k8s.io/apimachinery/pkg/util/intstr", Name: "IntOrString"}:
		return &model.Schema{XIntOrString: true, AnyOf: []*model.Schema{{Type: "integer"}, {Type: "string"}}}, true
	case model.TypeRef{Pkg: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", Name: "JSON"},
		model.TypeRef{Pkg: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1", Name: "JSON"}:
		return &model.Schema{XPreserveUnknownFields: &t}, true
	}
	return nil, false
}
