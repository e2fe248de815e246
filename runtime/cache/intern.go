package cache

import (
	"bytes"
	"hash/maphash"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Interner makes the repeated metadata of the objects an informer caches
// share memory. A decoder allocates every string and byte slice of every
// object anew, so 100k objects in one namespace hold 100k copies of the
// namespace's name, of each label key, of their managers' names and of
// the managedFields' FieldsV1 JSON, which are often identical from one
// object to the next (a quarter of a cached ConfigMap's heap in
// bench/scale). Intern replaces such values by an equal one it has seen
// before. The same goes for managedFields' FieldsV1 and time, which a
// decoder allocates on their own: objects written by one manager within
// one second have equal ones.
//
// What it rewrites stays equal (== for strings and times, bytes.Equal for
// FieldsV1), so handlers and listers see objects deep-equal to what the
// decoder gave. FieldsV1 and managedFields' times become shared between
// objects, which is safe as long as nobody mutates a cached object in place,
// which client-go's informer contract forbids anyway (decoding into a
// cached object would now write into every object that shares the value).
// FieldsV1's shared bytes have no spare capacity, so appending to them
// copies. Like any transform that edits in place
// (client-go allows that), it writes into the object it is given, which
// must be the informer's own: client-go's fake tracker hands watchers its
// stored objects for what it created between an informer's list and watch,
// and a test reading them through the fake at that moment races with it.
//
// It remembers a bounded number of values, in a table of 4-way sets (a new
// value pushes the least recently added of its set out), so a value seen
// once costs a hash and nothing more, and one hot value displaces another
// only when five of them share a set. It is not safe for concurrent use: an
// informer's DeltaFIFO calls it under its lock.
type Interner struct {
	seed    maphash.Seed
	strings [internSets][internWays]string
	fields  [internPointerSets][internWays]*metav1.FieldsV1
	times   [internPointerSets][internWays]*metav1.Time
}

const (
	internWays        = 4
	internSets        = 1024 // a power of two
	internPointerSets = 256  // a power of two: FieldsV1 and managedFields times
	// maxInternedValue is the longest label or annotation value interned:
	// longer ones (last-applied-configuration, checksums) are rarely shared.
	maxInternedValue = 64
)

// NewInterner returns an empty Interner.
func NewInterner() *Interner { return &Interner{seed: maphash.MakeSeed()} }

// Intern rewrites obj's metadata in place: the namespace, label keys and
// short values, annotation keys and short values, finalizers, owner
// references' apiVersion, kind and name, and managedFields' manager,
// operation, apiVersion, fieldsType, subresource, FieldsV1 and time. Names,
// UIDs and resourceVersions, unique to each object, are left alone.
func (in *Interner) Intern(obj metav1.Object) {
	if ns := obj.GetNamespace(); ns != "" {
		if s := in.str(ns); !same(s, ns) {
			obj.SetNamespace(s)
		}
	}
	in.stringMap(obj.GetLabels())
	in.stringMap(obj.GetAnnotations())
	finalizers := obj.GetFinalizers()
	for i := range finalizers {
		finalizers[i] = in.str(finalizers[i])
	}
	refs := obj.GetOwnerReferences()
	for i := range refs {
		r := &refs[i]
		r.APIVersion, r.Kind, r.Name = in.str(r.APIVersion), in.str(r.Kind), in.str(r.Name)
	}
	fields := obj.GetManagedFields()
	for i := range fields {
		f := &fields[i]
		f.Manager = in.str(f.Manager)
		f.Operation = metav1.ManagedFieldsOperationType(in.str(string(f.Operation)))
		f.APIVersion = in.str(f.APIVersion)
		f.FieldsType = in.str(f.FieldsType)
		f.Subresource = in.str(f.Subresource)
		if f.FieldsV1 != nil && len(f.FieldsV1.Raw) > 0 {
			f.FieldsV1 = in.fieldsV1(f.FieldsV1)
		}
		if f.Time != nil {
			f.Time = in.time(f.Time)
		}
	}
}

// stringMap interns m's keys, and its values up to maxInternedValue bytes,
// in place. Assigning to a key that is present replaces the stored key by
// the one assigned (Go maps update string keys), and adds no entry.
func (in *Interner) stringMap(m map[string]string) {
	for k, v := range m {
		ik, iv := in.str(k), v
		if len(v) <= maxInternedValue {
			iv = in.str(v)
		}
		if !same(ik, k) || !same(iv, v) {
			m[ik] = iv
		}
	}
}

// str returns the remembered string equal to s, or remembers s.
func (in *Interner) str(s string) string {
	if s == "" {
		return s
	}
	set := &in.strings[maphash.String(in.seed, s)&(internSets-1)]
	for _, t := range set {
		if t == s {
			return t
		}
	}
	copy(set[1:], set[:internWays-1])
	set[0] = s
	return s
}

// fieldsV1 returns the remembered FieldsV1 whose bytes equal f's, or
// remembers f, without its bytes' spare capacity.
func (in *Interner) fieldsV1(f *metav1.FieldsV1) *metav1.FieldsV1 {
	set := &in.fields[maphash.Bytes(in.seed, f.Raw)&(internPointerSets-1)]
	for _, r := range set {
		if r == f || r != nil && bytes.Equal(r.Raw, f.Raw) {
			return r
		}
	}
	f.Raw = f.Raw[:len(f.Raw):len(f.Raw)]
	copy(set[1:], set[:internWays-1])
	set[0] = f
	return f
}

// time returns the remembered time equal to t (==, location included), or
// remembers t.
func (in *Interner) time(t *metav1.Time) *metav1.Time {
	set := &in.times[maphash.Comparable(in.seed, t.Time)&(internPointerSets-1)]
	for _, r := range set {
		if r == t || r != nil && r.Time == t.Time {
			return r
		}
	}
	copy(set[1:], set[:internWays-1])
	set[0] = t
	return t
}

// same reports whether a and b are the same bytes in memory.
func same(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}
