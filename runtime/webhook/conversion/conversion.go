// Package conversion serves a CustomResourceDefinition's conversion
// webhook (/convert): the apiserver sends a ConversionReview with objects
// of one version and the version it wants, and gets them back converted.
//
// Versions convert through a hub, as controller-runtime's
// webhook/conversion does and with its names: the hub (the storage
// version) implements Hub, every other version Convertible, converting
// to and from the hub. A spoke is converted to another spoke through the
// hub; an object already in the wanted version is returned as it came.
// ctrlgen generates these methods for the fields two versions share, and
// the differences call functions the user writes.
//
// A malformed review is answered 400 with what is wrong; an object that
// does not decode or convert fails the review with that error (the
// apiserver then fails the request that needed it); a panic in a
// conversion is logged and answered with a generic message.
package conversion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/ctrlgen/ctrlgen/runtime/conversion"
	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
	"github.com/ctrlgen/ctrlgen/runtime/webhook/internal/review"
)

// Hub is the version every other converts to and from; API packages
// implement it from runtime/conversion, which this is.
type Hub = conversion.Hub

// Convertible is a version other than the hub (runtime/conversion's).
type Convertible = conversion.Convertible

// Webhook converts the kinds a scheme knows: an http.Handler.
type Webhook struct {
	scheme  *runtime.Scheme
	decoder runtime.Decoder

	mu   sync.Mutex
	hubs map[schema.GroupKind]reflect.Type
}

// NewWebhook converts the kinds scheme registers, decoding them as the
// clients of scheme do (with the generated decoders their typed client
// packages register, see jsoncodec.Register).
func NewWebhook(scheme *runtime.Scheme) *Webhook {
	codecs := serializer.NewCodecFactory(scheme)
	ns := jsoncodec.NegotiatedSerializer(codecs.WithoutConversion(), scheme, jsoncodec.Registered(scheme)...)
	info, _ := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
	return &Webhook{scheme: scheme, decoder: info.Serializer, hubs: map[schema.GroupKind]reflect.Type{}}
}

// ServeHTTP answers one ConversionReview.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	review.Serve(w, r, func(ctx context.Context, body []byte) ([]byte, error) {
		req, err := decodeReview(body)
		if err != nil {
			return nil, err
		}
		resp := response{uid: req.uid}
		desired, err := schema.ParseGroupVersion(req.desiredAPIVersion)
		if err != nil {
			resp.err = fmt.Errorf("desiredAPIVersion %q: %w", req.desiredAPIVersion, err)
			return resp.encode(req.apiVersion), nil
		}
		resp.objects = make([][]byte, 0, len(req.objects))
		for i, raw := range req.objects {
			var out []byte
			err := review.Guard(ctx, "conversion to "+req.desiredAPIVersion, func() error {
				var err error
				out, err = wh.convert(raw, desired)
				return err
			})
			if err != nil {
				resp.err = fmt.Errorf("object %d: %w", i, err)
				resp.objects = nil
				break
			}
			resp.objects = append(resp.objects, out)
		}
		return resp.encode(req.apiVersion), nil
	})
}

// convert converts one object to the version desired.
func (wh *Webhook) convert(raw []byte, desired schema.GroupVersion) ([]byte, error) {
	from, err := peekGVK(raw)
	if err != nil {
		return nil, err
	}
	if from.GroupVersion() == desired {
		return raw, nil
	}
	if from.Group != desired.Group {
		return nil, fmt.Errorf("%s cannot convert to group %q", from, desired.Group)
	}
	to := desired.WithKind(from.Kind)
	src, err := wh.newObject(from)
	if err != nil {
		return nil, err
	}
	if _, _, err := wh.decoder.Decode(raw, nil, src); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", from, err)
	}
	dst, err := wh.newObject(to)
	if err != nil {
		return nil, err
	}
	if err := wh.convertObject(src, dst, from.GroupKind()); err != nil {
		return nil, fmt.Errorf("converting %s to %s: %w", from, to.GroupVersion(), err)
	}
	dst.GetObjectKind().SetGroupVersionKind(to)
	return json.Marshal(dst)
}

func (wh *Webhook) newObject(gvk schema.GroupVersionKind) (runtime.Object, error) {
	obj, err := wh.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s is not a kind this webhook converts", gvk)
	}
	return obj, nil
}

func (wh *Webhook) convertObject(src, dst runtime.Object, gk schema.GroupKind) error {
	srcHub, srcIsHub := src.(Hub)
	dstHub, dstIsHub := dst.(Hub)
	switch {
	case srcIsHub && dstIsHub:
		return fmt.Errorf("two hubs: %T and %T", src, dst)
	case srcIsHub:
		spoke, ok := asConvertible(dst)
		if !ok {
			return fmt.Errorf("%T is neither a Hub nor Convertible", dst)
		}
		return spoke.ConvertFrom(srcHub)
	case dstIsHub:
		spoke, ok := asConvertible(src)
		if !ok {
			return fmt.Errorf("%T is neither a Hub nor Convertible", src)
		}
		return spoke.ConvertTo(dstHub)
	}
	srcSpoke, ok1 := asConvertible(src)
	dstSpoke, ok2 := asConvertible(dst)
	if !ok1 || !ok2 {
		return fmt.Errorf("%T and %T are not both Convertible", src, dst)
	}
	hub, err := wh.hub(gk)
	if err != nil {
		return err
	}
	if err := srcSpoke.ConvertTo(hub); err != nil {
		return err
	}
	return dstSpoke.ConvertFrom(hub)
}

// asConvertible returns obj as a Convertible: itself, or, for a type
// whose ConvertTo and ConvertFrom take another package's Hub interface
// (controller-runtime's pkg/conversion, as kubebuilder projects write
// them), an adapter that calls them with the hub when the hub implements
// that interface.
func asConvertible(obj runtime.Object) (Convertible, bool) {
	if c, ok := obj.(Convertible); ok {
		return c, true
	}
	v := reflect.ValueOf(obj)
	m := foreignMethodsOf(v.Type())
	if !m.ok {
		return nil, false
	}
	return foreignConvertible{obj, v.Method(m.to), v.Method(m.from)}, true
}

// foreignMethods are the indexes of a type's ConvertTo and ConvertFrom
// taking another package's Hub; ok is false for a type without them.
type foreignMethods struct {
	to, from int
	ok       bool
}

// foreignMethodsByType caches foreignMethodsOf: it is asked for every
// object converted.
var foreignMethodsByType sync.Map // reflect.Type → foreignMethods

func foreignMethodsOf(t reflect.Type) foreignMethods {
	if m, ok := foreignMethodsByType.Load(t); ok {
		return m.(foreignMethods)
	}
	var m foreignMethods
	to, okTo := t.MethodByName("ConvertTo")
	from, okFrom := t.MethodByName("ConvertFrom")
	if okTo && okFrom && takesHub(to.Type) && takesHub(from.Type) {
		m = foreignMethods{to: to.Index, from: from.Index, ok: true}
	}
	foreignMethodsByType.Store(t, m)
	return m
}

var errorType = reflect.TypeFor[error]()

// takesHub reports whether a method's type, receiver first, is
// func(<receiver>, <interface>) error.
func takesHub(t reflect.Type) bool {
	return t.NumIn() == 2 && t.In(1).Kind() == reflect.Interface && t.NumOut() == 1 && t.Out(0) == errorType
}

// foreignConvertible calls ConvertTo and ConvertFrom methods declared
// with another package's Hub interface.
type foreignConvertible struct {
	runtime.Object
	to, from reflect.Value
}

func (c foreignConvertible) ConvertTo(hub Hub) error   { return call(c.to, hub) }
func (c foreignConvertible) ConvertFrom(hub Hub) error { return call(c.from, hub) }

func call(method reflect.Value, hub Hub) error {
	h := reflect.ValueOf(hub)
	if want := method.Type().In(0); !h.Type().Implements(want) {
		return fmt.Errorf("hub %T does not implement %s, which its spoke's conversion methods take", hub, want)
	}
	err, _ := method.Call([]reflect.Value{h})[0].Interface().(error)
	return err
}

// hub is a new object of gk's hub version.
func (wh *Webhook) hub(gk schema.GroupKind) (Hub, error) {
	wh.mu.Lock()
	typ, ok := wh.hubs[gk]
	if !ok {
		for gvk, t := range wh.scheme.AllKnownTypes() {
			if gvk.GroupKind() != gk || !reflect.PointerTo(t).Implements(reflect.TypeFor[Hub]()) {
				continue
			}
			if typ != nil && typ != t {
				wh.mu.Unlock()
				return nil, fmt.Errorf("%s has two hubs: %s and %s", gk, typ, t)
			}
			typ = t
		}
		wh.hubs[gk] = typ
	}
	wh.mu.Unlock()
	if typ == nil {
		return nil, fmt.Errorf("%s has no hub: no version implements conversion.Hub", gk)
	}
	return reflect.New(typ).Interface().(Hub), nil
}

// peekGVK reads an object's apiVersion and kind.
func peekGVK(raw []byte) (schema.GroupVersionKind, error) {
	d := jsoncodec.NewDecoder(raw)
	defer d.Release()
	var apiVersion, kind string
	if !d.Object() {
		return schema.GroupVersionKind{}, fmt.Errorf("an object is a JSON object: %v", d.Err())
	}
	for key, ok := d.Key(); ok; key, ok = d.Key() {
		switch string(key) {
		case "apiVersion":
			jsoncodec.String(d, &apiVersion)
		case "kind":
			jsoncodec.String(d, &kind)
		default:
			d.Skip()
		}
	}
	if err := d.End(); err != nil {
		return schema.GroupVersionKind{}, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || apiVersion == "" || kind == "" {
		return schema.GroupVersionKind{}, fmt.Errorf("object without a valid apiVersion and kind (%q, %q)", apiVersion, kind)
	}
	return gv.WithKind(kind), nil
}
