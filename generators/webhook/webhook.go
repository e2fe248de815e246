// Package webhook writes kubebuilder's config/webhook from the
// "+kubebuilder:webhook" and "+kubebuilder:webhookconfiguration" markers:
// manifests.yaml, the MutatingWebhookConfiguration and the
// ValidatingWebhookConfiguration exactly as controller-gen v0.23's webhook
// generator writes them, and the Service in front of the manager's
// webhook server with its kustomization, as kubebuilder v4 scaffolds
// them.
package webhook

import (
	"cmp"
	"fmt"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/rbac"
	admissionregv1 "github.com/ctrlgen/ctrlgen/generators/webhook/internal/admissionv1"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Names kubebuilder gives the webhook objects before config/default's
// namePrefix; ServiceNamespace is its placeholder namespace.
const (
	MutatingConfiguration   = "mutating-webhook-configuration"
	ValidatingConfiguration = "validating-webhook-configuration"
	ServiceName             = "webhook-service"
	ServiceNamespace        = rbac.Namespace
)

// Generator is the "webhook" generator.
type Generator struct{}

func (Generator) Name() string { return "webhook" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{WebhookDir: true, OnRequest: true} }

// Owns is true for the files the generator writes in the webhook
// directory.
func (Generator) Owns(p *model.Project, file string) bool {
	if p.WebhookDir == "" || filepath.Dir(file) != filepath.Clean(p.WebhookDir) {
		return false
	}
	return slices.Contains([]string{"manifests.yaml", "service.yaml", "kustomization.yaml", "kustomizeconfig.yaml"}, filepath.Base(file))
}

// Generate returns config/webhook's files; none when the project has no
// webhooks. A project whose only webhooks are conversions gets the
// Service alone, which its CRDs' conversion patches name.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	objs, err := Configurations(p.Webhooks, p.WebhookConfigurations)
	if err != nil || len(objs) == 0 && len(p.ConversionKinds()) == 0 {
		return nil, err
	}
	service, err := rbac.Marshal(serviceObject(path.Base(p.Module)))
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return []*gen.File{
			gen.NewText(filepath.Join(p.WebhookDir, "service.yaml"), service),
			gen.NewText(filepath.Join(p.WebhookDir, "kustomization.yaml"), []byte(gen.YAMLHeader+"\n"+serviceKustomization)),
		}, nil
	}
	manifests, err := rbac.Marshal(objs...)
	if err != nil {
		return nil, err
	}
	return []*gen.File{
		gen.NewText(filepath.Join(p.WebhookDir, "manifests.yaml"), manifests),
		gen.NewText(filepath.Join(p.WebhookDir, "service.yaml"), service),
		gen.NewText(filepath.Join(p.WebhookDir, "kustomization.yaml"), []byte(gen.YAMLHeader+"\n"+kustomization)),
		gen.NewText(filepath.Join(p.WebhookDir, "kustomizeconfig.yaml"), []byte(gen.YAMLHeader+"\n"+kustomizeConfig)),
	}, nil
}

// Configurations are the webhook configurations controller-gen writes
// for rules: the mutating one, then the validating one, each only when it
// has webhooks, their webhooks sorted by name, creationTimestamp left out.
func Configurations(rules []*model.WebhookRule, configs []*model.WebhookConfiguration) ([]any, error) {
	mutatingName, validatingName := MutatingConfiguration, ValidatingConfiguration
	var seenMutating, seenValidating bool
	for _, c := range configs {
		if c.Mutating {
			if seenMutating {
				return nil, at(c.Pos, fmt.Errorf("a second mutating +kubebuilder:webhookconfiguration (name=%s): one per run", c.Name))
			}
			seenMutating, mutatingName = true, c.Name
		} else {
			if seenValidating {
				return nil, at(c.Pos, fmt.Errorf("a second validating +kubebuilder:webhookconfiguration (name=%s): one per run", c.Name))
			}
			seenValidating, validatingName = true, c.Name
		}
	}
	sorted := slices.Clone(rules)
	slices.SortStableFunc(sorted, func(a, b *model.WebhookRule) int { return strings.Compare(a.Name, b.Name) })
	var mutating []admissionregv1.MutatingWebhook
	var validating []admissionregv1.ValidatingWebhook
	for _, r := range sorted {
		if err := checkVersions(r); err != nil {
			return nil, at(r.Pos, err)
		}
		if r.Mutating {
			w, err := mutatingWebhook(r)
			if err != nil {
				return nil, at(r.Pos, err)
			}
			mutating = append(mutating, w)
		} else {
			w, err := validatingWebhook(r)
			if err != nil {
				return nil, at(r.Pos, err)
			}
			validating = append(validating, w)
		}
	}
	var objs []any
	if len(mutating) > 0 {
		objs = append(objs, &admissionregv1.MutatingWebhookConfiguration{
			TypeMeta:   admissionregv1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
			ObjectMeta: admissionregv1.ObjectMeta{Name: mutatingName}, Webhooks: mutating})
	}
	if len(validating) > 0 {
		objs = append(objs, &admissionregv1.ValidatingWebhookConfiguration{
			TypeMeta:   admissionregv1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: admissionregv1.ObjectMeta{Name: validatingName}, Webhooks: validating})
	}
	return objs, nil
}

// at is err at a marker's position, written as every marker error is.
func at(p token.Position, err error) error {
	return markers.Diagnostic{Pos: p, Msg: err.Error()}
}

// checkVersions accepts webhookVersions=v1 only, as controller-gen v0.23.
func checkVersions(r *model.WebhookRule) error {
	for _, v := range r.WebhookVersions {
		if v != "v1" {
			return fmt.Errorf("+kubebuilder:webhook name=%s: unsupported webhookVersions %s (v1 only)", r.Name, v)
		}
	}
	return nil
}

func mutatingWebhook(r *model.WebhookRule) (admissionregv1.MutatingWebhook, error) {
	common, err := commonOf(r)
	if err != nil {
		return admissionregv1.MutatingWebhook{}, err
	}
	w := admissionregv1.MutatingWebhook{Name: r.Name, Rules: common.rules, FailurePolicy: common.failurePolicy,
		MatchPolicy: common.matchPolicy, ClientConfig: common.clientConfig, SideEffects: common.sideEffects,
		TimeoutSeconds: common.timeout, AdmissionReviewVersions: r.AdmissionReviewVersions,
		ReinvocationPolicy: reinvocationPolicy(r.ReinvocationPolicy)}
	if err := applyPatch(&w, r.Patch); err != nil {
		return w, fmt.Errorf("+kubebuilder:webhook name=%s: patch: %w", r.Name, err)
	}
	return w, check(r, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
}

func validatingWebhook(r *model.WebhookRule) (admissionregv1.ValidatingWebhook, error) {
	common, err := commonOf(r)
	if err != nil {
		return admissionregv1.ValidatingWebhook{}, err
	}
	w := admissionregv1.ValidatingWebhook{Name: r.Name, Rules: common.rules, FailurePolicy: common.failurePolicy,
		MatchPolicy: common.matchPolicy, ClientConfig: common.clientConfig, SideEffects: common.sideEffects,
		TimeoutSeconds: common.timeout, AdmissionReviewVersions: r.AdmissionReviewVersions}
	if err := applyPatch(&w, r.Patch); err != nil {
		return w, fmt.Errorf("+kubebuilder:webhook name=%s: patch: %w", r.Name, err)
	}
	return w, check(r, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
}

// check is what controller-gen requires of a v1 webhook.
func check(r *model.WebhookRule, sideEffects *admissionregv1.SideEffectClass, timeout *int32, reviewVersions []string) error {
	switch {
	case sideEffects == nil:
		return fmt.Errorf("+kubebuilder:webhook name=%s: sideEffects is required (None or NoneOnDryRun)", r.Name)
	case *sideEffects == admissionregv1.SideEffectClassUnknown || *sideEffects == admissionregv1.SideEffectClassSome:
		return fmt.Errorf("+kubebuilder:webhook name=%s: sideEffects=%s is not allowed in admissionregistration.k8s.io/v1: None or NoneOnDryRun", r.Name, *sideEffects)
	case timeout != nil && (*timeout < 1 || *timeout > 30):
		return fmt.Errorf("+kubebuilder:webhook name=%s: timeoutSeconds=%d: must be between 1 and 30", r.Name, *timeout)
	case len(reviewVersions) == 0:
		return fmt.Errorf("+kubebuilder:webhook name=%s: admissionReviewVersions is required", r.Name)
	}
	return nil
}

// common is what mutating and validating webhooks share.
type common struct {
	rules         []admissionregv1.RuleWithOperations
	failurePolicy *admissionregv1.FailurePolicyType
	matchPolicy   *admissionregv1.MatchPolicyType
	clientConfig  admissionregv1.WebhookClientConfig
	sideEffects   *admissionregv1.SideEffectClass
	timeout       *int32
}

func commonOf(r *model.WebhookRule) (common, error) {
	c := common{rules: rules(r), failurePolicy: failurePolicy(r.FailurePolicy), sideEffects: sideEffects(r.SideEffects)}
	switch strings.ToLower(r.MatchPolicy) {
	case "exact":
		p := admissionregv1.Exact
		c.matchPolicy = &p
	case "equivalent":
		p := admissionregv1.Equivalent
		c.matchPolicy = &p
	case "":
	default:
		return c, fmt.Errorf("+kubebuilder:webhook name=%s: matchPolicy=%s: Exact or Equivalent", r.Name, r.MatchPolicy)
	}
	if r.TimeoutSeconds != 0 {
		t := int32(r.TimeoutSeconds)
		c.timeout = &t
	}
	if r.Path != "" {
		p := r.Path
		c.clientConfig.Service = &admissionregv1.ServiceReference{
			Name:      cmp.Or(r.ServiceName, ServiceName),
			Namespace: cmp.Or(r.ServiceNamespace, ServiceNamespace),
			Path:      &p, Port: r.ServicePort,
		}
	} else {
		u := r.URL
		c.clientConfig.URL = &u
	}
	return c, nil
}

func rules(r *model.WebhookRule) []admissionregv1.RuleWithOperations {
	groups := slices.Clone(r.Groups)
	for i, g := range groups {
		if g == "core" {
			groups[i] = ""
		}
	}
	ops := make([]admissionregv1.OperationType, len(r.Verbs))
	for i, v := range r.Verbs {
		ops[i] = operation(v)
	}
	return []admissionregv1.RuleWithOperations{{Operations: ops,
		Rule: admissionregv1.Rule{APIGroups: groups, APIVersions: r.Versions, Resources: r.Resources}}}
}

func operation(v string) admissionregv1.OperationType {
	for _, op := range []admissionregv1.OperationType{admissionregv1.Create, admissionregv1.Update, admissionregv1.Delete,
		admissionregv1.Connect, admissionregv1.OperationAll} {
		if strings.EqualFold(v, string(op)) {
			return op
		}
	}
	return admissionregv1.OperationType(v)
}

func failurePolicy(v string) *admissionregv1.FailurePolicyType {
	p := admissionregv1.FailurePolicyType(v)
	for _, known := range []admissionregv1.FailurePolicyType{admissionregv1.Ignore, admissionregv1.Fail} {
		if strings.EqualFold(v, string(known)) {
			p = known
		}
	}
	return &p
}

func sideEffects(v string) *admissionregv1.SideEffectClass {
	for _, known := range []admissionregv1.SideEffectClass{admissionregv1.SideEffectClassNone,
		admissionregv1.SideEffectClassNoneOnDryRun, admissionregv1.SideEffectClassSome} {
		if strings.EqualFold(v, string(known)) {
			s := known
			return &s
		}
	}
	return nil
}

func reinvocationPolicy(v string) *admissionregv1.ReinvocationPolicyType {
	for _, known := range []admissionregv1.ReinvocationPolicyType{admissionregv1.NeverReinvocationPolicy, admissionregv1.IfNeededReinvocationPolicy} {
		if strings.EqualFold(v, string(known)) {
			p := known
			return &p
		}
	}
	return nil
}

// serviceObject is kubebuilder v4's config/webhook/service.yaml: port 443
// to the manager's webhook server on 9443. Its selector is the manager's
// control-plane label alone: kubebuilder adds app.kubernetes.io/name with
// the project's name, which ctrlgen only guesses from the module path and
// which then selected no pod where the two differ (examples/mydemo).
// config/default puts the Service in the manager's namespace.
func serviceObject(project string) any {
	type port struct {
		Port       int    `json:"port"`
		Protocol   string `json:"protocol"`
		TargetPort int    `json:"targetPort"`
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": ServiceName, "namespace": ServiceNamespace,
			"labels": map[string]string{"app.kubernetes.io/name": project, "app.kubernetes.io/managed-by": "kustomize"}},
		"spec": map[string]any{
			"ports":    []port{{Port: 443, Protocol: "TCP", TargetPort: 9443}},
			"selector": map[string]string{"control-plane": "controller-manager"},
		},
	}
}

// serviceKustomization is config/webhook's kustomization for conversion
// webhooks alone: no webhook configuration names the Service.
const serviceKustomization = `resources:
- service.yaml
`

const kustomization = `resources:
- manifests.yaml
- service.yaml

configurations:
- kustomizeconfig.yaml
`

// kustomizeConfig teaches kustomize where the webhook configurations
// name the Service, so that config/default's namePrefix and namespace
// reach them, as kubebuilder's does.
const kustomizeConfig = `nameReference:
- kind: Service
  version: v1
  fieldSpecs:
  - kind: MutatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/name
  - kind: ValidatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/name

namespace:
- kind: MutatingWebhookConfiguration
  group: admissionregistration.k8s.io
  path: webhooks/clientConfig/service/namespace
  create: true
- kind: ValidatingWebhookConfiguration
  group: admissionregistration.k8s.io
  path: webhooks/clientConfig/service/namespace
  create: true
`
