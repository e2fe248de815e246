package wire

import (
	"bytes"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufMagic prefixes every object kube-apiserver encodes in protobuf.
var protobufMagic = []byte{'k', '8', 's', 0}

// protobufUnmarshaler is what apimachinery's protobuf serializer decodes
// into: every generated protobuf type.
type protobufUnmarshaler interface {
	Reset()
	Unmarshal([]byte) error
}

// protobufObjects decodes a watch's protobuf objects of one kind straight
// into a new T, without the copy of the whole object that apimachinery's
// protobuf serializer makes first (runtime.Unknown's Raw, about 1 KB per
// ConfigMap, and garbage as soon as it is decoded).
//
// It stands in for exactly one decoder chain, the one typed clients use:
// serializer.WithoutConversionCodecFactory's decoder
// (runtime.WithoutVersionDecoder) over *protobuf.Serializer. For an object
// the serializer creates the scheme's type for the envelope's apiVersion
// and kind, Resets it, Unmarshals the envelope's raw bytes into it and sets
// its kind, which WithoutVersionDecoder clears again. The kind is learnt
// from the first object the serializer decodes into a T; from then on an
// envelope of that apiVersion and kind, in the plain form the apiserver
// writes (fields 1 to 4 once each, no others), decodes into a new T the
// same way. Anything else (an ERROR event's Status, an unusual envelope)
// goes to the serializer.
//
// The event's bytes are the stream's read buffer, reused for the next
// event, where the serializer unmarshals a copy: so only types of
// k8s.io modules take this path, whose generated unmarshalers copy every
// string and byte slice; another type's Unmarshal might keep a slice of
// its input.
type protobufObjects[T runtime.Object] struct {
	elem             reflect.Type
	apiVersion, kind []byte
	learnt, possible bool
	// decoded counts the objects decoded here.
	decoded int
}

func newProtobufObjects[T runtime.Object](ns runtime.NegotiatedSerializer, info runtime.SerializerInfo) protobufObjects[T] {
	_, chain := ns.(serializer.WithoutConversionCodecFactory)
	_, pb := info.Serializer.(*protobuf.Serializer)
	t := reflect.TypeFor[T]()
	ok := chain && pb && t.Kind() == reflect.Pointer && t.Implements(reflect.TypeFor[protobufUnmarshaler]()) &&
		strings.HasPrefix(t.Elem().PkgPath(), "k8s.io/")
	p := protobufObjects[T]{possible: ok}
	if ok {
		p.elem = t.Elem()
	}
	return p
}

// decode decodes raw into a new T if it is an object of the learnt kind;
// ok is false when the serializer must decode it.
func (p *protobufObjects[T]) decode(raw []byte) (obj runtime.Object, ok bool, err error) {
	if !p.learnt {
		return nil, false, nil
	}
	apiVersion, kind, body, plain := protobufEnvelope(raw)
	if !plain || !bytes.Equal(apiVersion, p.apiVersion) || !bytes.Equal(kind, p.kind) {
		return nil, false, nil
	}
	v := reflect.New(p.elem).Interface()
	u := v.(protobufUnmarshaler)
	u.Reset()
	if err := u.Unmarshal(body); err != nil {
		return nil, true, err
	}
	p.decoded++
	obj = v.(runtime.Object)
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, true, nil
}

// learn records the kind of raw once the serializer has decoded it into a
// T.
func (p *protobufObjects[T]) learn(raw []byte, obj runtime.Object) {
	if p.learnt || !p.possible {
		return
	}
	if _, isT := obj.(T); !isT {
		return
	}
	apiVersion, kind, _, plain := protobufEnvelope(raw)
	if !plain || len(kind) == 0 || len(apiVersion) == 0 {
		return
	}
	p.apiVersion, p.kind = bytes.Clone(apiVersion), bytes.Clone(kind)
	p.learnt = true
}

// protobufEnvelope reads a protobuf-encoded runtime.Unknown after the
// magic prefix: typeMeta (1: apiVersion 1, kind 2), raw (2),
// contentEncoding (3), contentType (4). plain is false unless each field
// is length-delimited, appears at most once, and no other field does.
func protobufEnvelope(data []byte) (apiVersion, kind, raw []byte, plain bool) {
	if !bytes.HasPrefix(data, protobufMagic) {
		return nil, nil, nil, false
	}
	var seen [5]bool
	var typeMeta []byte
	if !protobufPlainFields(data[len(protobufMagic):], seen[:], func(field uint64, value []byte) {
		switch field {
		case 1:
			typeMeta = value
		case 2:
			raw = value
		}
	}) {
		return nil, nil, nil, false
	}
	var metaSeen [3]bool
	if !protobufPlainFields(typeMeta, metaSeen[:], func(field uint64, value []byte) {
		if field == 1 {
			apiVersion = value
		} else {
			kind = value
		}
	}) {
		return nil, nil, nil, false
	}
	return apiVersion, kind, raw, true
}

// protobufPlainFields calls f with each field of msg, and reports false
// for a field that is not length-delimited, is numbered 0 or len(seen) or
// more, or comes twice.
func protobufPlainFields(msg []byte, seen []bool, f func(field uint64, value []byte)) bool {
	for len(msg) > 0 {
		key, n := protobufVarint(msg)
		if n <= 0 {
			return false
		}
		msg = msg[n:]
		field, wire := key>>3, key&7
		if wire != 2 || field == 0 || field >= uint64(len(seen)) || seen[field] {
			return false
		}
		seen[field] = true
		l, n := protobufVarint(msg)
		if n <= 0 || l > uint64(len(msg)-n) {
			return false
		}
		f(field, msg[n:n+int(l)])
		msg = msg[n+int(l):]
	}
	return true
}
