package markers

import (
	"errors"
)

// WebhookRule is a "+kubebuilder:webhook" value, controller-tools v0.23's
// webhook.Config: the arguments with controller-gen's names and value
// syntax. Like controller-gen, ctrlgen reads it wherever it is in a
// package, as kubebuilder scaffolds it above a webhook's Go type.
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
}

var webhookArgs = []string{"mutating", "failurePolicy", "matchPolicy", "sideEffects", "timeoutSeconds",
	"groups", "resources", "verbs", "versions", "name", "serviceName", "serviceNamespace", "path",
	"servicePort", "webhookVersions", "admissionReviewVersions", "reinvocationPolicy", "url", "patch"}

// webhookRule reads a webhook as controller-tools does: every argument it
// requires, path or url but not both (which controller-gen checks only
// when it writes the manifest), and an argument given twice taking its
// last value (jobset and lws write sideEffects=None twice).
func webhookRule(arg string) (WebhookRule, error) {
	var w WebhookRule
	err := args(arg, []string{"mutating", "failurePolicy", "groups", "resources", "verbs", "versions", "name", "admissionReviewVersions"},
		func(key string, v *valueScanner) error {
			switch key {
			case "mutating":
				w.Mutating = v.boolean()
			case "failurePolicy":
				w.FailurePolicy = v.str(false)
			case "matchPolicy":
				w.MatchPolicy = v.str(false)
			case "sideEffects":
				w.SideEffects = v.str(false)
			case "timeoutSeconds":
				w.TimeoutSeconds = v.integer()
			case "groups":
				w.Groups = v.strings()
			case "resources":
				w.Resources = v.strings()
			case "verbs":
				w.Verbs = v.strings()
			case "versions":
				w.Versions = v.strings()
			case "name":
				w.Name = v.str(false)
			case "serviceName":
				w.ServiceName = v.str(false)
			case "serviceNamespace":
				w.ServiceNamespace = v.str(false)
			case "path":
				w.Path = v.str(false)
			case "servicePort":
				p := int32(v.integer())
				w.ServicePort = &p
			case "webhookVersions":
				w.WebhookVersions = v.strings()
			case "admissionReviewVersions":
				w.AdmissionReviewVersions = v.strings()
			case "reinvocationPolicy":
				w.ReinvocationPolicy = v.str(false)
			case "url":
				w.URL = v.str(false)
			case "patch":
				w.Patch = v.str(false)
			default:
				return unknownArg(key, webhookArgs...)
			}
			return nil
		})
	if err != nil {
		return w, err
	}
	if (w.Path == "") == (w.URL == "") {
		return w, errors.New("needs path= or url=, and not both")
	}
	return w, nil
}

// WebhookConfigurationRule is a "+kubebuilder:webhookconfiguration" value,
// controller-tools v0.23's webhook.WebhookConfig: the name of the
// MutatingWebhookConfiguration or ValidatingWebhookConfiguration itself.
type WebhookConfigurationRule struct {
	Mutating bool
	Name     string
}

func webhookConfiguration(arg string) (WebhookConfigurationRule, error) {
	var c WebhookConfigurationRule
	err := args(arg, []string{"mutating"}, func(key string, v *valueScanner) error {
		switch key {
		case "mutating":
			c.Mutating = v.boolean()
		case "name":
			c.Name = v.str(false)
		default:
			return unknownArg(key, "mutating", "name")
		}
		return nil
	})
	return c, err
}
