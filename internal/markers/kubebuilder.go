package markers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The markers the crd generator reads, with controller-tools v0.23's
// names, targets and value syntax (see values.go). A validation marker
// applies to a field, to a type (and so to every field of that type), and
// as "+kubebuilder:validation:items:<Name>" to the items of an array.

// ValidationMarker groups a validation marker's four definitions.
type ValidationMarker[T any] struct {
	Field, Type, ItemsField, ItemsType *Definition[T]
}

func defineValidation[T any](name string, parse Parser[T], syntax, help string) ValidationMarker[T] {
	define := Define[T]
	if strings.HasPrefix(syntax, ":") {
		define = DefineArgs[T]
	}
	full := "kubebuilder:validation:" + name
	items := "kubebuilder:validation:items:" + name
	return ValidationMarker[T]{
		Field:      define(full, TargetField, parse, "+"+full+syntax, help),
		Type:       define(full, TargetType, parse, "+"+full+syntax, help),
		ItemsField: define(items, TargetField, parse, "+"+items+syntax, "for array items: "+help),
		ItemsType:  define(items, TargetType, parse, "+"+items+syntax, "for array items: "+help),
	}
}

func (v ValidationMarker[T]) repeated() ValidationMarker[T] {
	v.Field.Repeated()
	v.Type.Repeated()
	v.ItemsField.Repeated()
	v.ItemsType.Repeated()
	return v
}

func (v ValidationMarker[T]) defs() []Def { return []Def{v.Field, v.Type, v.ItemsField, v.ItemsType} }

// XValidationRule is a "+kubebuilder:validation:XValidation" value, a CEL rule.
type XValidationRule struct {
	Rule, Message, MessageExpression, Reason, FieldPath string
	OptionalOldSelf                                     *bool
}

// PrintColumn is a "+kubebuilder:printcolumn" value.
type PrintColumn struct {
	Name, Type, JSONPath, Description, Format string
	Priority                                  int32
}

// ScaleSpec is a "+kubebuilder:subresource:scale" value.
type ScaleSpec struct {
	SpecPath, StatusPath string
	SelectorPath         *string
}

// MetadataSpec is a "+kubebuilder:metadata" value: key=value strings.
type MetadataSpec struct {
	Annotations, Labels []string
}

// ExternalDocs is a "+kubebuilder:externalDocs" value.
type ExternalDocs struct {
	URL, Description string
}

var (
	Maximum          = defineValidation("Maximum", float(false), "=<number>", "the largest value allowed")
	Minimum          = defineValidation("Minimum", float(false), "=<number>", "the smallest value allowed")
	ExclusiveMaximum = defineValidation("ExclusiveMaximum", BoolOrFlag, "=true|false",
		"the Maximum itself is not allowed")
	ExclusiveMinimum = defineValidation("ExclusiveMinimum", BoolOrFlag, "=true|false",
		"the Minimum itself is not allowed")
	MultipleOf    = defineValidation("MultipleOf", float(false), "=<number>", "the value must be a multiple of this")
	MinProperties = defineValidation("MinProperties", integer(false), "=<int>", "the fewest properties an object may have")
	MaxProperties = defineValidation("MaxProperties", integer(false), "=<int>", "the most properties an object may have")
	MaxLength     = defineValidation("MaxLength", integer(false), "=<int>", "the longest a string may be")
	MinLength     = defineValidation("MinLength", integer(false), "=<int>", "the shortest a string may be")
	Pattern       = defineValidation("Pattern", str, "=<regular expression>",
		"a regular expression strings must match; quote it with ` when it holds , ; or }")
	MaxItems               = defineValidation("MaxItems", integer(false), "=<int>", "the most items an array may have")
	MinItems               = defineValidation("MinItems", integer(false), "=<int>", "the fewest items an array may have")
	UniqueItems            = defineValidation("UniqueItems", BoolOrFlag, "=true|false", "the items of an array must differ")
	Enum                   = defineValidation("Enum", anySlice, "=<value>;<value>... or ={<value>,...}", "the values allowed")
	Format                 = defineValidation("Format", str, "=<format>", "the OpenAPI format, e.g. date-time, uri, int64")
	Type                   = defineValidation("Type", str, "=<type>", "override the schema type: string, integer, number, boolean, object or array")
	XPreserveUnknownFields = defineValidation("XPreserveUnknownFields", Flag, "",
		"keep fields the schema does not name (x-kubernetes-preserve-unknown-fields)")
	XEmbeddedResource = defineValidation("XEmbeddedResource", Flag, "",
		"the value is a Kubernetes object with apiVersion, kind and metadata (x-kubernetes-embedded-resource)")
	XIntOrString = defineValidation("XIntOrString", Flag, "", "the value is an integer or a string (x-kubernetes-int-or-string)")
	XValidation  = defineValidation("XValidation", xValidation,
		`:rule="<CEL>"[,message="..."][,messageExpression="..."][,reason=FieldValueInvalid|FieldValueForbidden|FieldValueRequired|FieldValueDuplicate][,fieldPath=...][,optionalOldSelf=true]`,
		"a CEL validation rule (x-kubernetes-validations)").repeated()

	ValidationRequired = Define("kubebuilder:validation:Required", TargetField|TargetPackage, Flag,
		"+kubebuilder:validation:Required", "the field is required (on a package: every field is, unless optional)")
	ValidationOptional = Define("kubebuilder:validation:Optional", TargetField|TargetPackage, Flag,
		"+kubebuilder:validation:Optional", "the field is optional (on a package: every field is, unless required)")
	Required    = Define("required", TargetField, Flag, "+required", "the field is required")
	Optional    = Define("optional", TargetField, Flag, "+optional", "the field is optional")
	K8sRequired = Define("k8s:required", TargetField, Flag, "+k8s:required",
		"the field is required and may not be empty (minLength, minItems or minProperties 1)")
	K8sOptional = Define("k8s:optional", TargetField, Flag, "+k8s:optional", "the field is optional")
	Nullable    = Define("nullable", TargetField, Flag, "+nullable", "the field may be null")
	Default     = Define("kubebuilder:default", TargetField, anyValue, "+kubebuilder:default=<value>",
		"the field's default value, e.g. =3, =\"text\", ={a: b} or ={x,y}")
	K8sDefault = Define("default", TargetField, jsonValue, "+default=<JSON value>",
		"the field's default value as JSON, as k8s.io/api writes it; ref(...) is ignored")
	Example = Define("kubebuilder:example", TargetField, anyValue, "+kubebuilder:example=<value>",
		"an example value")
	EmbeddedResource = Define("kubebuilder:validation:EmbeddedResource", TargetField, Flag,
		"+kubebuilder:validation:EmbeddedResource", "the field holds a Kubernetes object (x-kubernetes-embedded-resource)")
	Schemaless = Define("kubebuilder:validation:Schemaless", TargetField, Flag,
		"+kubebuilder:validation:Schemaless", "no schema for the field")
	Immutable = Define("k8s:immutable", TargetField, Flag, "+k8s:immutable",
		"the field may not change once set (a CEL rule)")
	K8sMaxItems = Define("k8s:maxItems", TargetField, integer(true), "+k8s:maxItems=<int>", "the most items an array may have")
	K8sMinimum  = Define("k8s:minimum", TargetField, float(true), "+k8s:minimum=<number>", "the smallest value allowed")
	K8sMaximum  = Define("k8s:maximum", TargetField, float(true), "+k8s:maximum=<number>", "the largest value allowed")

	AtMostOneOf = Define("kubebuilder:validation:AtMostOneOf", TargetType, fieldNames,
		"+kubebuilder:validation:AtMostOneOf=<field>;<field>...", "at most one of these fields may be set").Repeated()
	ExactlyOneOf = Define("kubebuilder:validation:ExactlyOneOf", TargetType, fieldNames,
		"+kubebuilder:validation:ExactlyOneOf=<field>;<field>...", "exactly one of these fields must be set").Repeated()
	AtLeastOneOf = Define("kubebuilder:validation:AtLeastOneOf", TargetType, fieldNames,
		"+kubebuilder:validation:AtLeastOneOf=<field>;<field>...", "at least one of these fields must be set").Repeated()
	K8sEnum = Define("k8s:enum", TargetType, Flag, "+k8s:enum",
		"a string type whose constants are its only values")

	PreserveUnknownFields = Define("kubebuilder:pruning:PreserveUnknownFields", TargetField|TargetType, Flag,
		"+kubebuilder:pruning:PreserveUnknownFields", "keep fields the schema does not name")
	Title    = Define("kubebuilder:title", TargetField|TargetType, anyValue, "+kubebuilder:title=<text>", "the schema's title")
	ListType = Define("listType", TargetField|TargetType, str, "+listType=atomic|set|map",
		"how server-side apply merges the list")
	ListMapKey = Define("listMapKey", TargetField|TargetType, str, "+listMapKey=<field>",
		"a key field of a listType=map list").Repeated()
	MapType = Define("mapType", TargetField|TargetType, str, "+mapType=atomic|granular",
		"how server-side apply merges the map")
	StructType = Define("structType", TargetField|TargetType, str, "+structType=atomic|granular",
		"how server-side apply merges the struct")
	K8sListType = Define("k8s:listType", TargetField|TargetType, str, "+k8s:listType=atomic|set|map",
		"as +listType")
	K8sListMapKey = Define("k8s:listMapKey", TargetField|TargetType, str, "+k8s:listMapKey=<field>",
		"as +listMapKey").Repeated()
	ExternalDocsMarker = DefineArgs("kubebuilder:externalDocs", TargetField|TargetType, externalDocs,
		`+kubebuilder:externalDocs:url=<url>[,description="..."]`, "a link to more documentation")

	ScaleSubresource = DefineArgs("kubebuilder:subresource:scale", TargetType, scale,
		"+kubebuilder:subresource:scale:specpath=<path>,statuspath=<path>[,selectorpath=<path>]",
		"the resource has a scale subresource")
	PrintColumnMarker = DefineArgs("kubebuilder:printcolumn", TargetType, printColumn,
		`+kubebuilder:printcolumn:name=<name>,type=<type>,JSONPath=<path>[,description=...][,format=...][,priority=<int>]`,
		"a column kubectl get prints").Repeated()
	StorageVersion = Define("kubebuilder:storageversion", TargetType, Flag, "+kubebuilder:storageversion",
		"this version is the one stored")
	SkipVersion = Define("kubebuilder:skipversion", TargetType, Flag, "+kubebuilder:skipversion",
		"leave this version out of the CRD")
	UnservedVersion = Define("kubebuilder:unservedversion", TargetType, Flag, "+kubebuilder:unservedversion",
		"this version is not served")
	DeprecatedVersion = DefineArgs("kubebuilder:deprecatedversion", TargetType, deprecatedVersion,
		`+kubebuilder:deprecatedversion[:warning="..."]`, "this version is deprecated")
	Metadata = DefineArgs("kubebuilder:metadata", TargetType, metadata,
		`+kubebuilder:metadata:annotations="<key>=<value>";...,labels="<key>=<value>";...`,
		"annotations and labels of the CRD").Repeated()
	SelectableField = DefineArgs("kubebuilder:selectablefield", TargetType, selectableField,
		"+kubebuilder:selectablefield:JSONPath=<path>", "a field that field selectors may use").Repeated()

	VersionName = Define("versionName", TargetPackage, str, "+versionName=<version>",
		"the package's API version, when it is not the package name")
	Skip = Define("kubebuilder:skip", TargetPackage, Flag, "+kubebuilder:skip",
		"the package is not an API version: no CRD from it")

	// RBAC is read wherever it is in the API packages and the controller
	// packages, as controller-gen reads it in any package: see the rbac
	// generator.
	RBAC = DefineArgs("kubebuilder:rbac", TargetPackage|TargetType|TargetField, rbacRule,
		`+kubebuilder:rbac:groups=<group>;...,resources=<resource>;...[,resourceNames=<name>;...],verbs=<verb>;...[,namespace=<namespace>][,roleName=<name>] or +kubebuilder:rbac:urls=<path>;...,verbs=<verb>;...`,
		"a permission the manager needs beyond those ctrlgen derives from the controllers (writes Reconcile makes itself); with namespace=, in a Role of that namespace").Repeated().Anywhere()

	// Webhooks, read with controller-gen's syntax wherever they are in a
	// package, as kubebuilder scaffolds them above a webhook's type.
	// ctrlgen checks them but writes no webhook configuration from them.
	Webhook = DefineArgs("kubebuilder:webhook", TargetPackage, webhookRule,
		"+kubebuilder:webhook:path=<path>|url=<url>,mutating=true|false,failurePolicy=fail|ignore,groups=<group>;...,resources=<resource>;...,verbs=<verb>;...,versions=<version>;...,name=<name>,admissionReviewVersions=<version>;...[,sideEffects=...][,matchPolicy=...][,timeoutSeconds=<n>][,serviceName=...][,serviceNamespace=...][,servicePort=<n>][,webhookVersions=v1][,reinvocationPolicy=...][,patch=<json>]",
		"an admission webhook, for controller-gen's webhook generator").Repeated().Anywhere()
	WebhookConfiguration = DefineArgs("kubebuilder:webhookconfiguration", TargetPackage, webhookConfiguration,
		"+kubebuilder:webhookconfiguration:mutating=true|false[,name=<name>]",
		"the name of the webhook configuration object, for controller-gen's webhook generator").Repeated().Anywhere()

	// Markers of controller-gen's other generators, which ctrlgen has
	// not: known, so that they are not taken for typos, and unused.
	ApplyConfigurationGenerate = Define("kubebuilder:ac:generate", TargetPackage|TargetType, BoolOrFlag,
		"+kubebuilder:ac:generate=true|false", "for controller-gen's applyconfiguration generator")
	ApplyConfigurationOutput = Define("kubebuilder:ac:output:package", TargetPackage, str,
		"+kubebuilder:ac:output:package=<path>", "for controller-gen's applyconfiguration generator")
)

// crdDefs are the definitions above, for the registry.
func crdDefs() []Def {
	var defs []Def
	for _, v := range [][]Def{
		Maximum.defs(), Minimum.defs(), ExclusiveMaximum.defs(), ExclusiveMinimum.defs(), MultipleOf.defs(),
		MinProperties.defs(), MaxProperties.defs(), MaxLength.defs(), MinLength.defs(), Pattern.defs(),
		MaxItems.defs(), MinItems.defs(), UniqueItems.defs(), Enum.defs(), Format.defs(), Type.defs(),
		XPreserveUnknownFields.defs(), XEmbeddedResource.defs(), XIntOrString.defs(), XValidation.defs(),
	} {
		defs = append(defs, v...)
	}
	return append(defs,
		ValidationRequired, ValidationOptional, Required, Optional, K8sRequired, K8sOptional, Nullable,
		Default, K8sDefault, Example, EmbeddedResource, Schemaless, Immutable, K8sMaxItems, K8sMinimum, K8sMaximum,
		AtMostOneOf, ExactlyOneOf, AtLeastOneOf, K8sEnum,
		PreserveUnknownFields, Title, ListType, ListMapKey, MapType, StructType, K8sListType, K8sListMapKey, ExternalDocsMarker,
		ScaleSubresource, PrintColumnMarker, StorageVersion, SkipVersion, UnservedVersion, DeprecatedVersion, Metadata, SelectableField,
		VersionName, Skip, RBAC, Webhook, WebhookConfiguration, ApplyConfigurationGenerate, ApplyConfigurationOutput,
	)
}

// value runs read on the text after "=" and fails on anything left over.
func value[T any](arg string, read func(v *valueScanner) T) (T, error) {
	rest, ok := strings.CutPrefix(arg, "=")
	if !ok {
		var zero T
		return zero, errors.New("needs a value after =")
	}
	v := newValueScanner(rest)
	out := read(v)
	return out, v.end()
}

func str(arg string) (string, error) {
	return value(arg, func(v *valueScanner) string { return v.str(false) })
}

func anyValue(arg string) (any, error) {
	return value(arg, func(v *valueScanner) any { return v.anyValue(false) })
}

func anySlice(arg string) ([]any, error) {
	return value(arg, func(v *valueScanner) []any { return v.slice(func() any { return v.anyValue(true) }) })
}

func fieldNames(arg string) ([]string, error) {
	names, err := value(arg, func(v *valueScanner) []string { return v.strings() })
	for _, n := range names {
		if strings.Contains(n, ".") {
			return nil, fmt.Errorf("cannot reference nested field %s", n)
		}
	}
	return names, err
}

// numberText is the text after "="; for a +k8s: marker without a
// "# comment" after the value, as controller-tools strips it.
func numberText(arg string, k8s bool) (string, error) {
	rest, ok := strings.CutPrefix(arg, "=")
	if !ok {
		return "", errors.New("needs a value after =")
	}
	if k8s {
		if i := strings.IndexByte(rest, '#'); i >= 0 {
			rest = rest[:i]
		}
	}
	return strings.TrimSpace(rest), nil
}

func float(k8s bool) Parser[float64] {
	return func(arg string) (float64, error) {
		text, err := numberText(arg, k8s)
		if err != nil {
			return 0, err
		}
		return strconv.ParseFloat(text, 64)
	}
}

func integer(k8s bool) Parser[int] {
	return func(arg string) (int, error) {
		if k8s {
			text, err := numberText(arg, true)
			if err != nil {
				return 0, err
			}
			return strconv.Atoi(text)
		}
		return value(arg, func(v *valueScanner) int { return v.integer() })
	}
}

func jsonValue(arg string) (any, error) {
	rest, ok := strings.CutPrefix(arg, "=")
	if !ok {
		return nil, errors.New("needs a value after =")
	}
	if strings.HasPrefix(strings.TrimSpace(rest), "ref(") {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal([]byte(rest), &v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return v, nil
}

// args reads ":key=value,..." with read called per key; required keys
// must all be given.
func args(arg string, required []string, read func(key string, v *valueScanner) error) error {
	rest, ok := strings.CutPrefix(arg, ":")
	if !ok {
		if len(required) == 0 && arg == "" {
			return nil
		}
		return errors.New("needs arguments after ':'")
	}
	v := newValueScanner(rest)
	seen := map[string]bool{}
	if err := v.fields(func(key string) error {
		seen[key] = true
		return read(key, v)
	}); err != nil {
		return err
	}
	for _, k := range required {
		if !seen[k] {
			return fmt.Errorf("missing argument %s", k)
		}
	}
	return nil
}

func unknownArg(key string, known ...string) error {
	msg := fmt.Sprintf("unknown argument %q (want %s)", key, strings.Join(known, ", "))
	if c := Closest(key, known); c != "" {
		msg += fmt.Sprintf("; did you mean %s?", c)
	}
	return errors.New(msg)
}

func xValidation(arg string) (XValidationRule, error) {
	var r XValidationRule
	err := args(arg, []string{"rule"}, func(key string, v *valueScanner) error {
		switch key {
		case "rule":
			r.Rule = v.str(false)
		case "message":
			r.Message = v.str(false)
		case "messageExpression":
			r.MessageExpression = v.str(false)
		case "reason":
			r.Reason = v.str(false)
			if err := member(r.Reason, []string{"FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden", "FieldValueDuplicate"}); err != nil {
				return fmt.Errorf("reason: %w", err)
			}
		case "fieldPath":
			r.FieldPath = v.str(false)
		case "optionalOldSelf":
			b := v.boolean()
			r.OptionalOldSelf = &b
		default:
			return unknownArg(key, "rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")
		}
		return nil
	})
	return r, err
}

func printColumn(arg string) (PrintColumn, error) {
	var c PrintColumn
	err := args(arg, []string{"name", "type", "JSONPath"}, func(key string, v *valueScanner) error {
		switch key {
		case "name":
			c.Name = v.str(false)
		case "type":
			c.Type = v.str(false)
		case "JSONPath":
			c.JSONPath = v.str(false)
		case "description":
			c.Description = v.str(false)
		case "format":
			c.Format = v.str(false)
		case "priority":
			c.Priority = int32(v.integer())
		default:
			return unknownArg(key, "name", "type", "JSONPath", "description", "format", "priority")
		}
		return nil
	})
	return c, err
}

func scale(arg string) (ScaleSpec, error) {
	var s ScaleSpec
	err := args(arg, []string{"specpath", "statuspath"}, func(key string, v *valueScanner) error {
		switch key {
		case "specpath":
			s.SpecPath = v.str(false)
		case "statuspath":
			s.StatusPath = v.str(false)
		case "selectorpath":
			p := v.str(false)
			s.SelectorPath = &p
		default:
			return unknownArg(key, "specpath", "statuspath", "selectorpath")
		}
		return nil
	})
	return s, err
}

func deprecatedVersion(arg string) (*string, error) {
	var warning *string
	err := args(arg, nil, func(key string, v *valueScanner) error {
		if key != "warning" {
			return unknownArg(key, "warning")
		}
		w := v.str(false)
		warning = &w
		return nil
	})
	return warning, err
}

func metadata(arg string) (MetadataSpec, error) {
	var m MetadataSpec
	err := args(arg, nil, func(key string, v *valueScanner) error {
		switch key {
		case "annotations":
			m.Annotations = v.strings()
			for _, a := range m.Annotations {
				if !strings.Contains(a, "=") {
					return fmt.Errorf("annotation %s is not in 'xxx=xxx' format", a)
				}
			}
		case "labels":
			m.Labels = v.strings()
			for _, l := range m.Labels {
				if !strings.Contains(l, "=") {
					return fmt.Errorf("label %s is not in 'xxx=xxx' format", l)
				}
			}
		default:
			return unknownArg(key, "annotations", "labels")
		}
		return nil
	})
	return m, err
}

func selectableField(arg string) (string, error) {
	var path string
	err := args(arg, []string{"JSONPath"}, func(key string, v *valueScanner) error {
		if key != "JSONPath" {
			return unknownArg(key, "JSONPath")
		}
		path = v.str(false)
		return nil
	})
	return path, err
}

func externalDocs(arg string) (ExternalDocs, error) {
	var d ExternalDocs
	err := args(arg, []string{"url"}, func(key string, v *valueScanner) error {
		switch key {
		case "url":
			d.URL = v.str(false)
		case "description":
			d.Description = v.str(false)
		default:
			return unknownArg(key, "url", "description")
		}
		return nil
	})
	return d, err
}
