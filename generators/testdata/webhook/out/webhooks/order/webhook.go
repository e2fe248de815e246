package order

import (
	"context"

	shopv1 "example.com/webhook/apis/shop/v1"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/admission"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file is yours: ctrlgen wrote it once, because the package declared
// neither Defaulter nor Validator, and never touches it again. The wiring
// it is called from is in zz_generated.webhook.go, which ctrlgen rewrites
// on every run.

// Defaulter sets the defaults of Orders being created or updated.
type Defaulter struct{}

// newDefaulter builds the Defaulter once, when the manager starts; mc
// gives the client configuration for a Defaulter that reads the cluster.
func newDefaulter(ctx context.Context, mc *manager.Context) (*Defaulter, error) {
	return &Defaulter{}, nil
}

// Default sets the fields obj leaves empty. An error refuses the request.
func (d *Defaulter) Default(ctx context.Context, obj *shopv1.Order) error {
	return nil
}

// Validator accepts or refuses Orders being created, updated or
// deleted.
type Validator struct{}

// newValidator builds the Validator once, when the manager starts.
func newValidator(ctx context.Context, mc *manager.Context) (*Validator, error) {
	return &Validator{}, nil
}

// ValidateCreate refuses an invalid new Order. Return field errors as
// apierrors.NewInvalid or a field.ErrorList's ToAggregate(): kubectl prints
// them as it prints the apiserver's own.
func (v *Validator) ValidateCreate(ctx context.Context, obj *shopv1.Order) (admission.Warnings, error) {
	return nil, v.validate(obj).ToAggregate()
}

// ValidateUpdate refuses an invalid change from old to obj.
func (v *Validator) ValidateUpdate(ctx context.Context, old, obj *shopv1.Order) (admission.Warnings, error) {
	return nil, v.validate(obj).ToAggregate()
}

// ValidateDelete refuses to delete obj.
func (v *Validator) ValidateDelete(ctx context.Context, obj *shopv1.Order) (admission.Warnings, error) {
	return nil, nil
}

// validate lists what is wrong with obj.
func (v *Validator) validate(obj *shopv1.Order) field.ErrorList {
	var errs field.ErrorList
	return errs
}
