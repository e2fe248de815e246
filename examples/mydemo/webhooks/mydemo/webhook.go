package mydemo

import (
	"context"
	"fmt"
	"net"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/admission"
)

// This file is yours: ctrlgen wrote it once, because the package declared
// neither Defaulter nor Validator, and never touches it again. The wiring
// it is called from is in zz_generated.webhook.go, which ctrlgen rewrites
// on every run.

// DefaultPort is the port of a Mydemo created without one.
const DefaultPort = 80

// ProtectedLabel, set to "true", keeps a Mydemo from being deleted.
const ProtectedLabel = "crddemo.k8s.io/protected"

// Defaulter sets the defaults of Mydemos being created or updated.
type Defaulter struct{}

// newDefaulter builds the Defaulter once, when the manager starts; mc
// gives the client configuration for a Defaulter that reads the cluster.
func newDefaulter(ctx context.Context, mc *manager.Context) (*Defaulter, error) {
	return &Defaulter{}, nil
}

// Default gives a Mydemo without a port DefaultPort.
func (d *Defaulter) Default(ctx context.Context, obj *crddemov1.Mydemo) error {
	if obj.Spec.Port == 0 {
		obj.Spec.Port = DefaultPort
	}
	return nil
}

// Validator accepts or refuses Mydemos being created, updated or
// deleted.
type Validator struct{}

// newValidator builds the Validator once, when the manager starts.
func newValidator(ctx context.Context, mc *manager.Context) (*Validator, error) {
	return &Validator{}, nil
}

// ValidateCreate refuses a Mydemo whose spec.ip is not an IP address,
// which the CRD's schema cannot say.
func (v *Validator) ValidateCreate(ctx context.Context, obj *crddemov1.Mydemo) (admission.Warnings, error) {
	return v.warnings(obj), v.validate(obj).ToAggregate()
}

// ValidateUpdate refuses an invalid change from old to obj.
func (v *Validator) ValidateUpdate(ctx context.Context, old, obj *crddemov1.Mydemo) (admission.Warnings, error) {
	return v.warnings(obj), v.validate(obj).ToAggregate()
}

// ValidateDelete refuses to delete a Mydemo labelled ProtectedLabel=true.
func (v *Validator) ValidateDelete(ctx context.Context, obj *crddemov1.Mydemo) (admission.Warnings, error) {
	if obj.Labels[ProtectedLabel] == "true" {
		return nil, apierrors.NewForbidden(crddemov1.Resource("mydemos"), obj.Name,
			fmt.Errorf("it is labelled %s=true; remove the label to delete it", ProtectedLabel))
	}
	return nil, nil
}

// validate lists what is wrong with obj.
func (v *Validator) validate(obj *crddemov1.Mydemo) field.ErrorList {
	var errs field.ErrorList
	if net.ParseIP(obj.Spec.IP) == nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "ip"), obj.Spec.IP, "must be an IPv4 or IPv6 address"))
	}
	return errs
}

// warnings are what kubectl prints without refusing obj.
func (v *Validator) warnings(obj *crddemov1.Mydemo) admission.Warnings {
	if ip := net.ParseIP(obj.Spec.IP); ip != nil && ip.IsLoopback() {
		return admission.Warnings{fmt.Sprintf("spec.ip %s is a loopback address: only this node reaches it", obj.Spec.IP)}
	}
	return nil
}
