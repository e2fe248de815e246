package crdschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// rule applies one marker definition's values to a schema. Rules run in
// order of prio, as controller-tools' ApplyPriority (lower first); items
// rules run after the others, on the array's items.
type rule struct {
	prio  int
	items bool
	name  string
	has   func(set markers.Set) bool
	apply func(set markers.Set, sc *model.Schema, t *typegraph.Type) []error
}

// each makes a rule of a definition: f runs for every value of d in the
// set, and its error is reported at the marker.
func each[T any](d *markers.Definition[T], prio int, items bool, f func(v T, sc *model.Schema, t *typegraph.Type) error) rule {
	return rule{prio: prio, items: items, name: d.Name(), has: d.Has, apply: func(set markers.Set, sc *model.Schema, t *typegraph.Type) []error {
		var errs []error
		for _, v := range d.All(set) {
			if err := f(v.V, sc, t); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: +%s: %w", v.Pos.Filename, v.Pos.Line, d.Name(), err))
			}
		}
		return errs
	}}
}

const prioDefault = 10

// validationRules makes the rules of a validation marker's four forms.
func validationRules[T any](m markers.ValidationMarker[T], prio int, f func(v T, sc *model.Schema, t *typegraph.Type) error) []rule {
	return []rule{each(m.Field, prio, false, f), each(m.Type, prio, false, f),
		each(m.ItemsField, prio, true, f), each(m.ItemsType, prio, true, f)}
}

var rules = func() []rule {
	var r []rule
	add := func(rs ...rule) { r = append(r, rs...) }
	add(validationRules(markers.Maximum, prioDefault, maximum)...)
	add(validationRules(markers.Minimum, prioDefault, minimum)...)
	add(validationRules(markers.ExclusiveMaximum, prioDefault, func(v bool, sc *model.Schema, _ *typegraph.Type) error {
		if !numeric(sc) {
			return fmt.Errorf("must apply exclusivemaximum to a numeric value, found %s", sc.Type)
		}
		sc.ExclusiveMaximum = v
		return nil
	})...)
	add(validationRules(markers.ExclusiveMinimum, prioDefault, func(v bool, sc *model.Schema, _ *typegraph.Type) error {
		if !numeric(sc) {
			return fmt.Errorf("must apply exclusiveminimum to a numeric value, found %s", sc.Type)
		}
		sc.ExclusiveMinimum = v
		return nil
	})...)
	add(validationRules(markers.MultipleOf, prioDefault, func(v float64, sc *model.Schema, _ *typegraph.Type) error {
		if !numeric(sc) {
			return fmt.Errorf("must apply multipleof to a numeric value, found %s", sc.Type)
		}
		if sc.Type == "integer" && !integral(v) {
			return fmt.Errorf("cannot apply non-integral multipleof validation (%v) to integer value", v)
		}
		sc.MultipleOf = &v
		return nil
	})...)
	add(validationRules(markers.MinProperties, prioDefault, objectInt("minproperties", func(sc *model.Schema) **int64 { return &sc.MinProperties }))...)
	add(validationRules(markers.MaxProperties, prioDefault, objectInt("maxproperties", func(sc *model.Schema) **int64 { return &sc.MaxProperties }))...)
	add(validationRules(markers.MaxLength, prioDefault, textInt("maxlength", func(sc *model.Schema) **int64 { return &sc.MaxLength }))...)
	add(validationRules(markers.MinLength, prioDefault, textInt("minlength", func(sc *model.Schema) **int64 { return &sc.MinLength }))...)
	add(validationRules(markers.Pattern, prioDefault, func(v string, sc *model.Schema, _ *typegraph.Type) error {
		if !textual(sc) {
			return fmt.Errorf("must apply pattern to a textual value, found type %q", sc.Type)
		}
		sc.Pattern = v
		return nil
	})...)
	add(validationRules(markers.MaxItems, prioDefault, maxItems)...)
	add(validationRules(markers.MinItems, prioDefault, func(v int, sc *model.Schema, _ *typegraph.Type) error {
		if sc.Type != "array" {
			return errors.New("must apply minitems to an array")
		}
		n := int64(v)
		sc.MinItems = &n
		return nil
	})...)
	add(validationRules(markers.UniqueItems, prioDefault, func(v bool, sc *model.Schema, _ *typegraph.Type) error {
		if sc.Type != "array" {
			return errors.New("must apply uniqueitems to an array")
		}
		sc.UniqueItems = v
		return nil
	})...)
	add(validationRules(markers.Enum, prioDefault, func(v []any, sc *model.Schema, _ *typegraph.Type) error {
		vals := make([]json.RawMessage, len(v))
		for i, e := range v {
			raw, err := json.Marshal(e)
			if err != nil {
				return err
			}
			vals[i] = raw
		}
		sc.Enum = vals
		return nil
	})...)
	add(validationRules(markers.Format, prioDefault, func(v string, sc *model.Schema, _ *typegraph.Type) error {
		sc.Format = v
		return nil
	})...)
	add(validationRules(markers.Type, prioDefault-1, func(v string, sc *model.Schema, _ *typegraph.Type) error {
		sc.Type = v
		return nil
	})...)
	add(validationRules(markers.XPreserveUnknownFields, prioDefault, preserveUnknown)...)
	add(validationRules(markers.XEmbeddedResource, prioDefault, embeddedResource)...)
	add(validationRules(markers.XIntOrString, prioDefault-1, func(_ bool, sc *model.Schema, _ *typegraph.Type) error {
		sc.XIntOrString = true
		return nil
	})...)
	add(validationRules(markers.XValidation, prioDefault, func(v markers.XValidationRule, sc *model.Schema, _ *typegraph.Type) error {
		addRule(sc, v)
		return nil
	})...)
	add(
		each(markers.AtMostOneOf, prioDefault+1, false, func(v []string, sc *model.Schema, _ *typegraph.Type) error {
			if len(v) > 0 {
				addRule(sc, markers.XValidationRule{Rule: sumExpr(v) + " <= 1", Message: fmt.Sprintf("at most one of the fields in %v may be set", v)})
			}
			return nil
		}),
		each(markers.ExactlyOneOf, prioDefault+2, false, func(v []string, sc *model.Schema, _ *typegraph.Type) error {
			if len(v) > 0 {
				addRule(sc, markers.XValidationRule{Rule: sumExpr(v) + " == 1", Message: fmt.Sprintf("exactly one of the fields in %v must be set", v)})
			}
			return nil
		}),
		each(markers.AtLeastOneOf, prioDefault+3, false, func(v []string, sc *model.Schema, _ *typegraph.Type) error {
			if len(v) > 0 {
				var b []string
				for _, f := range v {
					b = append(b, "has(self."+f+")")
				}
				addRule(sc, markers.XValidationRule{Rule: strings.Join(b, "||"), Message: fmt.Sprintf("at least one of the fields in %v must be set", v)})
			}
			return nil
		}),
		each(markers.K8sEnum, prioDefault, false, k8sEnum),
		each(markers.K8sRequired, prioDefault, false, func(_ bool, sc *model.Schema, _ *typegraph.Type) error {
			one := func(p **int64) {
				if *p == nil {
					n := int64(1)
					*p = &n
				}
			}
			switch sc.Type {
			case "string":
				one(&sc.MinLength)
			case "array":
				one(&sc.MinItems)
			case "object":
				one(&sc.MinProperties)
			default:
				if sc.Ref != nil {
					one(&sc.MinProperties)
				}
			}
			return nil
		}),
		each(markers.Nullable, prioDefault, false, func(_ bool, sc *model.Schema, _ *typegraph.Type) error {
			sc.Nullable = true
			return nil
		}),
		each(markers.Default, prioDefault, false, func(v any, sc *model.Schema, _ *typegraph.Type) error {
			raw, err := json.Marshal(v)
			if err != nil {
				return err
			}
			if sc.Type == "array" && string(raw) == "{}" {
				raw = []byte("[]")
			}
			sc.Default = raw
			return nil
		}),
		each(markers.K8sDefault, prioDefault-1, false, func(v any, sc *model.Schema, _ *typegraph.Type) error {
			if v == nil {
				return nil
			}
			raw, err := json.Marshal(v)
			sc.Default = raw
			return err
		}),
		each(markers.Example, prioDefault, false, func(v any, sc *model.Schema, _ *typegraph.Type) error {
			raw, err := json.Marshal(v)
			sc.Example = raw
			return err
		}),
		each(markers.EmbeddedResource, prioDefault, false, embeddedResource),
		each(markers.Immutable, prioDefault, false, func(_ bool, sc *model.Schema, _ *typegraph.Type) error {
			sc.XValidations = append(sc.XValidations, model.ValidationRule{Rule: "self == oldSelf", Message: "field is immutable"})
			return nil
		}),
		each(markers.K8sMaxItems, prioDefault, false, maxItems),
		each(markers.K8sMinimum, prioDefault, false, minimum),
		each(markers.K8sMaximum, prioDefault, false, maximum),
		each(markers.PreserveUnknownFields, prioDefault, false, preserveUnknown),
		each(markers.Title, prioDefault, false, func(v any, sc *model.Schema, _ *typegraph.Type) error {
			if v == nil {
				return nil
			}
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("expected string, got %T", v)
			}
			sc.Title = s
			return nil
		}),
		each(markers.ListType, prioDefault-1, false, listType),
		each(markers.K8sListType, prioDefault-1, false, listType),
		each(markers.ListMapKey, prioDefault, false, listMapKey),
		each(markers.K8sListMapKey, prioDefault, false, listMapKey),
		each(markers.MapType, prioDefault, false, func(v string, sc *model.Schema, _ *typegraph.Type) error {
			if sc.Type != "object" {
				return errors.New("must apply mapType to an object")
			}
			if v != "atomic" && v != "granular" {
				return errors.New(`MapType must be either "granular" or "atomic"`)
			}
			sc.XMapType = &v
			return nil
		}),
		each(markers.StructType, prioDefault, false, func(v string, sc *model.Schema, _ *typegraph.Type) error {
			if sc.Type != "object" && sc.Type != "" {
				return errors.New("must apply structType to an object; either explicitly set or defaulted through an empty schema type")
			}
			if v != "atomic" && v != "granular" {
				return errors.New(`StructType must be either "granular" or "atomic"`)
			}
			// controller-gen writes a struct's type as x-kubernetes-map-type.
			sc.XMapType = &v
			return nil
		}),
		each(markers.ExternalDocsMarker, prioDefault, false, func(v markers.ExternalDocs, sc *model.Schema, _ *typegraph.Type) error {
			if _, err := url.ParseRequestURI(v.URL); err != nil {
				return fmt.Errorf("invalid url %q: %w", v.URL, err)
			}
			sc.ExternalDocs = &model.ExternalDocs{URL: v.URL, Description: v.Description}
			return nil
		}),
	)
	sort.SliceStable(r, func(i, j int) bool { return r[i].prio < r[j].prio })
	return r
}()

// applyMarkers applies the schema markers of set to sc; t is the type
// whose declaration carries them (nil for a field). Errors are recorded.
func (s *schemas) applyMarkers(set markers.Set, sc *model.Schema, where fmt.Stringer, t *typegraph.Type) {
	for _, r := range rules {
		if r.items {
			continue
		}
		s.errs = append(s.errs, r.apply(set, sc, t)...)
	}
	for _, r := range rules {
		if !r.items {
			continue
		}
		if !r.has(set) {
			continue
		}
		if sc.Type != "array" || sc.Items == nil {
			s.errorf(where, "must apply +%s to an array value, found %s", r.name, sc.Type)
			continue
		}
		s.errs = append(s.errs, r.apply(set, sc.Items, t)...)
	}
}

func numeric(sc *model.Schema) bool { return sc.Type == "integer" || sc.Type == "number" }
func textual(sc *model.Schema) bool { return sc.Type == "string" || sc.XIntOrString }
func integral(v float64) bool {
	return v == math.Trunc(v) && !math.IsNaN(v) && !math.IsInf(v, 0)
}

func maximum(v float64, sc *model.Schema, _ *typegraph.Type) error {
	if !numeric(sc) {
		return fmt.Errorf("must apply maximum to a numeric value, found %s", sc.Type)
	}
	if sc.Type == "integer" && !integral(v) {
		return fmt.Errorf("cannot apply non-integral maximum validation (%v) to integer value", v)
	}
	sc.Maximum = &v
	return nil
}

func minimum(v float64, sc *model.Schema, _ *typegraph.Type) error {
	if !numeric(sc) {
		return fmt.Errorf("must apply minimum to a numeric value, found %s", sc.Type)
	}
	if sc.Type == "integer" && !integral(v) {
		return fmt.Errorf("cannot apply non-integral minimum validation (%v) to integer value", v)
	}
	sc.Minimum = &v
	return nil
}

func maxItems(v int, sc *model.Schema, _ *typegraph.Type) error {
	if sc.Type != "array" {
		return errors.New("must apply maxitem to an array")
	}
	n := int64(v)
	sc.MaxItems = &n
	return nil
}

func objectInt(what string, field func(*model.Schema) **int64) func(int, *model.Schema, *typegraph.Type) error {
	return func(v int, sc *model.Schema, _ *typegraph.Type) error {
		if sc.Type != "object" {
			return fmt.Errorf("must apply %s to an object", what)
		}
		n := int64(v)
		*field(sc) = &n
		return nil
	}
}

func textInt(what string, field func(*model.Schema) **int64) func(int, *model.Schema, *typegraph.Type) error {
	return func(v int, sc *model.Schema, _ *typegraph.Type) error {
		if !textual(sc) {
			return fmt.Errorf("must apply %s to a textual value, found type %q", what, sc.Type)
		}
		n := int64(v)
		*field(sc) = &n
		return nil
	}
}

func preserveUnknown(_ bool, sc *model.Schema, _ *typegraph.Type) error {
	t := true
	sc.XPreserveUnknownFields = &t
	return nil
}

func embeddedResource(_ bool, sc *model.Schema, _ *typegraph.Type) error {
	sc.XEmbeddedResource = true
	return nil
}

func addRule(sc *model.Schema, v markers.XValidationRule) {
	r := model.ValidationRule{Rule: v.Rule, Message: v.Message, MessageExpression: v.MessageExpression,
		FieldPath: v.FieldPath, OptionalOldSelf: v.OptionalOldSelf}
	if v.Reason != "" {
		reason := v.Reason
		r.Reason = &reason
	}
	sc.XValidations = append(sc.XValidations, r)
}

func sumExpr(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteString("+")
		}
		b.WriteString("(has(self." + f + ")?1:0)")
	}
	return b.String()
}

func listType(v string, sc *model.Schema, _ *typegraph.Type) error {
	if sc.Type != "array" {
		return fmt.Errorf("must apply listType to an array, found %s", sc.Type)
	}
	if v != "map" && v != "atomic" && v != "set" {
		return errors.New(`ListType must be either "map", "set" or "atomic"`)
	}
	sc.XListType = &v
	return nil
}

func listMapKey(v string, sc *model.Schema, _ *typegraph.Type) error {
	if sc.Type != "array" {
		return fmt.Errorf("must apply listMapKey to an array, found %s", sc.Type)
	}
	if sc.XListType == nil || *sc.XListType != "map" {
		return errors.New("must apply listMapKey to an associative-list")
	}
	if !slices.Contains(sc.XListMapKeys, v) {
		sc.XListMapKeys = append(sc.XListMapKeys, v)
	}
	return nil
}

func k8sEnum(_ bool, sc *model.Schema, t *typegraph.Type) error {
	if t == nil {
		return errors.New("k8s:enum must be set on a type, not a field")
	}
	if !isBuiltin(underlyingLocal(t), "string") {
		return fmt.Errorf("enum type must be a string, not %s", t.Name.Name)
	}
	var vals []json.RawMessage
	for _, c := range t.Package().Consts(t.Name.Name) {
		raw, _ := json.Marshal(c)
		vals = append(vals, raw)
	}
	if len(vals) == 0 {
		return fmt.Errorf("no enum values found for type %s", t.Name.Name)
	}
	sort.Slice(vals, func(i, j int) bool { return string(vals[i]) < string(vals[j]) })
	sc.Type = "string"
	sc.Enum = vals
	return nil
}

// underlyingLocal is the definition a chain of named types of t's own
// package ends in, as go/types' Underlying for +k8s:enum.
func underlyingLocal(t *typegraph.Type) *typegraph.Type {
	for range 32 {
		d := t.Definition()
		if d == t || d.Name.Pkg != t.Name.Pkg {
			break
		}
		next, err := t.Package().Declared(d.Name.Name)
		if err != nil {
			break
		}
		t = next
	}
	return t.Definition()
}
