// Package fakeclient backs generated fake clientsets. Its Tracker wraps
// client-go's testing.ObjectTracker for storage and sends watch events
// itself, so that List, Watch and DeleteCollection honour label selectors
// and field selectors as an apiserver does, and so that a watch never
// overflows.
package fakeclient

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/testing"
)

// Tracker is a testing.ObjectTracker whose List, Watch and DeleteCollection
// honour the label and field selectors in their options.
//
// Field selectors match metadata.name and metadata.namespace, and any other
// field by its JSON path (e.g. "spec.nodeName"), an absent field being "".
// An apiserver rejects fields a resource does not declare selectable; the
// fake accepts them.
//
// A watch is told of an update that makes an object match its selectors as
// ADDED, and of one that makes it stop matching as DELETED, as an apiserver
// does. Its events wait in a buffer without bound: unlike client-go's fake,
// a test that writes many objects before its informer reads never panics.
//
// As an apiserver's, a watch from the resourceVersion of a List is first
// told of every change made since, deletions included, so that an informer
// whose watch starts late misses nothing. The Tracker keeps the last
// maxChanges changes (at least half as many) of each resource for that; a
// watch from an older version gets 410 Gone, and a Reflector then lists
// again. Lists report the Tracker's version of their resource. A watch from
// version "" or "0" starts with the current objects.
type Tracker struct {
	// inner serves the ObjectTracker's methods; store is the tracker
	// that holds the objects: inner itself, or under inner's field
	// manager. Add writes to store, as client-go's Add.
	inner, store testing.ObjectTracker
	scheme       *runtime.Scheme
	decoder      runtime.Decoder
	kinds        map[schema.GroupVersionResource]schema.GroupVersionKind
	// resources maps the other way, for Add.
	resources map[schema.GroupVersionKind]schema.GroupVersionResource

	// mu orders writes, lists and watch registrations, so that every
	// watcher sees every write after its resourceVersion, once, in order.
	mu       sync.Mutex
	watchers map[schema.GroupVersionResource]map[*watcher]bool
	// versions is the resourceVersion of each resource's last change; a
	// resource that never changed is at 1, as in client-go's tracker.
	versions map[schema.GroupVersionResource]int64
	// changes are each resource's last changes, oldest first; dropped is
	// the version of the newest change no longer kept.
	changes map[schema.GroupVersionResource][]change
	dropped map[schema.GroupVersionResource]int64
}

// change is one write or deletion: old is nil for a creation, new for a
// deletion.
type change struct {
	version  int64
	ns       string
	old, new runtime.Object
}

// maxChanges is how many changes of a resource are kept for watches that
// start from an older resourceVersion than the newest.
const maxChanges = 10000

var _ testing.ObjectTracker = &Tracker{}

// NewTracker returns an empty Tracker for the types in scheme. kinds maps
// each resource the clientset serves to its kind, e.g.
// {Group: "apps", Version: "v1", Resource: "deployments"}: "Deployment", so
// that objects given to Add are stored under the resource the clients use
// even when the plural is irregular.
func NewTracker(scheme *runtime.Scheme, decoder runtime.Decoder, kinds map[schema.GroupVersionResource]string) *Tracker {
	store := testing.NewObjectTracker(scheme, decoder)
	t := newTrackerOver(store, scheme, decoder, kinds)
	t.inner = store
	return t
}

// NewFieldManagedTracker is NewTracker with the field management of
// client-go's testing.NewFieldManagedObjectTracker: writes record managedFields, and
// an apply merges the fields its manager owns with the object and
// reports conflicts with other managers' fields, as an apiserver does.
// typeConverter is the schema of the types, e.g. the generated apply
// configurations' NewTypeConverter(scheme).
//
// As client-go's, Add stores objects as they are, without managedFields
// and without stamping their apiVersion and kind. Unlike client-go's, a
// type structured-merge-diff cannot read by reflection (a fixed-size
// array) is read through its JSON, so that it never panics.
func NewFieldManagedTracker(scheme *runtime.Scheme, decoder runtime.Decoder, kinds map[schema.GroupVersionResource]string, typeConverter managedfields.TypeConverter) *Tracker {
	store := testing.NewObjectTracker(scheme, decoder)
	t := newTrackerOver(store, scheme, decoder, kinds)
	t.inner = &managedTracker{
		ObjectTracker: store,
		scheme:        scheme,
		// Typed objects reach the field manager as JSON: structured-merge-diff
		// panics on some Go types (fixed-size arrays) the JSON of which it reads.
		typeConverter: jsonTypeConverter{inner: typeConverter, scheme: scheme},
		kindFor:       t.kindFor,
	}
	return t
}

func newTrackerOver(store testing.ObjectTracker, scheme *runtime.Scheme, decoder runtime.Decoder, kinds map[schema.GroupVersionResource]string) *Tracker {
	t := &Tracker{
		store:     store,
		scheme:    scheme,
		decoder:   decoder,
		kinds:     make(map[schema.GroupVersionResource]schema.GroupVersionKind, len(kinds)),
		resources: make(map[schema.GroupVersionKind]schema.GroupVersionResource, len(kinds)),
		watchers:  map[schema.GroupVersionResource]map[*watcher]bool{},
		versions:  map[schema.GroupVersionResource]int64{},
		changes:   map[schema.GroupVersionResource][]change{},
		dropped:   map[schema.GroupVersionResource]int64{},
	}
	for gvr, kind := range kinds {
		gvk := gvr.GroupVersion().WithKind(kind)
		t.kinds[gvr] = gvk
		t.resources[gvk] = gvr
	}
	return t
}

// AddReactors makes fake answer every action from the tracker: the object
// reactions of testing.ObjectReaction, DeleteCollection, and watches.
func (t *Tracker) AddReactors(fake *testing.Fake) {
	objectReaction := testing.ObjectReaction(t)
	fake.AddReactor("*", "*", func(action testing.Action) (bool, runtime.Object, error) {
		if dc, ok := action.(testing.DeleteCollectionActionImpl); ok {
			return true, nil, t.deleteCollection(dc)
		}
		return objectReaction(action)
	})
	fake.AddWatchReactor("*", func(action testing.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(testing.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := t.Watch(action.GetResource(), action.GetNamespace(), opts)
		return true, w, err
	})
}

// Add stores obj, or each item of a list, under the resource registered
// for its kind, or else the one testing.ObjectTracker would guess.
func (t *Tracker) Add(obj runtime.Object) error {
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			return err
		}
		if errs := runtime.DecodeList(items, t.decoder); len(errs) > 0 {
			return errs[0]
		}
		for _, item := range items {
			if err := t.Add(item); err != nil {
				return err
			}
		}
		return nil
	}
	if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return t.inner.Add(obj) // stored by its TypeMeta; no watch events
	}
	gvks, _, err := t.scheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	for _, gvk := range gvks {
		gvr, ok := t.resources[gvk]
		if !ok {
			gvr, _ = meta.UnsafeGuessKindToResource(gvk)
			if gvr.Version == runtime.APIVersionInternal {
				gvr.Version = ""
			}
		}
		ns := acc.GetNamespace()
		// client-go's Add stores obj as it is, bypassing the field manager.
		if err := t.write(gvr, obj, ns, false, func() error { return t.store.Create(gvr, obj, ns) }); err != nil {
			return err
		}
	}
	return nil
}

// Get returns the object called name in ns.
func (t *Tracker) Get(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.GetOptions) (runtime.Object, error) {
	return t.inner.Get(gvr, ns, name, opts...)
}

// Create stores a new object and tells the watchers.
func (t *Tracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	return t.write(gvr, obj, ns, false, func() error { return t.inner.Create(gvr, obj, ns, opts...) })
}

// Update replaces an object and tells the watchers.
func (t *Tracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	return t.write(gvr, obj, ns, true, func() error { return t.inner.Update(gvr, obj, ns, opts...) })
}

// Patch stores a patched object and tells the watchers.
func (t *Tracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.write(gvr, obj, ns, true, func() error { return t.inner.Patch(gvr, obj, ns, opts...) })
}

// Apply applies a configuration, as testing.ObjectTracker does, and tells
// the watchers.
func (t *Tracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.write(gvr, applyConfiguration, ns, true, func() error { return t.inner.Apply(gvr, applyConfiguration, ns, opts...) })
}

// write runs store and tells the watchers of gvr what changed for obj.
func (t *Tracker) write(gvr schema.GroupVersionResource, obj runtime.Object, ns string, exists bool, store func() error) error {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var old runtime.Object
	if exists {
		old, _ = t.inner.Get(gvr, ns, acc.GetName())
	}
	if err := store(); err != nil {
		return err
	}
	stored, err := t.inner.Get(gvr, ns, acc.GetName())
	if err != nil {
		return err
	}
	t.changed(gvr, ns, old, stored)
	return nil
}

// Delete removes an object and tells the watchers.
func (t *Tracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	old, _ := t.inner.Get(gvr, ns, name)
	if err := t.inner.Delete(gvr, ns, name, opts...); err != nil {
		return err
	}
	if old != nil {
		t.changed(gvr, ns, old, nil)
	}
	return nil
}

// changed records the change from old to new (either may be nil) of an
// object of gvr in ns under a new resourceVersion, and hands it to the
// watchers of gvr in ns. t.mu must be held.
func (t *Tracker) changed(gvr schema.GroupVersionResource, ns string, old, new runtime.Object) {
	c := change{version: t.version(gvr) + 1, ns: ns, old: old, new: new}
	t.versions[gvr] = c.version
	log := append(t.changes[gvr], c)
	if len(log) > maxChanges {
		// Drop the older half at once, so that dropping is not a copy per
		// change.
		n := len(log) - maxChanges/2
		t.dropped[gvr] = log[n-1].version
		log = append([]change(nil), log[n:]...)
	}
	t.changes[gvr] = log
	for w := range t.watchers[gvr] {
		w.tell(c)
	}
}

// version is the resourceVersion of gvr's last change. t.mu must be held.
func (t *Tracker) version(gvr schema.GroupVersionResource) int64 {
	if v, ok := t.versions[gvr]; ok {
		return v
	}
	return 1
}

// tell pushes the event, if any, that c is for w.
func (w *watcher) tell(c change) {
	if w.namespace == "" || w.namespace == c.ns {
		if ev, ok := w.sel.event(c.old, c.new); ok {
			w.push(ev)
		}
	}
}

// List returns the objects of gvr in ns (all namespaces when empty) that
// match the options' selectors, with the resourceVersion of gvr's last
// change, from which a watch misses nothing.
func (t *Tracker) List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error) {
	sel, err := selectorFor(opts)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	list, err := t.inner.List(gvr, gvk, ns, opts...)
	if err == nil {
		if lm, lerr := meta.ListAccessor(list); lerr == nil {
			lm.SetResourceVersion(strconv.FormatInt(t.version(gvr), 10))
		}
	}
	t.mu.Unlock()
	if err != nil || sel.everything() {
		return list, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	kept := items[:0]
	for _, item := range items {
		if sel.matches(item) {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return nil, err
	}
	return list, nil
}

// Watch watches gvr in ns (all namespaces when empty). With a
// resourceVersion, it first sends every matching change after it, as an
// apiserver does, or fails with 410 Gone when that change is no longer
// kept; with version "" or "0", the matching current objects as ADDED.
// Then it sends every change from then on. Without options it sends only
// the changes from then on, as client-go's fake does.
func (t *Tracker) Watch(gvr schema.GroupVersionResource, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	sel, err := selectorFor(opts)
	if err != nil {
		return nil, err
	}
	from := int64(-1) // no replay
	if len(opts) > 0 {
		from = 0 // the current objects
		if rv := opts[0].ResourceVersion; rv != "" {
			if from, err = strconv.ParseInt(rv, 10, 64); err != nil || from < 0 {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q: not a non-negative integer", rv))
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Writes wait for t.mu, so nothing changes between the replay and the
	// registration below.
	var replay []change
	switch {
	case from == 0:
		current, err := t.current(gvr, ns)
		if err != nil {
			return nil, err
		}
		replay = current
	case from > 0:
		if from < t.dropped[gvr] {
			return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, t.dropped[gvr]+1))
		}
		log := t.changes[gvr]
		i, _ := slices.BinarySearchFunc(log, from+1, func(c change, v int64) int { return cmp.Compare(c.version, v) })
		replay = log[i:]
	}
	w := newWatcher(ns, sel, func(w *watcher) {
		t.mu.Lock()
		delete(t.watchers[gvr], w)
		t.mu.Unlock()
	})
	for _, c := range replay {
		w.tell(c)
	}
	if t.watchers[gvr] == nil {
		t.watchers[gvr] = map[*watcher]bool{}
	}
	t.watchers[gvr][w] = true
	return w, nil
}

func (t *Tracker) deleteCollection(action testing.DeleteCollectionActionImpl) error {
	gvr, ns := action.GetResource(), action.GetNamespace()
	gvk, ok := t.kindFor(gvr)
	if !ok {
		return apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	list, err := t.List(gvr, gvk, ns, action.ListOptions)
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		acc, err := meta.Accessor(item)
		if err != nil {
			return err
		}
		if err := t.Delete(gvr, acc.GetNamespace(), acc.GetName()); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// current returns the objects of gvr in ns as creations. It lists them
// when gvr's kind is known; else client-go's tracker sends them through a
// watch, which panics beyond 100 objects and stays registered there.
// t.mu must be held.
func (t *Tracker) current(gvr schema.GroupVersionResource, ns string) ([]change, error) {
	var objs []runtime.Object
	if gvk, ok := t.kindFor(gvr); ok {
		list, err := t.inner.List(gvr, gvk, ns)
		if err != nil {
			return nil, err
		}
		if objs, err = meta.ExtractList(list); err != nil {
			return nil, err
		}
	} else {
		w, err := t.inner.Watch(gvr, ns, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for drained := false; !drained; {
			select {
			case ev := <-w.ResultChan():
				objs = append(objs, ev.Object)
			default:
				drained = true
			}
		}
		w.Stop()
	}
	out := make([]change, 0, len(objs))
	for _, obj := range objs {
		c := change{ns: ns, new: obj}
		if m, err := meta.Accessor(obj); err == nil {
			c.ns = m.GetNamespace()
		}
		out = append(out, c)
	}
	return out, nil
}

// kindFor returns the kind of gvr: the registered one, or the one whose
// guessed resource is gvr.
func (t *Tracker) kindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	if gvk, ok := t.kinds[gvr]; ok {
		return gvk, true
	}
	for gvk := range t.scheme.AllKnownTypes() {
		if gvk.GroupVersion() != gvr.GroupVersion() || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if guessed, _ := meta.UnsafeGuessKindToResource(gvk); guessed == gvr {
			return gvk, true
		}
	}
	return schema.GroupVersionKind{}, false
}

// selector is the label and field selector of a list or watch.
type selector struct {
	labels labels.Selector
	fields fields.Selector
}

func selectorFor(opts []metav1.ListOptions) (selector, error) {
	sel := selector{labels: labels.Everything(), fields: fields.Everything()}
	if len(opts) == 0 {
		return sel, nil
	}
	var err error
	if s := opts[0].LabelSelector; s != "" {
		if sel.labels, err = labels.Parse(s); err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("invalid label selector %q: %v", s, err))
		}
	}
	if s := opts[0].FieldSelector; s != "" {
		if sel.fields, err = fields.ParseSelector(s); err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector %q: %v", s, err))
		}
	}
	return sel, nil
}

func (s selector) everything() bool { return s.labels.Empty() && s.fields.Empty() }

// event returns the event a watcher with this selector gets for a change
// from old to new; either may be nil, for a create or a delete.
func (s selector) event(old, new runtime.Object) (watch.Event, bool) {
	was := old != nil && s.matches(old)
	is := new != nil && s.matches(new)
	switch {
	case is && was:
		return watch.Event{Type: watch.Modified, Object: new}, true
	case is:
		return watch.Event{Type: watch.Added, Object: new}, true
	case was:
		return watch.Event{Type: watch.Deleted, Object: old}, true
	default:
		return watch.Event{}, false
	}
}

// matches reports whether obj's labels and fields match; an object whose
// fields cannot be read matches no field selector.
func (s selector) matches(obj runtime.Object) bool {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if !s.labels.Matches(labels.Set(acc.GetLabels())) {
		return false
	}
	if s.fields.Empty() {
		return true
	}
	set := fields.Set{}
	var content map[string]any
	for _, r := range s.fields.Requirements() {
		switch r.Field {
		case "metadata.name":
			set[r.Field] = acc.GetName()
		case "metadata.namespace":
			set[r.Field] = acc.GetNamespace()
		default:
			if content == nil {
				if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
					return false
				}
			}
			set[r.Field] = fieldValue(content, r.Field)
		}
	}
	return s.fields.Matches(set)
}

// fieldValue returns the field at a dotted JSON path as a field selector
// compares it; "" when absent.
func fieldValue(content map[string]any, path string) string {
	v, found, err := unstructured.NestedFieldNoCopy(content, strings.Split(path, ".")...)
	if !found || err != nil || v == nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}
