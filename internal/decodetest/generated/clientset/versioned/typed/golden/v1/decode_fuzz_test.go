package v1

// Hand-written, next to the generated client (ctrlgen removes only files
// with its header): the differential test of the generated JSON decoders
// (zz_generated.jsondecode.go) against apimachinery's JSON serializer
// and sigs.k8s.io/json, on the golden types of internal/decodetest.

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/randfill"

	kjson "sigs.k8s.io/json"

	goldenv1 "github.com/ctrlgen/ctrlgen/internal/decodetest/apis/golden/v1"
	"github.com/ctrlgen/ctrlgen/internal/decodetest/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/runtime/jsoncodec"
)

// serializers are what a typed client decodes with: the generated
// decoders in front of apimachinery's (fast), and apimachinery's alone as
// client-gen's clients have it (reference).
type serializers struct {
	fast, reference runtime.NegotiatedSerializer
	// Decoders as the REST client gets them for responses, and the
	// stream serializers it decodes watch envelopes with.
	fastDec, refDec       runtime.Decoder
	fastStream, refStream runtime.Decoder
}

func newSerializers(t testing.TB) *serializers {
	var config rest.Config
	setConfigDefaults(&config)
	s := &serializers{
		fast:      config.NegotiatedSerializer,
		reference: rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion(),
	}
	s.fastDec, s.fastStream = jsonDecoders(t, s.fast)
	s.refDec, s.refStream = jsonDecoders(t, s.reference)
	return s
}

func jsonDecoders(t testing.TB, ns runtime.NegotiatedSerializer) (runtime.Decoder, runtime.Decoder) {
	info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	return ns.DecoderToVersion(info.Serializer, goldenv1.SchemeGroupVersion), info.StreamSerializer.Serializer
}

// kinds are the types the generated decoders decode, each with a way to
// get a fresh object and an object with data already in it (decoding
// into it merges, as encoding/json does).
var kinds = []struct {
	name      string
	new, full func() runtime.Object
}{
	{"Widget", func() runtime.Object { return &goldenv1.Widget{} }, func() runtime.Object { return fullWidget() }},
	{"WidgetList", func() runtime.Object { return &goldenv1.WidgetList{} }, func() runtime.Object {
		l := &goldenv1.WidgetList{Items: make([]goldenv1.Widget, 1, 3)}
		l.Items[0] = *fullWidget()
		l.Items[:3][2] = *fullWidget() // beyond the length: reused when the array grows into it
		l.ResourceVersion = "7"
		return l
	}},
	{"Gadget", func() runtime.Object { return &goldenv1.Gadget{} }, func() runtime.Object { return fullGadget() }},
	{"GadgetList", func() runtime.Object { return &goldenv1.GadgetList{} }, func() runtime.Object {
		return &goldenv1.GadgetList{Items: []goldenv1.Gadget{*fullGadget()}}
	}},
}

func fullWidget() *goldenv1.Widget {
	s, n := "set", int64(3)
	w := &goldenv1.Widget{
		TypeMeta:   metav1.TypeMeta{Kind: "Widget", APIVersion: "golden.ctrlgen.dev/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"keep": "me"}, Finalizers: make([]string, 1, 4)},
		Spec: goldenv1.WidgetSpec{
			S: "s", I: 1, PS: &s, PI: &n, PInner: &goldenv1.Inner{A: "a", N: 2},
			Labels: goldenv1.Labels{"a": "b"}, Names: goldenv1.Names{"x", "y"},
			M: map[string]int{"one": 1}, MP: map[string]*goldenv1.Inner{"p": {A: "p"}},
			L: []goldenv1.Inner{{A: "l0", N: 5}, {A: "l1"}}, LP: []*goldenv1.Inner{{A: "lp"}},
			Arr: [3]int32{1, 2, 3}, Bytes: []byte("bytes"), Quantity: resource.MustParse("1Gi"),
			Text: goldenv1.TextType{Upper: "KEEP"}, TextList: goldenv1.TextList{"t"},
		},
		Status: goldenv1.WidgetStatus{Tree: goldenv1.Node{Name: "root", Children: []goldenv1.Node{{Name: "c"}}}},
	}
	w.Finalizers[:4][1] = "stale"
	w.Spec.L = w.Spec.L[:1]
	return w
}

func fullGadget() *goldenv1.Gadget {
	var any interface{} = &goldenv1.Inner{A: "held"}
	return &goldenv1.Gadget{
		Spec:   goldenv1.Node{Name: "n", ByName: map[string]goldenv1.Node{"k": {Name: "v"}}},
		Status: goldenv1.Embeddings{Base: goldenv1.Base{BaseField: "b"}, PtrBase: &goldenv1.PtrBase{PtrField: "p"}, Top: "t"},
		Free: goldenv1.FreeForm{
			Any:    &goldenv1.Inner{A: "pointer in an interface"},
			AnyMap: map[string]interface{}{"keep": "me"},
			PAny:   &any,
		},
	}
}

// check decodes data every way a typed client can, with the generated
// decoders and without, and returns how the results differ.
func (s *serializers) check(data []byte) []string {
	var diffs []string
	report := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	for _, k := range kinds {
		for _, start := range []struct {
			name string
			new  func() runtime.Object
		}{{"empty", k.new}, {"full", k.full}} {
			// The generated decoder alone, against sigs.k8s.io/json.
			got, want := start.new(), start.new()
			handled, err := jsoncodec.DecodeGenerated(s.fast, data, got)
			if !handled {
				report("%s: no generated decoder", k.name)
				continue
			}
			wantErr := kjson.UnmarshalCaseSensitivePreserveInts(data, want)
			switch {
			case (err == nil) != (wantErr == nil):
				report("%s into %s object: generated decoder error %v, sigs.k8s.io/json's %v", k.name, start.name, err, wantErr)
			case err == nil && !reflect.DeepEqual(got, want):
				report("%s into %s object: generated decoder and sigs.k8s.io/json differ:\n%s", k.name, start.name, diff(got, want))
			}
			// The serializer a typed client decodes responses with.
			into, refInto := start.new(), start.new()
			obj, gvk, err := s.fastDec.Decode(data, nil, into)
			refObj, refGVK, refErr := s.refDec.Decode(data, nil, refInto)
			s.compare(report, fmt.Sprintf("%s into %s object", k.name, start.name), obj, gvk, err, refObj, refGVK, refErr)
			if !reflect.DeepEqual(into, refInto) {
				report("%s into %s object: the targets differ afterwards:\n%s", k.name, start.name, diff(into, refInto))
			}
		}
	}
	// Watch events: the object without a target.
	obj, gvk, err := s.fastDec.Decode(data, nil, nil)
	refObj, refGVK, refErr := s.refDec.Decode(data, nil, nil)
	s.compare(report, "without a target", obj, gvk, err, refObj, refGVK, refErr)
	// Watch events: the envelope.
	var ev, refEv metav1.WatchEvent
	obj, gvk, err = s.fastStream.Decode(data, nil, &ev)
	refObj, refGVK, refErr = s.refStream.Decode(data, nil, &refEv)
	s.compare(report, "watch event", obj, gvk, err, refObj, refGVK, refErr)
	return diffs
}

func (s *serializers) compare(report func(string, ...any), what string, obj runtime.Object, gvk any, err error, refObj runtime.Object, refGVK any, refErr error) {
	switch {
	case (err == nil) != (refErr == nil):
		report("%s: error %v, apimachinery's %v", what, err, refErr)
	case err != nil && err.Error() != refErr.Error():
		report("%s: error %q, apimachinery's %q", what, err, refErr)
	case !reflect.DeepEqual(obj, refObj):
		report("%s: objects differ:\n%s", what, diff(obj, refObj))
	case !reflect.DeepEqual(gvk, refGVK):
		report("%s: kind %v, apimachinery's %v", what, gvk, refGVK)
	}
}

// diff names the first place where got and want differ.
func diff(got, want any) string {
	if where := firstDiff(reflect.ValueOf(got), reflect.ValueOf(want), ""); where != "" {
		return where
	}
	return fmt.Sprintf("generated: %#v\nreference: %#v", got, want)
}

func firstDiff(a, b reflect.Value, path string) string {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return fmt.Sprintf("%s: %v, reference %v", path, a, b)
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v, reference nil %v", path, a.IsNil(), b.IsNil())
		}
		if a.IsNil() {
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v, reference nil %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d, reference %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: %v, reference %v", path, a, b)
		}
		for _, k := range a.MapKeys() {
			if d := firstDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if a.CanInterface() && !reflect.DeepEqual(a.Interface(), b.Interface()) || !a.CanInterface() && fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Sprintf("%s: %v, reference %v", path, a, b)
	}
	return ""
}

// seeds exercise each rule: documents for each kind, every field, values
// of every JSON type in every place, and malformed JSON.
func seeds() []string {
	widget := `{"apiVersion":"golden.ctrlgen.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u","resourceVersion":"5","generation":2,"creationTimestamp":"2024-01-02T03:04:05Z","deletionTimestamp":null,"deletionGracePeriodSeconds":30,"labels":{"a":"b","keep":null},"annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"ou","controller":true,"blockOwnerDeletion":false}],"finalizers":["f"],"managedFields":[{"manager":"m","operation":"Update","apiVersion":"golden.ctrlgen.dev/v1","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:s":{}}}}]},` +
		`"spec":{"s":"str","b":true,"i":-1,"i8":127,"i16":-32768,"i32":2147483647,"i64":-9223372036854775808,"u":1,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"uptr":7,"f32":1.5,"f64":-2.5e-300,"r":65,"by":9,` +
		`"ps":"p","pi":null,"pb":false,"pf":0.1,"pinner":{"a":"x","self":{"a":"y"}},"pmap":{"k":"v"},"pslice":[1,2],"pphase":"Running","pp":"pp","plabels":{"l":"m"},` +
		`"phase":"Pending","count":3,"ratio":0.5,"flag":true,"labels":{"z":"w"},"names":["a","b"],"arr":[1,2],"triple":[1,2,3,4],"byteArr":[1,2,3,4,5],"bytes":"aGVsbG8=","myBytes":"AAE=","byteElems":"AQI=","innerArr":[{"a":"0"}],"emptyArr":[1],"inner":{"a":"i","n":1},` +
		`"m":{"a":1,"b":-2},"mp":{"a":{"a":"x"},"n":null},"ms":{"a":["x"],"e":[]},"mm":{"a":{"b":true}},"intKeys":{"-5":"neg","+7":"plus"},"int8Keys":{"127":1},"uintKeys":{"255":true},"namedKey":{"Running":1},"textKeys":{"k":"v"},"floatKey":null,` +
		`"l":[{"a":"l"},{"n":2}],"lp":[null,{"a":"lp"}],"ll":[["a"],[],null],"lm":[{"a":"b"},null],` +
		`"time":"2024-01-02T03:04:05+02:00","ptime":"2024-01-02T03:04:05Z","microTime":"2024-01-02T03:04:05.123456Z","duration":"1m30s","quantity":"1500m","pquantity":"2Gi","intOrStr":"50%","pintOrStr":5,"raw":{"any":["json"]},` +
		`"selector":{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"k","operator":"In","values":["v"]}]},"conditions":[{"type":"Ready","status":"True","observedGeneration":1,"lastTransitionTime":"2024-01-02T03:04:05Z","reason":"R","message":"m"}],` +
		`"text":"hello","ptext":"ptr","textList":"a,b","jsonValue":[1,2],"pjsonValue":null,"both":{"x":1},"embedsTime":"2024-01-02T03:04:05Z","ambiguous":"amb","failing":{"ok":true},"quantities":{"cpu":"100m"},` +
		`"-":"dash","Dash":"no","Untagged":"u","oe":"o","q":"42","QuotedPtr":"7","qs":"\"quoted\"","qb":"true","qf":"1.25","qf32":"-0.5","qu":"65535","qps":"\"p\"","qphase":"\"Running\"","qslice":[1],"a\\b":"bad tag","with space":"s","ünï":"u","case":"lower","Case":"upper","unexported":"x"},` +
		`"status":{"tree":{"name":"root","children":[{"name":"c","children":[]}],"next":{"name":"n"},"byName":{"k":{"name":"v"}}},"trees":[]}}`
	gadget := `{"kind":"Gadget","apiVersion":"golden.ctrlgen.dev/v1","metadata":{"name":"g"},"spec":{"name":"n"},"status":{"baseField":"b","Shared":"s","ptrField":"p","ptrCount":3,"named":{"x":"y"},"Same":"cancelled","Tagged":"t","deepField":"d","top":"top","Shadowed":"sh","BaseField":"case"},"other":{"ptrCount":null},"meta":{"inside":"i","visible":"v"},"free":{"any":{"a":[1,1.5,-0,1e2,"s",true,null,{}]},"anyMap":{"n":9007199254740993,"f":1.0,"big":1e400},"anySlice":[],"pany":"x","err":null,"stringer":null,"named":{"a":"n"}},"odd":{"value":"12"}}`
	list := `{"apiVersion":"golden.ctrlgen.dev/v1","items":[` + widget + `,{"spec":{"s":"second"}}],"kind":"WidgetList","metadata":{"resourceVersion":"9","continue":"c","remainingItemCount":3}}`
	out := []string{
		widget, gadget, list,
		`{"apiVersion":"golden.ctrlgen.dev/v1","items":[` + gadget + `],"kind":"GadgetList","metadata":{}}`,
		`{"type":"ADDED","object":` + widget + `}`,
		`{"type":"MODIFIED","object":` + gadget + `}`,
		`{"type":"BOOKMARK","object":{"kind":"Widget","apiVersion":"golden.ctrlgen.dev/v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}}`,
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not found","reason":"NotFound","code":404}`,
		// apiVersion and kind as SimpleMetaFactory.Interpret reads them.
		`{"apiVersion":"golden.ctrlgen.dev/v1","kind":"Gadget","spec":{"name":"kind says gadget"}}`,
		`{"KIND":"Widget","apiversion":"golden.ctrlgen.dev/v1","spec":{"s":"folded keys"}}`,
		`{"apiVersion":"golden.ctrlgen.dev/v1","kind":"Widget","kind":"Gadget"}`,
		`{"apiVersion":"golden.ctrlgen.dev/v1","kind":"Widget","\u212aind":"Gadget"}`,
		`{"apiVersion":"golden.ctrlgen.dev/v1","kind":"Widget","Kind":null}`,
		`{"apiVersion":"golden.ctrlgen.dev/v1","kind":5}`,
		`{"apiVersion":"a/b/c","kind":"Widget"}`,
		`{"apiVersion":"v1","kind":"Widget"}`,
		`{"apiVersion":"golden.ctrlgen.dev/","kind":"Widget"}`,
		`{"apiVersion":"golden.ctrlgen.dev/v2","kind":"Widget"}`,
		`{"kind":"Widget"}`, `{"apiVersion":"golden.ctrlgen.dev/v1"}`, `{}`, `null`, `[]`, `"s"`, `5`, ``, `{"kind":"Widget","apiVersion":"golden.ctrlgen.dev/v1"} x`,
		`{"kind":"Widget","apiVersion":"golden.ctrlgen.dev/v1","metadata":{"name":"a","name":"b","labels":{"a":"1"},"labels":{"b":"2"}}}`,
		// null into everything.
		`{"kind":"Widget","apiVersion":"golden.ctrlgen.dev/v1","metadata":null,"spec":{"s":null,"i":null,"ps":null,"pinner":null,"labels":null,"names":null,"arr":null,"bytes":null,"m":null,"l":null,"time":null,"ptime":null,"quantity":null,"pquantity":null,"intOrStr":null,"raw":null,"text":null,"ptext":null,"textList":null,"jsonValue":null,"both":null,"embedsTime":null,"q":null,"QuotedPtr":null,"qs":null,"qps":"null"},"status":null}`,
		// Values of the wrong type.
		`{"kind":"Widget","spec":{"i":1.5}}`, `{"kind":"Widget","spec":{"i":1e2}}`, `{"kind":"Widget","spec":{"i8":128}}`, `{"kind":"Widget","spec":{"u":-1}}`, `{"kind":"Widget","spec":{"u8":-0}}`,
		`{"kind":"Widget","spec":{"f32":3.5e38}}`, `{"kind":"Widget","spec":{"f64":1e400}}`, `{"kind":"Widget","spec":{"s":1}}`, `{"kind":"Widget","spec":{"b":"true"}}`,
		`{"kind":"Widget","spec":{"labels":[]}}`, `{"kind":"Widget","spec":{"names":{}}}`, `{"kind":"Widget","spec":{"inner":[1]}}`, `{"kind":"Widget","spec":{"bytes":"!!"}}`,
		`{"kind":"Widget","spec":{"intKeys":{"x":"y"}}}`, `{"kind":"Widget","spec":{"floatKey":{"1.5":"x"}}}`, `{"kind":"Widget","spec":{"floatKey":{}}}`, `{"kind":"Widget","spec":{"int8Keys":{"128":1}}}`, `{"kind":"Widget","spec":{"uintKeys":{"-1":true}}}`,
		`{"kind":"Widget","spec":{"text":5}}`, `{"kind":"Widget","spec":{"text":"bang!"}}`, `{"kind":"Widget","spec":{"text":{}}}`, `{"kind":"Widget","spec":{"failing":[1]}}`,
		`{"kind":"Widget","spec":{"time":"yesterday"}}`, `{"kind":"Widget","spec":{"quantity":"1x"}}`, `{"kind":"Widget","spec":{"intOrStr":[]}}`,
		`{"kind":"Widget","spec":{"q":42}}`, `{"kind":"Widget","spec":{"q":"4.2"}}`, `{"kind":"Widget","spec":{"q":"x"}}`, `{"kind":"Widget","spec":{"q":""}}`, `{"kind":"Widget","spec":{"q":"nul"}}`,
		`{"kind":"Widget","spec":{"qs":"plain"}}`, `{"kind":"Widget","spec":{"qs":"\"\\'\""}}`, `{"kind":"Widget","spec":{"qb":"1"}}`, `{"kind":"Widget","spec":{"qf":"-Inf"}}`, `{"kind":"Widget","spec":{"qf":"1_0"}}`,
		`{"kind":"Widget","spec":{"qf32":"1e39"}}`, `{"kind":"Widget","spec":{"QuotedPtr":"null"}}`, `{"kind":"Widget","spec":{"qps":"nope"}}`, `{"kind":"Widget","spec":{"q":[1]}}`, `{"kind":"Widget","spec":{"q":true}}`,
		`{"kind":"Gadget","free":{"err":"x"}}`, `{"kind":"Gadget","free":{"named":[]}}`, `{"kind":"Gadget","meta":{"inside":5}}`, `{"kind":"Gadget","odd":{"value":5}}`,
		// Strings.
		`{"kind":"Widget","spec":{"s":"\u00e9\ud83d\ude00\ud800\udc00x\ud800"}}`, "{\"kind\":\"Widget\",\"spec\":{\"s\":\"\xff\xfe invalid \xc3\"}}", `{"kind":"Widget","spec":{"s":"\"\\\/\b\f\n\r\t"}}`,
		"{\"kind\":\"Widget\",\"spec\":{\"s\":\"\x01\"}}", `{"kind":"Widget","spec":{"s":"\x"}}`, `{"kind":"Wid\u0067et","sp\u0065c":{"\u0073":"escaped key"}}`,
		// Syntax.
		`{"kind":"Widget",}`, `{"kind":"Widget" "spec":{}}`, `{"kind":"Widget","spec":{"l":[{},]}}`, `{"kind":"Widget","spec":{"x":[1,2}}`, `{"kind":"Widget","spec":{"i":01}}`, `{"kind":"Widget","spec":{"unknown":tru}}`,
		`{"kind":"Widget","spec":{"unknown":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}}`,
		`{"kind":"Widget","spec":{"unknown":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}}`,
		`{"kind":"Gadget","free":{"any":` + strings.Repeat(`{"a":`, 9998) + `1` + strings.Repeat("}", 9998) + `}}`,
	}
	return out
}

func FuzzDecode(f *testing.F) {
	s := newSerializers(f)
	for _, seed := range seeds() {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if diffs := s.check(data); len(diffs) > 0 {
			t.Errorf("%q:\n%s", data, strings.Join(diffs, "\n"))
		}
	})
}

// TestRandomObjects decodes random objects of every golden kind, encoded
// by encoding/json, with and without the generated decoders.
func TestRandomObjects(t *testing.T) {
	s := newSerializers(t)
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	filler := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), codecs).Funcs(
		func(f *goldenv1.FreeForm, c randfill.Continue) {
			*f = goldenv1.FreeForm{}
			if c.Bool() {
				f.Any = map[string]interface{}{"s": c.String(0), "n": c.Int63(), "f": c.Float64(), "l": []interface{}{c.Bool(), nil}}
			}
			if c.Bool() {
				f.AnySlice = []interface{}{c.String(0), float64(c.Int31()) + 0.5}
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			*r = runtime.RawExtension{}
			if c.Bool() {
				r.Raw = []byte(fmt.Sprintf(`{"n":%d}`, c.Int31()))
			}
		},
	).NilChance(0.2).NumElements(0, 3).MaxDepth(6)
	for i := 0; i < 150; i++ {
		for _, k := range kinds {
			obj := k.new()
			filler.Fill(obj)
			data, err := json.Marshal(obj)
			if err != nil {
				continue // a value encoding/json cannot write (a Quantity out of range)
			}
			if diffs := s.check(data); len(diffs) > 0 {
				t.Fatalf("%s %d: %s\n%s", k.name, i, data, strings.Join(diffs, "\n"))
			}
		}
	}
}

// TestCorpusIsCommitted keeps the seed corpus where go test -fuzz adds to
// it.
func TestCorpusIsCommitted(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzDecode"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no committed corpus in testdata/fuzz/FuzzDecode: %v", err)
	}
}
