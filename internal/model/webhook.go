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

// KindWebhook is what "+ctrlgen:webhook:" gives a kind: a package of
// wiring that serves its admission webhooks through runtime/manager, and
// the rules kubebuilder's "create webhook" would write for them.
type KindWebhook struct {
	Defaulting, Validation bool
	Pos                    token.Position
	// Dir, Pkg and PkgName are the kind's webhook package,
	// <WebhooksDir>/<lower-case kind>.
	Dir, Pkg, PkgName string
	// DefaultingPath and ValidationPath are kubebuilder's paths:
	// /mutate-<group, dots as dashes>-<version>-<lower-case kind>, and
	// /validate-….
	DefaultingPath, ValidationPath string
	// DefaultingName and ValidationName name the webhooks, as
	// kubebuilder v4: m<lower-case kind>-<version>.kb.io, v….
	DefaultingName, ValidationName string
	// HasDefaulter and HasValidator are set when the package's
	// hand-written files declare the type Defaulter or Validator: the
	// user file is written only while neither is.
	HasDefaulter, HasValidator bool
}

// WritesUserFile reports whether the user's file is (re)written.
func (w *KindWebhook) WritesUserFile() bool { return !w.HasDefaulter && !w.HasValidator }

// WebhookKinds are the kinds with "+ctrlgen:webhook:", in group, version
// and kind order.
func (p *Project) WebhookKinds() []*Kind {
	var out []*Kind
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			out = append(out, v.kinds(func(k *Kind) bool { return k.Webhook != nil })...)
		}
	}
	return out
}
