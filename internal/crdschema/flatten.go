package crdschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// resolved returns the schema of the named type with every reference
// replaced by the referenced type's schema, as controller-gen's Flattener:
// a use of a type becomes allOf[the type, what the use adds], with the
// use's description winning over the type's. Schemas are never changed
// once built, so the result shares the types' schemas (and is shared by
// every use): flattenAllOf makes new nodes where it merges.
func (s *schemas) resolved(ref model.TypeRef) *model.Schema {
	if sc, ok := s.flat[ref]; ok {
		if sc == nil {
			return &model.Schema{}
		}
		return sc
	}
	raw, ok := s.raw[ref]
	if !ok {
		// The types controller-gen hard-codes, without reading their
		// package (namedRef never asks typeSchema for them).
		raw, ok = knownSchema(ref)
	}
	if !ok {
		t, err := s.g.Declared(typegraph.Name{Pkg: ref.Pkg, Name: ref.Name})
		if err != nil {
			s.errs = append(s.errs, err)
			return &model.Schema{}
		}
		raw = s.typeSchema(t)
	}
	s.flat[ref] = nil
	sc := s.resolveRefs(raw)
	s.flat[ref] = sc
	return sc
}

// resolveRefs returns sc with its references replaced: sc itself when it
// has none, otherwise new nodes down to them.
func (s *schemas) resolveRefs(sc *model.Schema) *model.Schema {
	if sc.Ref != nil {
		return preserveFields(s.resolved(*sc.Ref), sc)
	}
	out := *sc
	changed := false
	if sc.Items != nil {
		out.Items = s.resolveRefs(sc.Items)
		changed = out.Items != sc.Items
	}
	var c bool
	out.AllOf, c = mapSchemas(sc.AllOf, s.resolveRefs)
	changed = changed || c
	out.AnyOf, c = mapSchemas(sc.AnyOf, s.resolveRefs)
	changed = changed || c
	out.Properties, c = mapProperties(sc.Properties, s.resolveRefs)
	changed = changed || c
	if sc.AdditionalProperties != nil {
		out.AdditionalProperties = s.resolveRefs(sc.AdditionalProperties)
		changed = changed || out.AdditionalProperties != sc.AdditionalProperties
	}
	if !changed {
		return sc
	}
	return &out
}

// mapSchemas applies f to each schema; the same slice when f changes none.
func mapSchemas(in []*model.Schema, f func(*model.Schema) *model.Schema) ([]*model.Schema, bool) {
	var out []*model.Schema
	for i, c := range in {
		n := f(c)
		if n != c && out == nil {
			out = slices.Clone(in)
		}
		if out != nil {
			out[i] = n
		}
	}
	if out == nil {
		return in, false
	}
	return out, true
}

// mapProperties applies f to each property; the same map when f changes
// none.
func mapProperties(in map[string]*model.Schema, f func(*model.Schema) *model.Schema) (map[string]*model.Schema, bool) {
	var out map[string]*model.Schema
	for k, c := range in {
		n := f(c)
		if n != c {
			if out == nil {
				out = maps.Clone(in)
			}
			out[k] = n
		}
	}
	if out == nil {
		return in, false
	}
	return out, true
}

// preserveFields is controller-gen's: the type's schema and the use's,
// without its documentation, side by side in an allOf, and the use's
// documentation, when it has any, on top.
func preserveFields(dst, use *model.Schema) *model.Schema {
	src := *use
	src.Description, src.Title, src.ExternalDocs, src.Example, src.Ref = "", "", nil, nil, nil
	out := &model.Schema{AllOf: []*model.Schema{dst, &src},
		Description: dst.Description, Title: dst.Title, ExternalDocs: dst.ExternalDocs, Example: dst.Example}
	if use.Description != "" {
		out.Description = use.Description
	}
	if use.Title != "" {
		out.Title = use.Title
	}
	if use.ExternalDocs != nil {
		out.ExternalDocs = use.ExternalDocs
	}
	if use.Example != nil {
		out.Example = use.Example
	}
	return out
}

// flattenAllOf merges every allOf into its parent, top down, as
// controller-gen's FlattenEmbedded, without changing sc: the result is
// new where anything merged and shares what did not.
func flattenAllOf(sc *model.Schema, errs *[]error) *model.Schema {
	f := flattener{errs: errs, done: map[*model.Schema]*model.Schema{}}
	return f.flatten(sc)
}

type flattener struct {
	errs *[]error
	// done are the schemas flattened so far, shared ones once.
	done map[*model.Schema]*model.Schema
}

func (f *flattener) flatten(sc *model.Schema) *model.Schema {
	if r, ok := f.done[sc]; ok {
		return r
	}
	out := *sc
	changed := len(sc.AllOf) > 0
	if changed {
		out.AllOf = nil
		for _, e := range sc.AllOf {
			mergeInto(&out, e, f.errs)
		}
	}
	if out.Items != nil {
		items := f.flatten(out.Items)
		changed = changed || items != out.Items
		out.Items = items
	}
	var c bool
	out.AllOf, c = mapSchemas(out.AllOf, f.flatten)
	changed = changed || c
	out.AnyOf, c = mapSchemas(out.AnyOf, f.flatten)
	changed = changed || c
	out.Properties, c = mapProperties(out.Properties, f.flatten)
	changed = changed || c
	if out.AdditionalProperties != nil {
		ap := f.flatten(out.AdditionalProperties)
		changed = changed || ap != out.AdditionalProperties
		out.AdditionalProperties = ap
	}
	r := sc
	if changed {
		r = &out
	}
	f.done[sc] = r
	return r
}

// mergeInto is controller-gen's flattenAllOfInto: src's fields go into
// dst where dst has none; where both have one and they differ, the two
// are kept side by side in dst's allOf ("hoisted"), except for the fields
// that merge: properties (recursively), required (a union), the value
// schema of a map, the list and map types, and CEL rules (src's first).
// controller-gen compares pointer fields (default, maximum, maxLength…)
// by address, and a type used twice shares its values' pointers, so two
// uses of one type merge without hoisting; ctrlgen compares values.
func mergeInto(dst, src *model.Schema, errs *[]error) {
	for _, e := range src.AllOf {
		mergeInto(dst, e, errs)
	}
	var dstRem, srcRem model.Schema
	hoisted := false
	hoist := func(set func(rem, from *model.Schema), clear func()) {
		set(&dstRem, dst)
		set(&srcRem, src)
		clear()
		hoisted = true
	}
	str := func(d *string, s string, set func(rem *model.Schema, v string)) {
		switch {
		case s == "" || *d == s:
		case *d == "":
			*d = s
		default:
			hoisted = true
			set(&dstRem, *d)
			set(&srcRem, s)
			*d = ""
		}
	}
	if src.Type != "" {
		switch {
		case dst.Type == "":
			dst.Type = src.Type
		case dst.Type != src.Type:
			*errs = append(*errs, fmt.Errorf("conflicting types in allOf branches in schema: %s vs %s", dst.Type, src.Type))
		}
	}
	str(&dst.Format, src.Format, func(r *model.Schema, v string) { r.Format = v })
	str(&dst.Pattern, src.Pattern, func(r *model.Schema, v string) { r.Pattern = v })
	if len(src.Default) > 0 {
		switch {
		case len(dst.Default) == 0:
			dst.Default = src.Default
		case !bytes.Equal(dst.Default, src.Default):
			hoist(func(rem, from *model.Schema) { rem.Default = from.Default }, func() { dst.Default = nil })
		}
	}
	floatPtr := func(d **float64, s *float64, set func(rem *model.Schema, v *float64)) {
		switch {
		case s == nil:
		case *d == nil:
			*d = s
		case **d == *s:
		default:
			hoisted = true
			set(&dstRem, *d)
			set(&srcRem, s)
			*d = nil
		}
	}
	intPtr := func(d **int64, s *int64, set func(rem *model.Schema, v *int64)) {
		switch {
		case s == nil:
		case *d == nil:
			*d = s
		case **d == *s:
		default:
			hoisted = true
			set(&dstRem, *d)
			set(&srcRem, s)
			*d = nil
		}
	}
	floatPtr(&dst.Maximum, src.Maximum, func(r *model.Schema, v *float64) { r.Maximum = v })
	floatPtr(&dst.Minimum, src.Minimum, func(r *model.Schema, v *float64) { r.Minimum = v })
	floatPtr(&dst.MultipleOf, src.MultipleOf, func(r *model.Schema, v *float64) { r.MultipleOf = v })
	dst.ExclusiveMaximum = dst.ExclusiveMaximum || src.ExclusiveMaximum
	dst.ExclusiveMinimum = dst.ExclusiveMinimum || src.ExclusiveMinimum
	dst.UniqueItems = dst.UniqueItems || src.UniqueItems
	dst.Nullable = dst.Nullable || src.Nullable
	dst.XEmbeddedResource = dst.XEmbeddedResource || src.XEmbeddedResource
	dst.XIntOrString = dst.XIntOrString || src.XIntOrString
	intPtr(&dst.MaxLength, src.MaxLength, func(r *model.Schema, v *int64) { r.MaxLength = v })
	intPtr(&dst.MinLength, src.MinLength, func(r *model.Schema, v *int64) { r.MinLength = v })
	intPtr(&dst.MaxItems, src.MaxItems, func(r *model.Schema, v *int64) { r.MaxItems = v })
	intPtr(&dst.MinItems, src.MinItems, func(r *model.Schema, v *int64) { r.MinItems = v })
	intPtr(&dst.MaxProperties, src.MaxProperties, func(r *model.Schema, v *int64) { r.MaxProperties = v })
	intPtr(&dst.MinProperties, src.MinProperties, func(r *model.Schema, v *int64) { r.MinProperties = v })
	if len(src.Enum) > 0 && len(dst.Enum) == 0 {
		dst.Enum = append([]json.RawMessage(nil), src.Enum...)
	}
	if len(src.Required) > 0 {
		dst.Required = slices.Concat(dst.Required, src.Required)
	}
	if src.Items != nil {
		if dst.Items == nil {
			dst.Items = src.Items
		} else {
			hoist(func(rem, from *model.Schema) { rem.Items = from.Items }, func() { dst.Items = nil })
		}
	}
	if len(src.AnyOf) > 0 {
		if len(dst.AnyOf) == 0 {
			dst.AnyOf = src.AnyOf
		} else {
			hoist(func(rem, from *model.Schema) { rem.AnyOf = from.AnyOf }, func() { dst.AnyOf = nil })
		}
	}
	if len(src.Properties) > 0 {
		// dst is new, but its properties may be another schema's.
		props := make(map[string]*model.Schema, len(dst.Properties)+len(src.Properties))
		maps.Copy(props, dst.Properties)
		for k, v := range src.Properties {
			if d, ok := props[k]; ok {
				merged := *d
				mergeInto(&merged, v, errs)
				props[k] = &merged
			} else {
				props[k] = v
			}
		}
		dst.Properties = props
	}
	if src.AdditionalProperties != nil {
		if dst.AdditionalProperties == nil {
			dst.AdditionalProperties = src.AdditionalProperties
		} else {
			merged := *dst.AdditionalProperties
			mergeInto(&merged, src.AdditionalProperties, errs)
			dst.AdditionalProperties = &merged
		}
	}
	if src.XPreserveUnknownFields != nil {
		dst.XPreserveUnknownFields = src.XPreserveUnknownFields
	}
	if src.XListType != nil {
		dst.XListType = src.XListType
	}
	if src.XMapType != nil {
		dst.XMapType = src.XMapType
	}
	if len(src.XListMapKeys) > 0 {
		dst.XListMapKeys = src.XListMapKeys
	}
	if len(src.XValidations) > 0 {
		dst.XValidations = append(append([]model.ValidationRule(nil), src.XValidations...), dst.XValidations...)
	}
	if hoisted {
		dst.AllOf = append(slices.Clip(dst.AllOf), &dstRem, &srcRem)
	}
	if len(dst.Required) > 0 {
		req := slices.Clone(dst.Required)
		slices.Sort(req)
		dst.Required = slices.Compact(req)
	}
}
