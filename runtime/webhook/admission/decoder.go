package admission

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
)

// NewDecoder decodes objects of T's kind as the clients of scheme do:
// with the generated decoder the kind's typed client package registers
// for scheme (jsoncodec.Register), apimachinery's JSON serializer for a
// kind without one. scheme must know T; a generated clientset's
// scheme.Scheme does.
func NewDecoder[T runtime.Object](scheme *runtime.Scheme) Decoder[T] {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("admission.NewDecoder: %s is not a pointer type", typ))
	}
	elem := typ.Elem()
	codecs := serializer.NewCodecFactory(scheme)
	ns := jsoncodec.NegotiatedSerializer(codecs.WithoutConversion(), scheme, jsoncodec.Registered(scheme)...)
	info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		panic("admission.NewDecoder: no JSON serializer")
	}
	dec := info.Serializer
	return func(data []byte) (T, error) {
		obj := reflect.New(elem).Interface().(T)
		out, _, err := dec.Decode(data, nil, obj)
		if err != nil {
			var zero T
			return zero, err
		}
		typed, ok := out.(T)
		if !ok {
			var zero T
			return zero, fmt.Errorf("decoded a %T, expected a %s", out, typ)
		}
		return typed, nil
	}
}

// marshalTree is obj as a JSON tree, read back as parseJSON reads.
func marshalTree(obj runtime.Object) (any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return parseJSON(data)
}
