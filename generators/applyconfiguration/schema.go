package applyconfiguration

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v2"
	"sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// This file derives the structured-merge-diff schema of the kinds from
// their Go types: what openapi-gen's OpenAPI document, converted by
// kube-openapi's schemaconv, gives applyconfiguration-gen. Named structs
// become named map types with their JSON fields (inline embedded structs
// flattened in); lists are atomic unless +listType or a merge
// patchStrategy says otherwise, as schemaconv decides; maps are granular
// unless +mapType=atomic; the apimachinery types with custom JSON are the
// scalars and untyped maps openapi-gen declares them as.

// Names of the untyped types schemaconv always adds.
const (
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// special are the types whose JSON is not their Go structure: their
// OpenAPI definitions say what they are.
var special = map[typegraph.Name]schema.Atom{
	{Pkg: metaV1Pkg, Name: "Time"}:                                    untypedScalar(),
	{Pkg: metaV1Pkg, Name: "MicroTime"}:                               untypedScalar(),
	{Pkg: metaV1Pkg, Name: "Duration"}:                                {Scalar: scalar(schema.String)},
	{Pkg: "k8s.io/apimachinery/pkg/api/resource", Name: "Quantity"}:   untypedScalar(),
	{Pkg: "k8s.io/apimachinery/pkg/util/intstr", Name: "IntOrString"}: untypedScalar(),
	{Pkg: runtimePkg, Name: "RawExtension"}:                           untypedMap(),
	{Pkg: metaV1Pkg, Name: "FieldsV1"}:                                untypedMap(),
	{Pkg: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", Name: "JSON"}: {Scalar: scalar("untyped"),
		List: &schema.List{ElementType: named(untypedAtomic), ElementRelationship: schema.Atomic},
		Map:  &schema.Map{ElementType: named(untypedDeduced), ElementRelationship: schema.Separable}},
}

func scalar(s schema.Scalar) *schema.Scalar { return &s }

func untypedScalar() schema.Atom { return schema.Atom{Scalar: scalar("untyped")} }

func untypedMap() schema.Atom {
	return schema.Atom{Map: &schema.Map{ElementType: schema.TypeRef{Inlined: schema.Atom{
		Scalar: scalar("untyped"),
		List:   &schema.List{ElementType: named(untypedAtomic), ElementRelationship: schema.Atomic},
		Map:    &schema.Map{ElementType: named(untypedDeduced), ElementRelationship: schema.Separable},
	}}}}
}

func named(name string) schema.TypeRef { return schema.TypeRef{NamedType: &name} }

// openAPIName is the name runtime.Scheme.ToOpenAPIDefinitionName gives a
// type: its import path with the host reversed, then its name:
// "io.k8s.api.core.v1.Pod".
func openAPIName(n typegraph.Name) string {
	parts := strings.Split(n.Pkg, "/")
	if strings.Contains(parts[0], ".") {
		host := strings.Split(parts[0], ".")
		for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
			host[i], host[j] = host[j], host[i]
		}
		parts[0] = strings.Join(host, ".")
	}
	return strings.Join(parts, ".") + "." + n.Name
}

// schemaYAML returns the schema of the roots and every type they reach,
// as applyconfiguration-gen's internal.go holds it.
func schemaYAML(roots []*model.Kind) (string, error) {
	c := &converter{defs: map[string]schema.TypeDef{}}
	for _, k := range roots {
		if _, err := c.named(k.Type); err != nil {
			return "", err
		}
	}
	names := make([]string, 0, len(c.defs))
	for n := range c.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	var s schema.Schema
	for _, n := range names {
		s.Types = append(s.Types, c.defs[n])
	}
	s.Types = append(s.Types,
		schema.TypeDef{Name: untypedAtomic, Atom: schema.Atom{
			Scalar: scalar("untyped"),
			List:   &schema.List{ElementType: named(untypedAtomic), ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: named(untypedAtomic), ElementRelationship: schema.Atomic},
		}},
		schema.TypeDef{Name: untypedDeduced, Atom: schema.Atom{
			Scalar: scalar("untyped"),
			List:   &schema.List{ElementType: named(untypedAtomic), ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: named(untypedDeduced), ElementRelationship: schema.Separable},
		}},
	)
	out, err := yaml.Marshal(&s)
	if err != nil {
		return "", err
	}
	if strings.Contains(string(out), "`") {
		return "", fmt.Errorf("the schema holds a backquote, which a Go raw string cannot")
	}
	return string(out), nil
}

type converter struct {
	defs map[string]schema.TypeDef
}

// named returns a reference to t's definition, adding it (and what it
// reaches) first.
func (c *converter) named(t *typegraph.Type) (schema.TypeRef, error) {
	name := openAPIName(t.Name)
	ref := named(name)
	if _, done := c.defs[name]; done {
		return ref, nil
	}
	if atom, ok := special[t.Name]; ok {
		c.defs[name] = schema.TypeDef{Name: name, Atom: atom}
		return ref, nil
	}
	c.defs[name] = schema.TypeDef{Name: name} // placeholder against cycles
	fields, err := c.fields(t)
	if err != nil {
		return ref, err
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	m := &schema.Map{Fields: fields}
	if v, ok := marker(t.Comments, "structType"); ok && v == "atomic" {
		m.ElementRelationship = schema.Atomic
	}
	c.defs[name] = schema.TypeDef{Name: name, Atom: schema.Atom{Map: m}}
	return ref, nil
}

// fields are a struct's JSON fields, those of inline embedded structs
// included, as encoding/json sees them: of the fields of one name, the
// shallowest wins, then the one tagged with it; where that leaves several,
// none (prometheus-operator's ProbeSpec has an Authorization of its own
// and one in an embedded struct: a second entry would make the schema
// invalid, and the fake clientset's type converter panic).
func (c *converter) fields(t *typegraph.Type) ([]schema.StructField, error) {
	all, err := jsonFields(t, 0)
	if err != nil {
		return nil, err
	}
	byName := map[string][]jsonField{}
	var names []string
	for _, f := range all {
		if byName[f.name] == nil {
			names = append(names, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []schema.StructField
	for _, name := range names {
		f, ok := dominant(byName[name])
		if !ok {
			continue
		}
		ref, err := c.ref(f.m.Type, f.m)
		if err != nil {
			return nil, err
		}
		out = append(out, schema.StructField{Name: name, Type: ref})
	}
	return out, nil
}

// jsonField is a field of a struct or of a struct embedded in it, depth
// levels of embedding down, under its JSON name.
type jsonField struct {
	name   string
	m      typegraph.Member
	depth  int
	tagged bool
}

// dominant is encoding/json's choice among fields of one name.
func dominant(fields []jsonField) (jsonField, bool) {
	shallowest := slices.MinFunc(fields, func(a, b jsonField) int { return a.depth - b.depth }).depth
	var top, tagged []jsonField
	for _, f := range fields {
		if f.depth == shallowest {
			top = append(top, f)
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
	}
	switch {
	case len(top) == 1:
		return top[0], true
	case len(tagged) == 1:
		return tagged[0], true
	}
	return jsonField{}, false
}

// jsonFields are t's JSON fields and those of its inline embedded
// structs, before encoding/json's choice among fields of one name.
func jsonFields(t *typegraph.Type, depth int) ([]jsonField, error) {
	members, err := t.Resolved().Members()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	var out []jsonField
	for _, m := range members {
		if !m.Embedded && !isExported(m.Name) {
			continue
		}
		tag, hasTag := reflect.StructTag(m.Tag).Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if m.Embedded && name == "" {
			inner := deref(m.Type).Resolved()
			if inner.Kind == typegraph.Struct {
				more, err := jsonFields(inner, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, more...)
				continue
			}
		}
		tagged := hasTag && name != ""
		if !tagged {
			name = m.Name
		}
		out = append(out, jsonField{name: name, m: m, depth: depth, tagged: tagged})
	}
	return out, nil
}

func isExported(name string) bool {
	for _, r := range name {
		return unicode.IsUpper(r)
	}
	return false
}

// ref is the schema of a field of type t; m is the field, whose markers
// and tags say how lists and maps merge.
func (c *converter) ref(t *typegraph.Type, m typegraph.Member) (schema.TypeRef, error) {
	t = deref(t)
	if _, ok := special[t.Name]; ok && t.IsNamed() {
		return c.named(t)
	}
	comments := m.Comments
	if t.Kind == typegraph.Alias {
		comments = append(append([]string(nil), comments...), t.Comments...)
		t = t.Underlying
	}
	switch t.Kind {
	case typegraph.Builtin:
		return schema.TypeRef{Inlined: schema.Atom{Scalar: scalar(scalarOf(t.Name.Name))}}, nil
	case typegraph.Struct:
		if !t.IsNamed() {
			fields, err := c.fields(t)
			if err != nil {
				return schema.TypeRef{}, err
			}
			return schema.TypeRef{Inlined: schema.Atom{Map: &schema.Map{Fields: fields}}}, nil
		}
		return c.named(t)
	case typegraph.Slice, typegraph.Array:
		// encoding/json writes a []byte as a base64 string, but a
		// fixed-size [N]byte as an array of numbers (controller-gen's
		// schema says the same).
		if e := deref(t.Elem); t.Kind == typegraph.Slice && e.Kind == typegraph.Builtin && (e.Name.Name == "byte" || e.Name.Name == "uint8") {
			return schema.TypeRef{Inlined: schema.Atom{Scalar: scalar(schema.String)}}, nil
		}
		elem, err := c.ref(t.Elem, typegraph.Member{})
		if err != nil {
			return schema.TypeRef{}, err
		}
		rel, keys := listRelationship(comments, m.Tag)
		return schema.TypeRef{Inlined: schema.Atom{List: &schema.List{ElementType: elem, ElementRelationship: rel, Keys: keys}}}, nil
	case typegraph.Map:
		elem, err := c.ref(t.Elem, typegraph.Member{})
		if err != nil {
			return schema.TypeRef{}, err
		}
		mp := &schema.Map{ElementType: elem}
		if v, ok := marker(comments, "mapType"); ok {
			switch v {
			case "atomic":
				mp.ElementRelationship = schema.Atomic
			case "granular":
				mp.ElementRelationship = schema.Separable
			}
		}
		return schema.TypeRef{Inlined: schema.Atom{Map: mp}}, nil
	}
	// interface{} and anything else: whatever the JSON holds.
	return named(untypedDeduced), nil
}

func scalarOf(builtin string) schema.Scalar {
	switch builtin {
	case "string":
		return schema.String
	case "bool":
		return schema.Boolean
	}
	return schema.Numeric
}

// listRelationship is schemaconv's: +listType=atomic|set|map (with
// +listMapKey), else a merge patchStrategy (keyed by patchMergeKey when
// given), else atomic.
func listRelationship(comments []string, tag string) (schema.ElementRelationship, []string) {
	if v, ok := marker(comments, "listType"); ok {
		switch v {
		case "set":
			return schema.Associative, nil
		case "map":
			return schema.Associative, markers(comments, "listMapKey")
		}
		return schema.Atomic, nil
	}
	strategy, ok := reflect.StructTag(tag).Lookup("patchStrategy")
	if !ok {
		strategy, ok = marker(comments, "patchStrategy")
	}
	if ok && (strategy == "merge" || strategy == "merge,retainKeys") {
		key, ok := reflect.StructTag(tag).Lookup("patchMergeKey")
		if !ok {
			key, ok = marker(comments, "patchMergeKey")
		}
		if ok && key != "" {
			return schema.Associative, []string{key}
		}
		return schema.Associative, nil
	}
	return schema.Atomic, nil
}

// marker returns the value of the last "+name=value" comment line.
func marker(comments []string, name string) (string, bool) {
	all := markers(comments, name)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1], true
}

func markers(comments []string, name string) []string {
	var out []string
	for _, l := range comments {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "+"+name+"="); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}
