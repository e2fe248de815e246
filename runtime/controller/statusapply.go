package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// StatusApply makes the controller write status by server-side apply on
// the status subresource, as field manager Options.Name, instead of
// UpdateStatus (+ctrlgen:controller:statusApply). It applies only the
// status fields Reconcile set:
//
//   - the fields this manager already owns (the cached object's
//     managedFields), with the values Reconcile left them at;
//   - the fields Reconcile added or changed, compared with the cached
//     object;
//   - status.observedGeneration, when SetObservedGeneration set it.
//
// Fields only other managers own and Reconcile left alone are not sent,
// so they are kept; a field this manager owned and Reconcile cleared is
// not sent, so the apiserver removes it. A field another manager owns that
// Reconcile changed makes the apiserver refuse the apply: the controller
// never forces, and returns a *StatusApplyConflictError, which is logged,
// recorded as a Warning event "StatusApplyConflict" and retried with
// backoff. Nothing is sent when the status did not change (StatusEqual).
//
// It needs managedFields in the cache: an informer transform that drops
// them leaves no way to tell which fields this manager owns, and then the
// whole status is applied (taking co-ownership of unchanged fields).
type StatusApply[T cache.Object] struct {
	// ToTyped is an object as structured-merge-diff sees it, by the schema
	// of the kind's apply configurations (the generated
	// applyconfiguration.NewTypeConverter). It must not change obj, which
	// may be the cached object.
	ToTyped func(obj T) (*typed.TypedValue, error)
	// Apply sends the fields to apply, obj's unstructured form with only
	// them ({"status": {...}}), as an apply configuration of obj (its name,
	// namespace, apiVersion and kind) to the status subresource, with
	// opts (the field manager; never Force).
	Apply func(ctx context.Context, obj T, fields map[string]any, opts metav1.ApplyOptions) (T, error)
	// ObservedGeneration is the path of status.observedGeneration,
	// {"status", "observedGeneration"}, when SetObservedGeneration is set.
	ObservedGeneration []string
}

// StatusApplyConflictError is a status apply refused because fields it
// sets are owned by other field managers with other values. The
// controller does not force; it retries, and the conflict stays until the
// other manager gives the fields up or Reconcile stops setting them.
type StatusApplyConflictError struct {
	// Manager is the controller's field manager.
	Manager string
	// Conflicts are the fields and their owners, as the apiserver listed
	// them.
	Conflicts []FieldConflict
	// Err is the apiserver's 409 Conflict.
	Err error
}

// FieldConflict is one field of a StatusApplyConflictError.
type FieldConflict struct {
	// Field is the field's path, ".status.configMapName".
	Field string
	// Manager is the field manager that owns it.
	Manager string
}

func (e *StatusApplyConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "applying status as field manager %q conflicts with fields other managers own (not forced):", e.Manager)
	for i, c := range e.Conflicts {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s (%q)", c.Field, c.Manager)
	}
	if len(e.Conflicts) == 0 {
		b.WriteString(" " + e.Err.Error())
	}
	return b.String()
}

func (e *StatusApplyConflictError) Unwrap() error { return e.Err }

// statusApplier is the generic part of StatusApply: which fields to send.
type statusApplier[T cache.Object] struct {
	manager            string
	opts               StatusApply[T]
	status             *fieldpath.SetMatcher
	observedGeneration fieldpath.Path
}

func newStatusApplier[T cache.Object](manager string, opts StatusApply[T]) (*statusApplier[T], error) {
	a := &statusApplier[T]{manager: manager, opts: opts, status: fieldpath.MakePrefixMatcherOrDie("status")}
	if len(opts.ObservedGeneration) > 0 {
		parts := make([]any, len(opts.ObservedGeneration))
		for i, p := range opts.ObservedGeneration {
			parts[i] = p
		}
		var err error
		if a.observedGeneration, err = fieldpath.MakePath(parts...); err != nil {
			return nil, fmt.Errorf("StatusApply.ObservedGeneration: %w", err)
		}
	}
	return a, nil
}

// apply applies obj's status as changed from cached, and returns the
// object the apiserver made (the zero T when there is none).
// observedGeneration says whether SetObservedGeneration set it.
func (a *statusApplier[T]) apply(ctx context.Context, cached, obj T, observedGeneration bool) (T, error) {
	var zero T
	fields, err := a.fields(cached, obj, observedGeneration)
	if err != nil {
		return zero, fmt.Errorf("status apply of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	applied, err := a.opts.Apply(ctx, obj, fields, metav1.ApplyOptions{FieldManager: a.manager})
	switch {
	case apierrors.IsNotFound(err):
		return zero, nil // deleted meanwhile; nothing left to report on
	case apierrors.IsConflict(err):
		// An apply carries no resourceVersion: its only conflicts are
		// other managers' fields.
		return zero, &StatusApplyConflictError{Manager: a.manager, Conflicts: fieldConflicts(err), Err: err}
	case err != nil:
		return zero, err
	}
	return applied, nil
}

// fields is obj's unstructured form reduced to the status fields to
// apply.
func (a *statusApplier[T]) fields(cached, obj T, observedGeneration bool) (map[string]any, error) {
	before, err := a.opts.ToTyped(cached)
	if err != nil {
		return nil, err
	}
	after, err := a.opts.ToTyped(obj)
	if err != nil {
		return nil, err
	}
	diff, err := before.Compare(after)
	if err != nil {
		return nil, err
	}
	send := diff.Added.Union(diff.Modified)
	owned, err := a.owned(cached, after)
	if err != nil {
		return nil, err
	}
	send = send.Union(owned)
	if observedGeneration && a.observedGeneration != nil {
		send.Insert(a.observedGeneration)
	}
	send = send.FilterIncludeMatches(a.status)
	// Leaves, as managedfields.ExtractInto: an owned list item or map
	// entry is its owned fields, not all of it. Key fields come along so
	// that each list item sent names itself.
	extracted := after.ExtractItems(send.Leaves(), typed.WithAppendKeyFields()).AsValue().Unstructured()
	m, _ := extracted.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// owned is the set of fields this manager owns on the status
// subresource, from cached's managedFields. A fake's field manager
// records status applies under no subresource, and on an apiserver this
// manager owns no status field through the main resource, so both entries
// count. Without managedFields (a transform dropped them) it is every
// field of after.
func (a *statusApplier[T]) owned(cached T, after *typed.TypedValue) (*fieldpath.Set, error) {
	entries := cached.GetManagedFields()
	if len(entries) == 0 {
		return after.ToFieldSet()
	}
	owned := fieldpath.NewSet()
	for _, e := range entries {
		if e.Manager != a.manager || e.Operation != metav1.ManagedFieldsOperationApply || e.FieldsV1 == nil ||
			(e.Subresource != "status" && e.Subresource != "") {
			continue
		}
		s := fieldpath.NewSet()
		if err := s.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, fmt.Errorf("managedFields of %s: %w", a.manager, err)
		}
		owned = owned.Union(s)
	}
	return owned, nil
}

// fieldConflicts reads the conflicts out of an apply's 409: causes of type
// FieldManagerConflict, whose message is `conflict with "<manager>"…`.
func fieldConflicts(err error) []FieldConflict {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []FieldConflict
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		manager := strings.TrimPrefix(c.Message, "conflict with ")
		if q, err := strconv.QuotedPrefix(manager); err == nil {
			manager, _ = strconv.Unquote(q)
		}
		out = append(out, FieldConflict{Field: c.Field, Manager: manager})
	}
	return out
}
