package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ctrlgen/ctrlgen/runtime/webhook/admission"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/conversion"
)

// A Widget in two versions, written by hand as ctrlgen's generated code
// will write them: v2 is the hub (the storage version); v1 has one color
// where v2 has a list, and keeps the others in an annotation so that
// v2 → v1 → v2 loses nothing.
const widgetGroup = "webhooktest.ctrlgen.io"

var (
	widgetV1GVK = schema.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: "Widget"}
	widgetV2GVK = schema.GroupVersionKind{Group: widgetGroup, Version: "v2", Kind: "Widget"}
)

type widgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetV1Spec `json:"spec"`
}

type widgetV1Spec struct {
	Size     int32  `json:"size"`
	Color    string `json:"color,omitempty"`
	Replicas int32  `json:"replicas,omitempty"`
}

type widgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetV2Spec `json:"spec"`
}

type widgetV2Spec struct {
	Size     int32    `json:"size"`
	Colors   []string `json:"colors,omitempty"`
	Replicas int32    `json:"replicas,omitempty"`
}

func (w *widgetV1) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (w *widgetV2) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Colors = slices.Clone(w.Spec.Colors)
	return &c
}

func (*widgetV2) Hub() {}

// moreColors keeps the colors after the first of a v2 Widget on its v1.
const moreColors = "webhooktest.ctrlgen.io/more-colors"

func (w *widgetV1) ConvertTo(dst conversion.Hub) error {
	h := dst.(*widgetV2)
	w.ObjectMeta.DeepCopyInto(&h.ObjectMeta)
	h.Spec = widgetV2Spec{Size: w.Spec.Size, Replicas: w.Spec.Replicas}
	if w.Spec.Color != "" {
		h.Spec.Colors = []string{w.Spec.Color}
	}
	if more, ok := h.Annotations[moreColors]; ok {
		h.Spec.Colors = append(h.Spec.Colors, strings.Split(more, ",")...)
		delete(h.Annotations, moreColors)
		if len(h.Annotations) == 0 {
			h.Annotations = nil
		}
	}
	return nil
}

func (w *widgetV1) ConvertFrom(src conversion.Hub) error {
	h := src.(*widgetV2)
	h.ObjectMeta.DeepCopyInto(&w.ObjectMeta)
	w.Spec = widgetV1Spec{Size: h.Spec.Size, Replicas: h.Spec.Replicas}
	if len(h.Spec.Colors) > 0 {
		w.Spec.Color = h.Spec.Colors[0]
	}
	if len(h.Spec.Colors) > 1 {
		if w.Annotations == nil {
			w.Annotations = map[string]string{}
		}
		w.Annotations[moreColors] = strings.Join(h.Spec.Colors[1:], ",")
	}
	return nil
}

func widgetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(widgetV1GVK, &widgetV1{})
	s.AddKnownTypeWithName(widgetV2GVK, &widgetV2{})
	return s
}

// widgetHooks default and validate v2 Widgets.
type widgetHooks struct{}

func (widgetHooks) Default(_ context.Context, w *widgetV2) error {
	if w.Spec.Replicas == 0 {
		w.Spec.Replicas = 3
	}
	if len(w.Spec.Colors) == 0 {
		w.Spec.Colors = []string{"white"}
	}
	return nil
}

func (widgetHooks) validate(w *widgetV2) (admission.Warnings, error) {
	var errs field.ErrorList
	if w.Spec.Size < 1 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "must be at least 1"))
	}
	if slices.Contains(w.Spec.Colors, "") {
		errs = append(errs, field.Required(field.NewPath("spec", "colors"), "colors may not be empty"))
	}
	var warnings admission.Warnings
	if w.Spec.Size > 100 {
		warnings = append(warnings, "a size above 100 is unusual")
	}
	return warnings, errs.ToAggregate()
}

func (h widgetHooks) ValidateCreate(_ context.Context, w *widgetV2) (admission.Warnings, error) {
	return h.validate(w)
}

func (h widgetHooks) ValidateUpdate(_ context.Context, _, w *widgetV2) (admission.Warnings, error) {
	return h.validate(w)
}

func (widgetHooks) ValidateDelete(_ context.Context, w *widgetV2) (admission.Warnings, error) {
	if w.Labels["protected"] == "true" {
		return nil, errors.New("this Widget is protected: remove its label protected=true first")
	}
	return nil, nil
}
