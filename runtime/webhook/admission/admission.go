// Package admission serves admission webhooks for one kind each, typed:
// a Defaulter sets defaults (the endpoint answers with the JSON patch
// from the request's object to the defaulted one) and a Validator
// accepts or refuses creates, updates and deletes, with warnings. The
// names and contracts are controller-runtime's webhook/admission
// (Defaulter[T], Validator[T], Warnings), so code written for it moves
// over unchanged.
//
// The AdmissionReview is read without reflection and the objects in it
// are decoded by the kind's generated JSON decoder (NewDecoder). A
// malformed review is answered 400 with what is wrong; an object that
// does not decode is refused with the decode error; a panic in a
// Defaulter or Validator is refused with a generic message and logged,
// and the server goes on serving. Bodies are limited to 7 MiB and the
// apiserver's timeout (the "timeout" query parameter) is the deadline of
// the context passed to user code.
package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ctrlgen/ctrlgen/runtime/webhook/internal/review"
)

// Warnings are messages the apiserver passes on to the client (kubectl
// prints them), whether or not the request is allowed.
type Warnings []string

// Defaulter sets the defaults of an object being created or updated.
// An error refuses the request: an apierrors.APIStatus (such as
// apierrors.NewInvalid's) with its own status, any other with 403 and its
// message.
type Defaulter[T runtime.Object] interface {
	Default(ctx context.Context, obj T) error
}

// Validator accepts or refuses an object being created, updated or
// deleted. The error refuses it: an apierrors.APIStatus with its status
// (apierrors.NewInvalid's lists field errors as the apiserver's own
// validation does, and kubectl prints them alike), a field.ErrorList's
// aggregate or a *field.Error as Invalid, any other error with 403 and
// its message.
type Validator[T runtime.Object] interface {
	ValidateCreate(ctx context.Context, obj T) (Warnings, error)
	ValidateUpdate(ctx context.Context, oldObj, newObj T) (Warnings, error)
	ValidateDelete(ctx context.Context, obj T) (Warnings, error)
}

// Decoder decodes an object of the webhook's kind from JSON.
type Decoder[T runtime.Object] func(data []byte) (T, error)

type requestKey struct{}

// RequestFromContext returns the admission request that user code is
// called for.
func RequestFromContext(ctx context.Context) (*admissionv1.AdmissionRequest, bool) {
	r, ok := ctx.Value(requestKey{}).(*admissionv1.AdmissionRequest)
	return r, ok
}

// Webhook is one admission endpoint: an http.Handler.
type Webhook struct {
	handle func(ctx context.Context, req *admissionv1.AdmissionRequest) *response
}

// ServeHTTP answers one AdmissionReview.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	review.Serve(w, r, func(ctx context.Context, body []byte) ([]byte, error) {
		var req admissionv1.AdmissionRequest
		apiVersion, err := decodeReview(body, &req)
		if err != nil {
			return nil, err
		}
		ctx = context.WithValue(ctx, requestKey{}, &req)
		var resp *response
		if err := review.Guard(ctx, "admission "+string(req.Operation)+" "+req.Kind.Kind, func() error {
			resp = wh.handle(ctx, &req)
			return nil
		}); err != nil {
			resp = &response{status: internalError(err)}
		}
		resp.uid = req.UID
		return resp.encode(apiVersion)
	})
}

// Defaulting is a mutating endpoint calling d for creates and updates
// (and allowing everything else untouched).
func Defaulting[T runtime.Object](decode Decoder[T], d Defaulter[T]) *Webhook {
	return &Webhook{handle: func(ctx context.Context, req *admissionv1.AdmissionRequest) *response {
		if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
			return allowed(nil)
		}
		obj, err := decodeObject(decode, req.Object.Raw, "object")
		if err != nil {
			return badObject(err)
		}
		original := obj.DeepCopyObject()
		if err := d.Default(ctx, obj); err != nil {
			return denied(err, req, nil)
		}
		if reflect.DeepEqual(original, runtime.Object(obj)) {
			return allowed(nil)
		}
		patch, err := patchFor(req.Object.Raw, original, obj)
		if err != nil {
			return &response{status: internalError(err)}
		}
		return &response{allowed: true, patch: patch}
	}}
}

// patchFor is the patch from the request's raw object to the defaulted
// one, without removing what the raw object holds and the Go type does
// not (unknown fields, nulls): only fields the defaulter itself cleared
// are removed.
func patchFor(raw []byte, original, defaulted runtime.Object) ([]byte, error) {
	from, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	to, err := marshalTree(defaulted)
	if err != nil {
		return nil, err
	}
	ops := createPatch(from, to)
	var typed any
	kept := ops[:0]
	for _, op := range ops {
		if op.op == "remove" {
			if typed == nil {
				if typed, err = marshalTree(original); err != nil {
					return nil, err
				}
			}
			if !has(typed, op.path) {
				continue
			}
		}
		kept = append(kept, op)
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return marshalPatch(kept)
}

// Validating is a validating endpoint calling v.
func Validating[T runtime.Object](decode Decoder[T], v Validator[T]) *Webhook {
	return &Webhook{handle: func(ctx context.Context, req *admissionv1.AdmissionRequest) *response {
		var warnings Warnings
		var err error
		switch req.Operation {
		case admissionv1.Create:
			obj, derr := decodeObject(decode, req.Object.Raw, "object")
			if derr != nil {
				return badObject(derr)
			}
			warnings, err = v.ValidateCreate(ctx, obj)
		case admissionv1.Update:
			obj, derr := decodeObject(decode, req.Object.Raw, "object")
			if derr != nil {
				return badObject(derr)
			}
			old, derr := decodeObject(decode, req.OldObject.Raw, "oldObject")
			if derr != nil {
				return badObject(derr)
			}
			warnings, err = v.ValidateUpdate(ctx, old, obj)
		case admissionv1.Delete:
			// The object being deleted is the oldObject.
			obj, derr := decodeObject(decode, req.OldObject.Raw, "oldObject")
			if derr != nil {
				return badObject(derr)
			}
			warnings, err = v.ValidateDelete(ctx, obj)
		case admissionv1.Connect:
			return allowed(nil)
		default:
			return badObject(fmt.Errorf("unknown operation %q", req.Operation))
		}
		if err != nil {
			return denied(err, req, warnings)
		}
		return allowed(warnings)
	}}
}

func decodeObject[T runtime.Object](decode Decoder[T], raw []byte, what string) (T, error) {
	if len(raw) == 0 {
		var zero T
		return zero, fmt.Errorf("the request has no %s", what)
	}
	obj, err := decode(raw)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("decoding the %s: %w", what, err)
	}
	return obj, nil
}

func allowed(warnings Warnings) *response {
	return &response{allowed: true, warnings: warnings}
}

// badObject refuses a request whose object does not decode.
func badObject(err error) *response {
	return &response{status: &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest,
		Reason: metav1.StatusReasonBadRequest, Message: err.Error()}}
}

func internalError(err error) *metav1.Status {
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: err.Error()}
}

// denied refuses the request with err, as Defaulter and Validator
// document.
func denied(err error, req *admissionv1.AdmissionRequest, warnings Warnings) *response {
	resp := &response{warnings: warnings}
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		s := apiStatus.Status()
		resp.status = &s
	} else if list := fieldErrors(err); list != nil {
		resp.status = invalid(req, list)
	} else {
		resp.status = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
			Reason: metav1.StatusReasonForbidden, Message: err.Error()}
	}
	return resp
}

// fieldErrors is err as field errors: a *field.Error, or an aggregate
// (field.ErrorList's ToAggregate) of nothing else; nil otherwise.
func fieldErrors(err error) field.ErrorList {
	var fe *field.Error
	if errors.As(err, &fe) {
		return field.ErrorList{fe}
	}
	var agg interface{ Errors() []error }
	if !errors.As(err, &agg) {
		return nil
	}
	var list field.ErrorList
	for _, e := range agg.Errors() {
		if !errors.As(e, &fe) {
			return nil
		}
		list = append(list, fe)
	}
	return list
}

// invalid is the status the apiserver's own validation answers with.
func invalid(req *admissionv1.AdmissionRequest, errs field.ErrorList) *metav1.Status {
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	s := apierrors.NewInvalid(gk, req.Name, errs).ErrStatus
	return &s
}
