package model

import "go/token"

// WebhookRule is a "+kubebuilder:webhook" marker: one webhook of a
// MutatingWebhookConfiguration or ValidatingWebhookConfiguration, with
// controller-gen v0.23's arguments as written (their defaults and
// spellings are the webhook generator's to apply).
type WebhookRule struct {
	Mutating                                 bool
	FailurePolicy, MatchPolicy, SideEffects  string
	TimeoutSeconds                           int
	Groups, Resources, Verbs, Versions       []string
	Name                                     string
	ServiceName, ServiceNamespace, Path      string
	ServicePort                              *int32
	WebhookVersions, AdmissionReviewVersions []string
	ReinvocationPolicy, URL, Patch           string
	// Pos is the marker's position.
	Pos token.Position
}

// WebhookConfiguration is a "+kubebuilder:webhookconfiguration" marker:
// the name of the mutating or the validating configuration.
type WebhookConfiguration struct {
	Mutating bool
	Name     string
	Pos      token.Position
}
