package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v2"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// reference is how sigs.k8s.io/yaml writes c, and so controller-gen: JSON,
// decoded with numbers kept, marshalled by go.yaml.in/yaml/v2.
func reference(t *testing.T, c *model.CRD) []byte {
	t.Helper()
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var obj any
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	y, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(gen.YAMLHeader+"\n---\n"), y...)
}

// TestMarshalIsYAMLv2s fills every field of random CRDs, the schema's
// included (by reflection, so that a field added to the model is
// covered), with values chosen to reach every scalar style, key order and
// line folding of the YAML emitter, and checks that Marshal writes the
// bytes sigs.k8s.io/yaml writes.
func TestMarshalIsYAMLv2s(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		c := &model.CRD{}
		fill(r, reflect.ValueOf(c).Elem(), 0)
		got, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, c); !bytes.Equal(got, want) {
			t.Fatalf("CRD %d: Marshal differs from sigs.k8s.io/yaml's\n%s", i, lineDiff(string(want), string(got)))
		}
	}
}

// TestMarshalStrings checks each tricky string on its own, as a value, a
// key and a list item, at several indents.
func TestMarshalStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var all []string
	all = append(all, pieces...)
	for range 5000 {
		all = append(all, randomString(r))
	}
	for _, s := range all {
		c := &model.CRD{APIVersion: s, Kind: "K", Metadata: model.CRDMetadata{Name: s, Labels: map[string]string{s: s, "a": s}},
			Spec: model.CRDSpec{Names: model.CRDNames{ShortNames: []string{s, s + s}}, Versions: []model.CRDVersion{{Name: s,
				Schema: &model.CRDValidation{OpenAPIV3Schema: &model.Schema{Description: s, Properties: map[string]*model.Schema{s: {Description: s, Pattern: s}}}}}}}}
		got, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, c); !bytes.Equal(got, want) {
			t.Fatalf("%q: Marshal differs from sigs.k8s.io/yaml's\n%s", s, lineDiff(string(want), string(got)))
		}
	}
}

// TestMarshalRefusesNaN: NaN and ±Inf are no JSON, and no YAML either
// here, as json.Marshal refuses them.
func TestMarshalRefusesNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		c := &model.CRD{Spec: model.CRDSpec{Versions: []model.CRDVersion{{Schema: &model.CRDValidation{OpenAPIV3Schema: &model.Schema{Maximum: &f}}}}}}
		if _, err := Marshal(c); err == nil {
			t.Errorf("maximum %v: no error", f)
		}
	}
}

// pieces are what random strings are made of: YAML indicators, words
// that read as other types, breaks, spaces, non-ASCII and non-printable
// characters, invalid UTF-8, long words.
var pieces = []string{
	"", " ", "  ", "\n", "\n\n", "\r", "\t", "a", "word", "Description", "x-kubernetes", "v1", "v10", "v2beta1", "a01", "a1",
	":", ": ", "#", " #", "-", "- ", "--- ", "---", "...", "'", "\"", "\\", "?", "? ", ",", "[", "]", "{", "}", "!", "&", "*", "|", ">", "%", "@", "`",
	"true", "True", "no", "y", "null", "~", "1", "-1", "+1", "0x1F", "0o17", "0b101", "-0b11", "1_000", "1e3", ".5", ".inf", "-.Inf", ".nan", "1.5e+300",
	"2006-01-02", "2006-1-2T15:04:05Z", "1:20", "-1:20:30.5", "<<",
	"é", "日本語", "\u00a0", "\u0085", "\u2028", "\u2029", "\ufeff", "\ufffe", "\x00", "\x07", "\x1b", "\x7f", "\U0001F600", "\xff", "\xc3",
	strings.Repeat("long ", 20), strings.Repeat("x", 90), "a sentence that goes on and on beyond eighty columns so that the emitter has to fold it somewhere",
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// fill sets v to a random value; fields and elements are left out at
// random, less often near the top.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes(randomJSON(r, 0))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomString(r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int32, reflect.Int64:
		v.SetInt(r.Int64N(2000) - 1000)
	case reflect.Float64:
		v.SetFloat(randomFloat(r))
	case reflect.Pointer:
		if depth < 6 && r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if depth < 6 && r.IntN(3) > 0 {
			n := r.IntN(4)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(r, v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		if depth < 6 && r.IntN(3) > 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range r.IntN(5) {
				k := reflect.New(v.Type().Key()).Elem()
				fill(r, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(r, e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" && (depth == 0 || r.IntN(4) > 0) {
				fill(r, v.Field(i), depth+1)
			}
		}
	default:
		panic(fmt.Sprintf("fill: %s", v.Type()))
	}
}

func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return float64(r.IntN(100))
	case 1:
		return -float64(r.IntN(100)) / 8
	case 2:
		return math.Pow(10, float64(r.IntN(60)-30))
	case 3:
		return r.Float64() * 1e22
	case 4:
		return math.Copysign(0, -1)
	}
	return r.NormFloat64()
}

func randomJSON(r *rand.Rand, depth int) json.RawMessage {
	var v any
	switch k := r.IntN(7); {
	case k == 0 && depth < 3:
		m := map[string]json.RawMessage{}
		for range r.IntN(4) {
			m[randomString(r)] = randomJSON(r, depth+1)
		}
		v = m
	case k == 1 && depth < 3:
		var l []json.RawMessage
		for range r.IntN(4) {
			l = append(l, randomJSON(r, depth+1))
		}
		v = l
	case k == 2:
		v = randomFloat(r)
	case k == 3:
		v = r.IntN(2) == 0
	case k == 4:
		v = nil
	case k == 5:
		v = json.Number(fmt.Sprint(r.Int64()))
	default:
		v = randomString(r)
	}
	j, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return j
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(w), len(g))
}
