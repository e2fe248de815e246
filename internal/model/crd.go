package model

import "encoding/json"

// CRD is one CustomResourceDefinition: a kind and every version of it in
// its group. Field names and JSON tags are apiextensions.k8s.io/v1's, so
// that the crd generator writes it by marshalling it.
type CRD struct {
	// Path is the file it is written to: <CRDDir>/<group>_<plural>.yaml.
	Path string `json:"-"`

	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   CRDMetadata `json:"metadata"`
	Spec       CRDSpec     `json:"spec"`
}

type CRDMetadata struct {
	Name        string            `json:"name"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

type CRDSpec struct {
	Group    string       `json:"group"`
	Names    CRDNames     `json:"names"`
	Scope    string       `json:"scope"`
	Versions []CRDVersion `json:"versions"`
}

type CRDNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

type CRDVersion struct {
	Name                     string            `json:"name"`
	Served                   bool              `json:"served"`
	Storage                  bool              `json:"storage"`
	Deprecated               bool              `json:"deprecated,omitempty"`
	DeprecationWarning       *string           `json:"deprecationWarning,omitempty"`
	Schema                   *CRDValidation    `json:"schema,omitempty"`
	Subresources             *Subresources     `json:"subresources,omitempty"`
	AdditionalPrinterColumns []PrinterColumn   `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField `json:"selectableFields,omitempty"`
}

type CRDValidation struct {
	OpenAPIV3Schema *Schema `json:"openAPIV3Schema,omitempty"`
}

type Subresources struct {
	Status *struct{}         `json:"status,omitempty"`
	Scale  *ScaleSubresource `json:"scale,omitempty"`
}

type ScaleSubresource struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

type PrinterColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// Schema is an OpenAPI v3 schema as a CRD holds it, apiextensions.k8s.io/v1
// JSONSchemaProps with the fields ctrlgen produces. A schema is shared
// (between the uses of a type, the CRDs' versions) once built: never
// change one, make a new one.
type Schema struct {
	// Ref names the Go type the schema stands for until it is resolved;
	// never marshalled.
	Ref *TypeRef `json:"-"`

	Description      string             `json:"description,omitempty"`
	Type             string             `json:"type,omitempty"`
	Format           string             `json:"format,omitempty"`
	Title            string             `json:"title,omitempty"`
	Default          json.RawMessage    `json:"default,omitempty"`
	Maximum          *float64           `json:"maximum,omitempty"`
	ExclusiveMaximum bool               `json:"exclusiveMaximum,omitempty"`
	Minimum          *float64           `json:"minimum,omitempty"`
	ExclusiveMinimum bool               `json:"exclusiveMinimum,omitempty"`
	MaxLength        *int64             `json:"maxLength,omitempty"`
	MinLength        *int64             `json:"minLength,omitempty"`
	Pattern          string             `json:"pattern,omitempty"`
	MaxItems         *int64             `json:"maxItems,omitempty"`
	MinItems         *int64             `json:"minItems,omitempty"`
	UniqueItems      bool               `json:"uniqueItems,omitempty"`
	MultipleOf       *float64           `json:"multipleOf,omitempty"`
	Enum             []json.RawMessage  `json:"enum,omitempty"`
	MaxProperties    *int64             `json:"maxProperties,omitempty"`
	MinProperties    *int64             `json:"minProperties,omitempty"`
	Required         []string           `json:"required,omitempty"`
	Items            *Schema            `json:"items,omitempty"`
	AllOf            []*Schema          `json:"allOf,omitempty"`
	AnyOf            []*Schema          `json:"anyOf,omitempty"`
	Properties       map[string]*Schema `json:"properties,omitempty"`
	// AdditionalProperties is the schema of a map's values.
	AdditionalProperties *Schema         `json:"additionalProperties,omitempty"`
	ExternalDocs         *ExternalDocs   `json:"externalDocs,omitempty"`
	Example              json.RawMessage `json:"example,omitempty"`
	Nullable             bool            `json:"nullable,omitempty"`

	XPreserveUnknownFields *bool            `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool             `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool             `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string         `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string          `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string          `json:"x-kubernetes-map-type,omitempty"`
	XValidations           []ValidationRule `json:"x-kubernetes-validations,omitempty"`
}

type ExternalDocs struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}
