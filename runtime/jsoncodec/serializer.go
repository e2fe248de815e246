package jsoncodec

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/ctrlgen/ctrlgen/runtime/wire"
)

// Kind is a Go type of API objects with its generated decoder.
type Kind struct {
	typ    reflect.Type // the struct type, not the pointer
	new    func() runtime.Object
	decode func(*Decoder, runtime.Object)
}

// NewKind pairs a type with its generated decode function.
func NewKind[T any, PT interface {
	*T
	runtime.Object
}](decode func(*Decoder, PT)) Kind {
	return Kind{
		typ:    reflect.TypeFor[T](),
		new:    func() runtime.Object { return PT(new(T)) },
		decode: func(d *Decoder, obj runtime.Object) { decode(d, obj.(PT)) },
	}
}

// watchEventKind decodes the envelope of every watch event.
var watchEventKind = NewKind(DecodeWatchEvent)

var (
	schemeKindsMu sync.Mutex
	schemeKinds   = map[*runtime.Scheme][]Kind{}
)

// Register adds kinds to those decoded for clients of scheme. Generated
// typed client packages register theirs when they are initialised, so
// that code holding only the clientset's scheme (the generated informers'
// watch path) decodes with them as the clients do.
func Register(scheme *runtime.Scheme, kinds ...Kind) {
	schemeKindsMu.Lock()
	defer schemeKindsMu.Unlock()
	schemeKinds[scheme] = append(slices.Clip(schemeKinds[scheme]), kinds...)
}

// Registered returns the kinds registered for scheme.
func Registered(scheme *runtime.Scheme) []Kind {
	schemeKindsMu.Lock()
	defer schemeKindsMu.Unlock()
	return slices.Clip(schemeKinds[scheme])
}

// Disabled reports whether CTRLGEN_JSON_DECODER=off turns the generated
// decoders off.
func Disabled() bool {
	return strings.EqualFold(os.Getenv("CTRLGEN_JSON_DECODER"), "off")
}

// NegotiatedSerializer returns inner with its JSON serializer (the one
// apimachinery's CodecFactory makes) decoding the kinds with their
// generated decoders, and the envelope of watch events too, and with
// wire.JSONFramer splitting JSON watch streams; everything else, encoding
// included, is inner's. scheme is the one inner's
// serializers use: it says which group, version and kind each type is.
//
// inner is returned as it is when it has no such JSON serializer or
// CTRLGEN_JSON_DECODER=off.
func NegotiatedSerializer(inner runtime.NegotiatedSerializer, scheme *runtime.Scheme, kinds ...Kind) runtime.NegotiatedSerializer {
	if Disabled() {
		return inner
	}
	infos := append([]runtime.SerializerInfo(nil), inner.SupportedMediaTypes()...)
	replaced := false
	for i, info := range infos {
		js, ok := info.Serializer.(*json.Serializer)
		if info.MediaType != runtime.ContentTypeJSON || !ok {
			continue
		}
		s := newSerializer(js, scheme, append(kinds, watchEventKind))
		infos[i].Serializer = s
		if info.StreamSerializer != nil {
			stream := *info.StreamSerializer
			if stream.Framer == json.Framer {
				stream.Framer = wire.JSONFramer
			}
			if sjs, ok := stream.Serializer.(*json.Serializer); ok {
				if sjs == js {
					stream.Serializer = s
				} else {
					stream.Serializer = newSerializer(sjs, scheme, append(kinds, watchEventKind))
				}
			}
			infos[i].StreamSerializer = &stream
		}
		replaced = true
	}
	if !replaced {
		return inner
	}
	return &negotiated{NegotiatedSerializer: inner, infos: infos}
}

type negotiated struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

func (n *negotiated) SupportedMediaTypes() []runtime.SerializerInfo { return n.infos }

// serializer is apimachinery's JSON serializer with a faster Decode for
// some kinds.
type serializer struct {
	*json.Serializer
	byType map[reflect.Type]registered
	byGVK  map[schema.GroupVersionKind]*Kind
}

// registered is a Kind with the group, version and kinds the scheme
// gives its type, looked up once instead of on every decode.
type registered struct {
	*Kind
	gvks []schema.GroupVersionKind
}

func newSerializer(js *json.Serializer, scheme *runtime.Scheme, kinds []Kind) *serializer {
	s := &serializer{
		Serializer: js,
		byType:     map[reflect.Type]registered{},
		byGVK:      map[schema.GroupVersionKind]*Kind{},
	}
	for i := range kinds {
		k := &kinds[i]
		gvks, _, err := scheme.ObjectKinds(k.new())
		if err != nil {
			continue // not in the scheme: apimachinery's serializer decodes it
		}
		s.byType[k.typ] = registered{k, gvks}
		for _, gvk := range gvks {
			s.byGVK[gvk] = k
		}
	}
	return s
}

// Decode is apimachinery's json.Serializer.Decode: same results, same
// errors. Objects of the registered kinds are decoded by their generated
// decoders; whenever one fails, or the document turns out to be of
// another kind, the target is restored and apimachinery's serializer
// decodes the document instead.
func (s *serializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	switch into.(type) {
	case nil:
		if obj, gvk, ok := s.decodeNew(data, defaults); ok {
			generated.Add(1)
			return obj, gvk, nil
		}
	case *runtime.Unknown, runtime.Unstructured:
	default:
		if k, ok := s.byType[reflect.TypeOf(into).Elem()]; ok {
			if gvk, ok := s.decodeInto(data, defaults, into, k); ok {
				generated.Add(1)
				return into, gvk, nil
			}
		}
	}
	delegated.Add(1)
	return s.Serializer.Decode(data, defaults, into)
}

var generated, delegated atomic.Uint64

// Decodes counts the documents the serializers of this package have
// decoded, since the process started: with generated code, and with
// apimachinery's serializer (other kinds, errors, documents of another
// kind than expected).
func Decodes() (byGeneratedCode, byApimachinery uint64) {
	return generated.Load(), delegated.Load()
}

// decodeNew decodes a document of a registered kind into a new object,
// as apimachinery's serializer does without a target: the type is the
// one the scheme registers for the document's group, version and kind.
func (s *serializer) decodeNew(data []byte, defaults *schema.GroupVersionKind) (runtime.Object, *schema.GroupVersionKind, bool) {
	d := NewDecoder(data)
	defer d.Release()
	apiVersion, kindName, ok := d.peek()
	if !ok {
		return nil, nil, false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, false
	}
	guess := gv.WithKind(kindName)
	if defaults != nil {
		guess = withDefaults(guess, *defaults)
	}
	k := s.byGVK[guess]
	if k == nil {
		return nil, nil, false
	}
	obj := k.new()
	d.top.on = true
	k.decode(d, obj)
	if d.End() != nil {
		return nil, nil, false
	}
	actual, ok := d.top.gvk()
	if !ok {
		return nil, nil, false
	}
	if defaults != nil {
		actual = withDefaults(actual, *defaults)
	}
	if actual.Kind == "" || actual.Version == "" || s.byGVK[actual] != k {
		return nil, nil, false
	}
	return obj, &actual, true
}

// decodeInto decodes a document into into, whose type is k's, as
// apimachinery's serializer does given a target; false (into restored)
// where that serializer would decode elsewhere or fail. Only an empty
// target (what a REST client passes) is decoded here: restoring one that
// holds data exactly (slices' spare capacity included) would need more
// than a deep copy.
func (s *serializer) decodeInto(data []byte, defaults *schema.GroupVersionKind, into runtime.Object, k registered) (*schema.GroupVersionKind, bool) {
	target := reflect.ValueOf(into).Elem()
	if !target.IsZero() {
		return nil, false
	}
	types := k.gvks
	d := NewDecoder(data)
	defer d.Release()
	d.top.on = true
	k.decode(d, into)
	actual, ok := d.top.gvk()
	if d.End() != nil || !ok {
		target.SetZero()
		return nil, false
	}
	if defaults != nil {
		actual = withDefaults(actual, *defaults)
	}
	actual = withDefaults(actual, types[0])
	if actual.Kind == "" || actual.Version == "" || !slices.Contains(types, actual) {
		target.SetZero()
		return nil, false
	}
	return &actual, true
}

// withDefaults fills what the document leaves out from def, as
// apimachinery's serializer does: the kind; group and version when both
// are missing; the version when the group is def's.
func withDefaults(actual, def schema.GroupVersionKind) schema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = def.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if actual.Version == "" && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

// DecodeGenerated decodes data into into with the generated decoder ns
// holds for into's type, and nothing else: no apiVersion or kind checks,
// no apimachinery serializer to fall back on. handled is false when ns
// has none. It is for tests that compare the generated decoders with
// apimachinery's.
func DecodeGenerated(ns runtime.NegotiatedSerializer, data []byte, into runtime.Object) (handled bool, err error) {
	n, ok := ns.(*negotiated)
	if !ok {
		return false, nil
	}
	for _, info := range n.infos {
		s, ok := info.Serializer.(*serializer)
		if !ok {
			continue
		}
		k, ok := s.byType[reflect.TypeOf(into).Elem()]
		if !ok {
			return false, nil
		}
		d := NewDecoder(data)
		defer d.Release()
		k.decode(d, into)
		return true, d.End()
	}
	return false, nil
}

var _ runtime.Serializer = &serializer{}

// The envelope of watch events, decoded by generated code too.
var _ = metav1.WatchEvent{}
