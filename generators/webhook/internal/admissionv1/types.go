// Package admissionv1 holds the admissionregistration.k8s.io/v1 types the
// webhook manifests are written from: the fields of k8s.io/api's and
// apimachinery's, with their JSON names and patch tags, and nothing else.
// Linking those packages (and apimachinery's strategicpatch) more than
// doubled ctrlgen's binary, a start-up cost every run paid; the webhook
// generator's tests check these against them.
package admissionv1

// TypeMeta is metav1.TypeMeta.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is the part of metav1.ObjectMeta a configuration has.
type ObjectMeta struct {
	Name string `json:"name,omitempty"`
}

// MutatingWebhookConfiguration is admissionregistration/v1's.
type MutatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Webhooks   []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ValidatingWebhookConfiguration is admissionregistration/v1's.
type ValidatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Webhooks   []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// MutatingWebhook is admissionregistration/v1's.
type MutatingWebhook struct {
	Name                    string                  `json:"name"`
	ClientConfig            WebhookClientConfig     `json:"clientConfig"`
	Rules                   []RuleWithOperations    `json:"rules,omitempty"`
	FailurePolicy           *FailurePolicyType      `json:"failurePolicy,omitempty"`
	MatchPolicy             *MatchPolicyType        `json:"matchPolicy,omitempty"`
	NamespaceSelector       *LabelSelector          `json:"namespaceSelector,omitempty"`
	ObjectSelector          *LabelSelector          `json:"objectSelector,omitempty"`
	SideEffects             *SideEffectClass        `json:"sideEffects"`
	TimeoutSeconds          *int32                  `json:"timeoutSeconds,omitempty"`
	AdmissionReviewVersions []string                `json:"admissionReviewVersions"`
	ReinvocationPolicy      *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
	MatchConditions         []MatchCondition        `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ValidatingWebhook is admissionregistration/v1's.
type ValidatingWebhook struct {
	Name                    string               `json:"name"`
	ClientConfig            WebhookClientConfig  `json:"clientConfig"`
	Rules                   []RuleWithOperations `json:"rules,omitempty"`
	FailurePolicy           *FailurePolicyType   `json:"failurePolicy,omitempty"`
	MatchPolicy             *MatchPolicyType     `json:"matchPolicy,omitempty"`
	NamespaceSelector       *LabelSelector       `json:"namespaceSelector,omitempty"`
	ObjectSelector          *LabelSelector       `json:"objectSelector,omitempty"`
	SideEffects             *SideEffectClass     `json:"sideEffects"`
	TimeoutSeconds          *int32               `json:"timeoutSeconds,omitempty"`
	AdmissionReviewVersions []string             `json:"admissionReviewVersions"`
	MatchConditions         []MatchCondition     `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// WebhookClientConfig is admissionregistration/v1's.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference is admissionregistration/v1's.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// RuleWithOperations is admissionregistration/v1's.
type RuleWithOperations struct {
	Operations []OperationType `json:"operations,omitempty"`
	Rule       `json:",inline"`
}

// Rule is admissionregistration/v1's.
type Rule struct {
	APIGroups   []string `json:"apiGroups,omitempty"`
	APIVersions []string `json:"apiVersions,omitempty"`
	Resources   []string `json:"resources,omitempty"`
	Scope       *string  `json:"scope,omitempty"`
}

// MatchCondition is admissionregistration/v1's.
type MatchCondition struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

// LabelSelector is metav1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is metav1.LabelSelectorRequirement.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

type (
	FailurePolicyType      string
	MatchPolicyType        string
	SideEffectClass        string
	ReinvocationPolicyType string
	OperationType          string
)

// The values admissionregistration/v1 names.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"

	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"

	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"

	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"

	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)
