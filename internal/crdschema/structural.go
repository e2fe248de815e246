package crdschema

import (
	"fmt"
	"sort"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

// structural returns why the apiserver would refuse root as a CRD's
// structural schema (apiextensions-apiserver's structural schema rules):
// every node says its type, except where x-kubernetes-int-or-string or
// x-kubernetes-preserve-unknown-fields stands for it; an array has items;
// a node has properties or additionalProperties, not both; allOf and
// anyOf only add value validations (no types, descriptions, defaults or
// nullability, no x-kubernetes-* extensions); an embedded resource is an
// object; and the root is an object that is not nullable.
func structural(root *model.Schema) []error {
	var errs []error
	if root.Type != "object" {
		errs = append(errs, fmt.Errorf("the root must be of type object, not %q", root.Type))
	}
	if root.Nullable {
		errs = append(errs, fmt.Errorf("the root must not be nullable"))
	}
	walkStructural(root, "", &errs)
	return errs
}

func walkStructural(sc *model.Schema, path string, errs *[]error) {
	at := path
	if at == "" {
		at = "<root>"
	}
	fail := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	preserve := sc.XPreserveUnknownFields != nil && *sc.XPreserveUnknownFields
	switch {
	case sc.XIntOrString:
		if sc.Type != "" {
			fail("x-kubernetes-int-or-string needs an empty type, not %q", sc.Type)
		}
	case sc.Type == "" && !preserve:
		fail("type is required (or x-kubernetes-preserve-unknown-fields: true)")
	}
	if sc.XPreserveUnknownFields != nil && !*sc.XPreserveUnknownFields {
		fail("x-kubernetes-preserve-unknown-fields must be true or absent")
	}
	if sc.Type == "array" && sc.Items == nil {
		fail("an array needs items")
	}
	if len(sc.Properties) > 0 && sc.AdditionalProperties != nil {
		fail("properties and additionalProperties are mutually exclusive")
	}
	if sc.XEmbeddedResource && sc.Type != "object" {
		fail("x-kubernetes-embedded-resource needs type object")
	}
	if sc.XListMapKeys != nil && (sc.XListType == nil || *sc.XListType != "map") {
		fail("x-kubernetes-list-map-keys needs x-kubernetes-list-type: map")
	}
	for i, j := range sc.AllOf {
		junctor(j, fmt.Sprintf("%s.allOf[%d]", at, i), sc, errs)
	}
	for i, j := range sc.AnyOf {
		junctor(j, fmt.Sprintf("%s.anyOf[%d]", at, i), sc, errs)
	}
	if sc.Items != nil {
		walkStructural(sc.Items, path+"[*]", errs)
	}
	if sc.AdditionalProperties != nil {
		walkStructural(sc.AdditionalProperties, path+"[*]", errs)
	}
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		walkStructural(sc.Properties[n], path+"."+n, errs)
	}
}

// junctor checks a schema under allOf or anyOf: value validations only,
// and only on properties and items the structural part declares. The
// int-or-string pattern anyOf: [{type: integer}, {type: string}] is the
// exception.
func junctor(j *model.Schema, at string, parent *model.Schema, errs *[]error) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	if j.Type != "" && !(parent.XIntOrString && (j.Type == "integer" || j.Type == "string")) {
		fail("type is forbidden under allOf, anyOf, oneOf and not")
	}
	if j.Description != "" || len(j.Default) > 0 || j.Nullable {
		fail("description, default and nullable are forbidden under allOf, anyOf, oneOf and not")
	}
	if j.XPreserveUnknownFields != nil || j.XEmbeddedResource || j.XIntOrString || j.XListType != nil ||
		j.XListMapKeys != nil || j.XMapType != nil || len(j.XValidations) > 0 {
		fail("x-kubernetes-* extensions are forbidden under allOf, anyOf, oneOf and not")
	}
	for n, p := range j.Properties {
		ps, ok := parent.Properties[n]
		if !ok {
			fail("property %s is not declared outside allOf/anyOf", n)
			continue
		}
		junctor(p, at+"."+n, ps, errs)
	}
	if j.Items != nil {
		if parent.Items == nil {
			fail("items are not declared outside allOf/anyOf")
		} else {
			junctor(j.Items, at+"[*]", parent.Items, errs)
		}
	}
	for i, jj := range j.AllOf {
		junctor(jj, fmt.Sprintf("%s.allOf[%d]", at, i), parent, errs)
	}
	for i, jj := range j.AnyOf {
		junctor(jj, fmt.Sprintf("%s.anyOf[%d]", at, i), parent, errs)
	}
}
