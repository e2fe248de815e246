package crd

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/yamlemit"
)

// The tree of a CRD is the value json.Marshal gives it, read back as
// sigs.k8s.io/yaml reads it for YAML: the fields its JSON tags keep, the
// numbers as integers when they are, strings as JSON leaves them.

type object struct{ pairs []yamlemit.Pair }

func (o *object) set(key string, v *yamlemit.Node) {
	o.pairs = append(o.pairs, yamlemit.Pair{Key: str(key), Value: v})
}

func (o *object) str(key, v string, omitEmpty bool) {
	if v != "" || !omitEmpty {
		o.set(key, str(v))
	}
}

func (o *object) strs(key string, v []string) {
	if len(v) > 0 {
		items := make([]*yamlemit.Node, len(v))
		for i, s := range v {
			items[i] = str(s)
		}
		o.set(key, yamlemit.Sequence(items))
	}
}

func (o *object) strMap(key string, m map[string]string) {
	if len(m) > 0 {
		var kv object
		for k, v := range m {
			kv.set(k, str(v))
		}
		o.set(key, kv.node())
	}
}

func (o *object) flag(key string, v bool) {
	if v {
		o.set(key, yamlemit.Bool(true))
	}
}

func (o *object) boolPtr(key string, v *bool) {
	if v != nil {
		o.set(key, yamlemit.Bool(*v))
	}
}

func (o *object) strPtr(key string, v *string) {
	if v != nil {
		o.set(key, str(*v))
	}
}

func (o *object) int64Ptr(key string, v *int64) {
	if v != nil {
		o.set(key, yamlemit.Int(*v))
	}
}

func (o *object) floatPtr(key string, v *float64) error {
	if v == nil {
		return nil
	}
	n, err := number(*v)
	if err == nil {
		o.set(key, n)
	}
	return err
}

func (o *object) raw(key string, v json.RawMessage) error {
	if len(v) == 0 {
		return nil
	}
	n, err := rawNode(v)
	if err == nil {
		o.set(key, n)
	}
	return err
}

func (o *object) node() *yamlemit.Node { return yamlemit.Mapping(o.pairs) }

// str is a JSON string read back: invalid UTF-8 bytes are U+FFFD, as
// json.Marshal writes them, which yamlemit.String does.
func str(s string) *yamlemit.Node { return yamlemit.String(s) }

// number is a float64 as json.Marshal writes it and YAML reads it back:
// an integer when its JSON is one. NaN and ±Inf are not JSON: an error,
// as from json.Marshal.
func number(f float64) (*yamlemit.Node, error) {
	j, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return jsonNumber(json.Number(j)), nil
}

func jsonNumber(n json.Number) *yamlemit.Node {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return yamlemit.Int(i)
	}
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		return yamlemit.Float(f)
	}
	return str(string(n))
}

// rawNode is the tree of a JSON value.
func rawNode(raw json.RawMessage) (*yamlemit.Node, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return valueNode(v), nil
}

func valueNode(v any) *yamlemit.Node {
	switch v := v.(type) {
	case map[string]any:
		var o object
		for k, e := range v {
			o.set(k, valueNode(e))
		}
		return o.node()
	case []any:
		items := make([]*yamlemit.Node, len(v))
		for i, e := range v {
			items[i] = valueNode(e)
		}
		return yamlemit.Sequence(items)
	case json.Number:
		return jsonNumber(v)
	case string:
		return str(v)
	case bool:
		return yamlemit.Bool(v)
	}
	return yamlemit.Null()
}

func crdNode(c *model.CRD) (*yamlemit.Node, error) {
	var o, meta, spec, names object
	o.str("apiVersion", c.APIVersion, false)
	o.str("kind", c.Kind, false)
	meta.str("name", c.Metadata.Name, false)
	meta.strMap("annotations", c.Metadata.Annotations)
	meta.strMap("labels", c.Metadata.Labels)
	o.set("metadata", meta.node())
	spec.str("group", c.Spec.Group, false)
	names.str("plural", c.Spec.Names.Plural, false)
	names.str("singular", c.Spec.Names.Singular, true)
	names.strs("shortNames", c.Spec.Names.ShortNames)
	names.str("kind", c.Spec.Names.Kind, false)
	names.str("listKind", c.Spec.Names.ListKind, true)
	names.strs("categories", c.Spec.Names.Categories)
	spec.set("names", names.node())
	spec.str("scope", c.Spec.Scope, false)
	if c.Spec.Versions == nil {
		spec.set("versions", yamlemit.Null())
	} else {
		versions := make([]*yamlemit.Node, len(c.Spec.Versions))
		for i := range c.Spec.Versions {
			n, err := versionNode(&c.Spec.Versions[i])
			if err != nil {
				return nil, err
			}
			versions[i] = n
		}
		spec.set("versions", yamlemit.Sequence(versions))
	}
	o.set("spec", spec.node())
	return o.node(), nil
}

func versionNode(v *model.CRDVersion) (*yamlemit.Node, error) {
	var o object
	o.str("name", v.Name, false)
	o.set("served", yamlemit.Bool(v.Served))
	o.set("storage", yamlemit.Bool(v.Storage))
	o.flag("deprecated", v.Deprecated)
	o.strPtr("deprecationWarning", v.DeprecationWarning)
	if v.Schema != nil {
		var val object
		if v.Schema.OpenAPIV3Schema != nil {
			n, err := schemaNode(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return nil, err
			}
			val.set("openAPIV3Schema", n)
		}
		o.set("schema", val.node())
	}
	if s := v.Subresources; s != nil {
		var sub object
		if s.Status != nil {
			sub.set("status", yamlemit.Mapping(nil))
		}
		if sc := s.Scale; sc != nil {
			var scale object
			scale.str("specReplicasPath", sc.SpecReplicasPath, false)
			scale.str("statusReplicasPath", sc.StatusReplicasPath, false)
			scale.strPtr("labelSelectorPath", sc.LabelSelectorPath)
			sub.set("scale", scale.node())
		}
		o.set("subresources", sub.node())
	}
	if len(v.AdditionalPrinterColumns) > 0 {
		cols := make([]*yamlemit.Node, len(v.AdditionalPrinterColumns))
		for i, c := range v.AdditionalPrinterColumns {
			var col object
			col.str("name", c.Name, false)
			col.str("type", c.Type, false)
			col.str("format", c.Format, true)
			col.str("description", c.Description, true)
			if c.Priority != 0 {
				col.set("priority", yamlemit.Int(int64(c.Priority)))
			}
			col.str("jsonPath", c.JSONPath, false)
			cols[i] = col.node()
		}
		o.set("additionalPrinterColumns", yamlemit.Sequence(cols))
	}
	if len(v.SelectableFields) > 0 {
		fields := make([]*yamlemit.Node, len(v.SelectableFields))
		for i, f := range v.SelectableFields {
			var field object
			field.str("jsonPath", f.JSONPath, false)
			fields[i] = field.node()
		}
		o.set("selectableFields", yamlemit.Sequence(fields))
	}
	return o.node(), nil
}

func schemaNode(s *model.Schema) (*yamlemit.Node, error) {
	if s == nil {
		return yamlemit.Null(), nil
	}
	var o object
	o.str("description", s.Description, true)
	o.str("type", s.Type, true)
	o.str("format", s.Format, true)
	o.str("title", s.Title, true)
	if err := o.raw("default", s.Default); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"maximum", s.Maximum}, {"minimum", s.Minimum}, {"multipleOf", s.MultipleOf}} {
		if err := o.floatPtr(f.key, f.v); err != nil {
			return nil, err
		}
	}
	o.flag("exclusiveMaximum", s.ExclusiveMaximum)
	o.flag("exclusiveMinimum", s.ExclusiveMinimum)
	o.int64Ptr("maxLength", s.MaxLength)
	o.int64Ptr("minLength", s.MinLength)
	o.str("pattern", s.Pattern, true)
	o.int64Ptr("maxItems", s.MaxItems)
	o.int64Ptr("minItems", s.MinItems)
	o.flag("uniqueItems", s.UniqueItems)
	if len(s.Enum) > 0 {
		items := make([]*yamlemit.Node, len(s.Enum))
		for i, e := range s.Enum {
			n, err := rawNode(e)
			if err != nil {
				return nil, err
			}
			items[i] = n
		}
		o.set("enum", yamlemit.Sequence(items))
	}
	o.int64Ptr("maxProperties", s.MaxProperties)
	o.int64Ptr("minProperties", s.MinProperties)
	o.strs("required", s.Required)
	for _, sub := range []struct {
		key    string
		schema *model.Schema
	}{{"items", s.Items}, {"additionalProperties", s.AdditionalProperties}} {
		if sub.schema != nil {
			n, err := schemaNode(sub.schema)
			if err != nil {
				return nil, err
			}
			o.set(sub.key, n)
		}
	}
	for _, list := range []struct {
		key     string
		schemas []*model.Schema
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}} {
		if len(list.schemas) > 0 {
			items := make([]*yamlemit.Node, len(list.schemas))
			for i, c := range list.schemas {
				n, err := schemaNode(c)
				if err != nil {
					return nil, err
				}
				items[i] = n
			}
			o.set(list.key, yamlemit.Sequence(items))
		}
	}
	if len(s.Properties) > 0 {
		var props object
		for k, p := range s.Properties {
			n, err := schemaNode(p)
			if err != nil {
				return nil, err
			}
			props.set(k, n)
		}
		o.set("properties", props.node())
	}
	if d := s.ExternalDocs; d != nil {
		var docs object
		docs.str("description", d.Description, true)
		docs.str("url", d.URL, true)
		o.set("externalDocs", docs.node())
	}
	if err := o.raw("example", s.Example); err != nil {
		return nil, err
	}
	o.flag("nullable", s.Nullable)
	o.boolPtr("x-kubernetes-preserve-unknown-fields", s.XPreserveUnknownFields)
	o.flag("x-kubernetes-embedded-resource", s.XEmbeddedResource)
	o.flag("x-kubernetes-int-or-string", s.XIntOrString)
	o.strs("x-kubernetes-list-map-keys", s.XListMapKeys)
	o.strPtr("x-kubernetes-list-type", s.XListType)
	o.strPtr("x-kubernetes-map-type", s.XMapType)
	if len(s.XValidations) > 0 {
		rules := make([]*yamlemit.Node, len(s.XValidations))
		for i, r := range s.XValidations {
			var rule object
			rule.str("rule", r.Rule, false)
			rule.str("message", r.Message, true)
			rule.str("messageExpression", r.MessageExpression, true)
			rule.strPtr("reason", r.Reason)
			rule.str("fieldPath", r.FieldPath, true)
			rule.boolPtr("optionalOldSelf", r.OptionalOldSelf)
			rules[i] = rule.node()
		}
		o.set("x-kubernetes-validations", yamlemit.Sequence(rules))
	}
	return o.node(), nil
}
