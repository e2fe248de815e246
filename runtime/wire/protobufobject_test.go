package wire

import (
	"bytes"
	"context"
	"io"
	"testing"
	"testing/iotest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestProtobufObjectsDecodeWithoutTheSerializer: once the first object
// has told the kind, every later ConfigMap of a protobuf watch is decoded
// straight into a new ConfigMap (TestBodyStreamDecodesAsClientGo checks
// that the events are client-go's); the ERROR event's Status is not.
func TestProtobufObjectsDecodeWithoutTheSerializer(t *testing.T) {
	events := watchFixtureEvents()
	body := encodeWatch(t, runtime.ContentTypeProtobuf, events)
	want := clientGoEvents(t, runtime.ContentTypeProtobuf, body)
	r := iotest.OneByteReader(bytes.NewReader(body))
	s := newStream[*corev1.ConfigMap](context.Background(), io.NopCloser(r), codecs)
	defer s.Stop()
	var got []streamed
	for {
		typ, obj, err := s.Next()
		if err == io.EOF {
			break
		}
		got = append(got, streamed{typ, obj, err})
		if err != nil {
			break
		}
	}
	sameEvents(t, got, want)
	// All but the first (which tells the kind) and the ERROR event.
	if wantDirect := len(events) - 2; s.objects.decoded != wantDirect {
		t.Errorf("%d objects decoded without the serializer, want %d", s.objects.decoded, wantDirect)
	}
}

// TestProtobufEnvelopeTakesOnlyThePlainForm: an envelope with a field
// repeated, an unknown field, a field that is not length-delimited, or no
// magic prefix is left to apimachinery's serializer, whose handling of
// those is its own.
func TestProtobufEnvelopeTakesOnlyThePlainForm(t *testing.T) {
	field := func(n int, value []byte) []byte {
		b := []byte{byte(n<<3 | 2), byte(len(value))}
		return append(b, value...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	typeMeta := cat(field(1, []byte("v1")), field(2, []byte("ConfigMap")))
	raw := []byte{0x0a, 0x00}
	plain := cat(protobufMagic, field(1, typeMeta), field(2, raw), field(3, nil), field(4, nil))
	apiVersion, kind, body, ok := protobufEnvelope(plain)
	if !ok || string(apiVersion) != "v1" || string(kind) != "ConfigMap" || !bytes.Equal(body, raw) {
		t.Fatalf("plain envelope: %q %q %x %v", apiVersion, kind, body, ok)
	}
	for name, data := range map[string][]byte{
		"no magic":           cat(field(1, typeMeta), field(2, raw)),
		"raw twice":          cat(protobufMagic, field(1, typeMeta), field(2, raw), field(2, raw)),
		"typeMeta twice":     cat(protobufMagic, field(1, typeMeta), field(1, typeMeta), field(2, raw)),
		"kind twice":         cat(protobufMagic, field(1, cat(typeMeta, field(2, []byte("Secret")))), field(2, raw)),
		"unknown field":      cat(protobufMagic, field(1, typeMeta), field(2, raw), field(5, nil)),
		"varint field":       cat(protobufMagic, field(1, typeMeta), field(2, raw), []byte{3 << 3, 1}),
		"truncated":          cat(protobufMagic, field(1, typeMeta), field(2, raw))[:10],
		"field 0":            cat(protobufMagic, []byte{0<<3 | 2, 0}),
		"unknown meta field": cat(protobufMagic, field(1, cat(typeMeta, field(3, nil))), field(2, raw)),
	} {
		if _, _, _, ok := protobufEnvelope(data); ok {
			t.Errorf("%s: taken as plain", name)
		}
	}

	p := newProtobufObjects[*corev1.ConfigMap](codecs, streamInfo(t, runtime.ContentTypeProtobuf))
	p.learn(plain, &corev1.ConfigMap{})
	if obj, ok, err := p.decode(cat(protobufMagic, field(1, typeMeta), field(2, raw), field(2, raw))); ok || obj != nil || err != nil {
		t.Errorf("an envelope with raw twice decoded here: %v %v %v", obj, ok, err)
	}
	if _, ok, err := p.decode(plain); !ok || err != nil {
		t.Errorf("the plain envelope not decoded here: %v %v", ok, err)
	}
	other := cat(protobufMagic, field(1, cat(field(1, []byte("v1")), field(2, []byte("Secret")))), field(2, raw))
	if _, ok, _ := p.decode(other); ok {
		t.Error("a Secret decoded here as a ConfigMap")
	}
}

// localConfigMap has ConfigMap's generated unmarshaler but lives outside
// the k8s.io modules, whose unmarshalers are known to copy what they keep.
type localConfigMap struct{ corev1.ConfigMap }

// TestProtobufObjectsOnlyForKubernetesTypes: a type of another module
// always goes through the serializer, which unmarshals a copy.
func TestProtobufObjectsOnlyForKubernetesTypes(t *testing.T) {
	info := streamInfo(t, runtime.ContentTypeProtobuf)
	if p := newProtobufObjects[*localConfigMap](codecs, info); p.possible {
		t.Error("a type outside k8s.io takes the direct path")
	}
	if p := newProtobufObjects[*corev1.ConfigMap](codecs, info); !p.possible {
		t.Error("corev1.ConfigMap does not take the direct path")
	}
	if p := newProtobufObjects[*corev1.ConfigMap](struct{ runtime.NegotiatedSerializer }{codecs}, info); p.possible {
		t.Error("a serializer other than WithoutConversionCodecFactory takes the direct path")
	}
}
