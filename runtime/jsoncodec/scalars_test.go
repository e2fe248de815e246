package jsoncodec

import (
	"bytes"
	gojson "encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// decodeAs decodes a whole document with fn, as a generated decoder does.
func decodeAs[T any](data []byte, into T, fn func(*Decoder, *T)) (T, error) {
	d := NewDecoder(data)
	defer d.Release()
	fn(d, &into)
	return into, d.End()
}

// sameAsReference decodes data with fn and with sigs.k8s.io/json into the
// same starting value, and reports how they differ: one fails and the
// other does not, or both succeed with different values.
func sameAsReference[T any](data []byte, start func() T, fn func(*Decoder, *T)) string {
	got, err := decodeAs(data, start(), fn)
	want := start()
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts(data, &want)
	switch {
	case (err == nil) != (wantErr == nil):
		return fmt.Sprintf("%T: error %v, sigs.k8s.io/json's %v", want, err, wantErr)
	case err == nil && !equal(got, want):
		return fmt.Sprintf("%T: %#v, sigs.k8s.io/json's %#v", want, got, want)
	}
	return ""
}

// equal is reflect.DeepEqual with NaN equal to NaN.
func equal(a, b any) bool {
	return reflect.DeepEqual(a, b) || fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) && strings.Contains(fmt.Sprint(a), "NaN")
}

type (
	namedString string
	namedInt16  int16
)

func zero[T any]() T { var z T; return z }

// checkScalars compares every scalar decoder with sigs.k8s.io/json on one
// document, starting from zero values and from set ones (which a null
// must leave alone).
func checkScalars(t *testing.T, data []byte) {
	t.Helper()
	var diffs []string
	add := func(s string) {
		if s != "" {
			diffs = append(diffs, s)
		}
	}
	add(sameAsReference(data, zero[string], String[string]))
	add(sameAsReference(data, func() string { return "was" }, String[string]))
	add(sameAsReference(data, zero[namedString], String[namedString]))
	add(sameAsReference(data, zero[bool], Bool[bool]))
	add(sameAsReference(data, func() bool { return true }, Bool[bool]))
	add(sameAsReference(data, zero[int], Int[int]))
	add(sameAsReference(data, zero[int8], Int[int8]))
	add(sameAsReference(data, func() namedInt16 { return 7 }, Int[namedInt16]))
	add(sameAsReference(data, zero[int32], Int[int32]))
	add(sameAsReference(data, zero[int64], Int[int64]))
	add(sameAsReference(data, zero[uint], Uint[uint]))
	add(sameAsReference(data, zero[uint8], Uint[uint8]))
	add(sameAsReference(data, zero[uint64], Uint[uint64]))
	add(sameAsReference(data, zero[uintptr], Uint[uintptr]))
	add(sameAsReference(data, zero[float32], Float[float32]))
	add(sameAsReference(data, zero[float64], Float[float64]))
	add(sameAsReference(data, zero[[]byte], Bytes[[]byte]))
	add(sameAsReference(data, func() []byte { return []byte{9, 9, 9} }, Bytes[[]byte]))
	add(sameAsReference(data, zero[any], Any))
	add(sameAsReference(data, func() any { return map[string]any{"keep": int64(1)} }, Any))
	add(sameAsReference(data, zero[struct{}], func(d *Decoder, _ *struct{}) {
		if d.Object() {
			for _, ok := d.Key(); ok; _, ok = d.Key() {
				d.Skip()
			}
		}
	}))
	add(sameAsReference(data, zero[[]string], func(d *Decoder, p *[]string) {
		if d.Null() {
			*p = nil
		} else if d.Array() {
			s, i := *p, 0
			for d.Elem() {
				s = GrowTo(s, i)
				String(d, &s[i])
				i++
			}
			*p = EndSlice(s, i)
		}
	}))
	if len(diffs) > 0 {
		t.Errorf("%q:\n%s", data, strings.Join(diffs, "\n"))
	}
}

var scalarSeeds = []string{
	`"abc"`, `""`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
	`"\ud800\u0041"`, "\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", `"\u0000"`, "\"\x01\"", `"\x"`, `"\u12"`, `"abc`,
	`null`, `nul`, `nullx`, `true`, `false`, `tru`, `True`,
	`0`, `-0`, `1`, `-1`, `127`, `128`, `-128`, `-129`, `255`, `256`, `32767`, `32768`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
	`18446744073709551615`, `18446744073709551616`, `1.0`, `1.5`, `1e3`, `1E3`, `1e-3`, `-1.5e+10`,
	`3.4028235e38`, `3.5e38`, `1e309`, `-1e400`, `4.9e-324`, `1e-400`, `01`, `-`, `1.`, `.5`, `1e`, `+1`, `0x10`,
	`[]`, `[1,2,3]`, `[1, "a", null, true, {"a": [1.5]}]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`,
	`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":{"c":[]}}}`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1,}`, `{1:2}`, `{"a":1 "b":2}`,
	`"AAEC"`, `"AAE="`, `"AAE"`, `"A A"`, "\"AA\\nEC\"", `[0, 255]`, `[256]`, `[-1]`, `[null, 1]`, `["a"]`,
	`  "x"  `, "\t\n\r 5 \n", ` `, ``, `"a" "b"`, `1 2`, "\u00a05",
	`{"keep": 2, "new": [1, {"x": null}]}`, `{"keep": null}`,
}

func TestScalarsAgreeWithSigsJSON(t *testing.T) {
	for _, s := range scalarSeeds {
		checkScalars(t, []byte(s))
	}
	checkScalars(t, []byte(strings.Repeat("[", 10000)+strings.Repeat("]", 10000)))
	checkScalars(t, []byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)))
	checkScalars(t, []byte(strings.Repeat(`{"a":`, 10001)+"1"+strings.Repeat("}", 10001)))
}

func FuzzScalars(f *testing.F) {
	for _, s := range scalarSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScalars(t, data)
	})
}

func TestFoldEqual(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{
		{"kind", true}, {"KIND", true}, {"Kind", true}, {"\u212aind", true}, {"kinds", false}, {"kin", false},
		{"apiVersion", true}, {"APIVERSION", true}, {"apiver\u017fion", true}, {"apiVersio", false},
	} {
		name := "KIND"
		if strings.HasPrefix(strings.ToLower(c.key), "api") {
			name = "APIVERSION"
		}
		if got := foldEqual([]byte(c.key), name); got != c.want {
			t.Errorf("foldEqual(%q, %q) = %v", c.key, name, got)
		}
	}
	if math.MaxInt8 != 127 {
		t.Fatal()
	}
}

// TestTimeAsUnmarshalJSON compares Time and MicroTime with the methods
// they stand in for, on every seed as the raw value.
func TestTimeAsUnmarshalJSON(t *testing.T) {
	seeds := append([]string{`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05+02:00"`, `"2024-01-02T03:04:05.123456Z"`,
		`"2024-01-02T03:04:05"`, `"2024-13-02T03:04:05Z"`, `"2024-01-02T03:04:05\u005a"`, `"２０２４"`}, scalarSeeds...)
	for _, s := range seeds {
		checkTime(t, []byte(s))
	}
}

func FuzzTime(f *testing.F) {
	for _, s := range []string{`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.5+01:00"`, `null`, `"x"`, `5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkTime(t, data) })
}

func checkTime(t *testing.T, data []byte) {
	t.Helper()
	if msg := sameAsMethod(data, Time); msg != "" {
		t.Errorf("Time: %q: %s", data, msg)
	}
	if msg := sameAsMethod(data, MicroTime); msg != "" {
		t.Errorf("MicroTime: %q: %s", data, msg)
	}
}

// sameAsMethod decodes data with fn, and with the type's UnmarshalJSON
// on the value's bytes as encoding/json would (after checking them).
func sameAsMethod[T any, PT interface {
	*T
	UnmarshalJSON([]byte) error
}](data []byte, fn func(*Decoder, PT)) string {
	var got, want T
	d := NewDecoder(data)
	defer d.Release()
	fn(d, &got)
	err := d.End()
	var wantErr error
	if !gojson.Valid(data) {
		wantErr = errors.New("invalid")
	} else {
		wantErr = PT(&want).UnmarshalJSON(bytes.TrimSpace(data))
	}
	switch {
	case (err == nil) != (wantErr == nil):
		return fmt.Sprintf("error %v, UnmarshalJSON's %v", err, wantErr)
	case err == nil && !reflect.DeepEqual(got, want):
		return fmt.Sprintf("%v, UnmarshalJSON's %v", got, want)
	}
	return ""
}
