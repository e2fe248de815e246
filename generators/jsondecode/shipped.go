package jsondecode

import (
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

const metav1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

// Shipped are the types whose decoders runtime/jsoncodec ships
// (zz_generated.meta.go, written by ShippedFile): the object and list
// metadata every kind has, conditions, label selectors and the envelope
// of watch events. Generated files call them rather than holding copies.
var Shipped = []typegraph.Name{
	{Pkg: metav1, Name: "TypeMeta"},
	{Pkg: metav1, Name: "ObjectMeta"},
	{Pkg: metav1, Name: "ListMeta"},
	{Pkg: metav1, Name: "ShardInfo"},
	{Pkg: metav1, Name: "OwnerReference"},
	{Pkg: metav1, Name: "ManagedFieldsEntry"},
	{Pkg: metav1, Name: "Condition"},
	{Pkg: metav1, Name: "LabelSelector"},
	{Pkg: metav1, Name: "LabelSelectorRequirement"},
	{Pkg: metav1, Name: "WatchEvent"},
}

// shippedFunc names the runtime's decoder of a shipped type.
func shippedFunc(n typegraph.Name) (string, bool) {
	for _, s := range Shipped {
		if s == n {
			return "Decode" + n.Name, true
		}
	}
	return "", false
}

// ShippedFileName is the runtime's file of shipped decoders.
const ShippedFileName = "zz_generated.meta.go"

// ShippedFile writes the runtime's decoders of the Shipped types, into
// the file at path in package jsoncodec; lookup resolves type names.
func ShippedFile(path string, lookup func(pkg, name string) (*typegraph.Type, error)) (*gen.File, error) {
	f := gen.NewFile(path, "jsoncodec", RuntimePkg)
	f.Doc = ""
	e := newEmitter(f, "Decode", func(typegraph.Name) (string, bool) { return "", false }, func(string) string { return "" })
	for _, n := range Shipped {
		t, err := lookup(n.Pkg, n.Name)
		if err != nil {
			return nil, err
		}
		e.funcFor(t)
	}
	if err := e.flush(); err != nil {
		return nil, err
	}
	return f, nil
}
