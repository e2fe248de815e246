package jsoncodec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"unsafe"

	kjson "sigs.k8s.io/json"
)

// String decodes a string; null leaves *p alone.
func String[T ~string](d *Decoder, p *T) {
	if d.err != nil {
		return
	}
	switch c := d.ws(); c {
	case '"':
		if s := d.readString(); d.err == nil {
			*p = T(s)
		}
	case 'n':
		d.literal("null")
	default:
		d.mismatch(c, "string")
	}
}

// Bool decodes true or false; null leaves *p alone.
func Bool[T ~bool](d *Decoder, p *T) {
	if d.err != nil {
		return
	}
	switch c := d.ws(); c {
	case 't':
		if d.literal("true") {
			*p = true
		}
	case 'f':
		if d.literal("false") {
			*p = false
		}
	case 'n':
		d.literal("null")
	default:
		d.mismatch(c, "bool")
	}
}

// Int decodes an integer that fits T: a fraction, an exponent or a value
// out of range is an error, as strconv.ParseInt and reflect's OverflowInt
// make it for encoding/json. null leaves *p alone.
func Int[T ~int | ~int8 | ~int16 | ~int32 | ~int64](d *Decoder, p *T) {
	if lit, start := d.numberOrNull(); lit != nil {
		n, ok := parseInt(lit)
		if !ok || int64(T(n)) != n {
			d.typeError("number "+string(lit), p, start)
			return
		}
		*p = T(n)
	}
}

// Uint decodes an unsigned integer that fits T; a sign, even "-0", is an
// error, as strconv.ParseUint makes it. null leaves *p alone.
func Uint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](d *Decoder, p *T) {
	if lit, start := d.numberOrNull(); lit != nil {
		n, ok := parseUint(lit)
		if !ok || uint64(T(n)) != n {
			d.typeError("number "+string(lit), p, start)
			return
		}
		*p = T(n)
	}
}

// Float decodes a number with strconv.ParseFloat at T's size; a value out
// of range is an error. null leaves *p alone.
func Float[T ~float32 | ~float64](d *Decoder, p *T) {
	if lit, start := d.numberOrNull(); lit != nil {
		f, err := strconv.ParseFloat(string(lit), int(unsafe.Sizeof(T(0)))*8)
		if err != nil {
			d.typeError("number "+string(lit), p, start)
			return
		}
		*p = T(f)
	}
}

// numberOrNull returns the number that comes next, or nil after a null or
// an error.
func (d *Decoder) numberOrNull() ([]byte, int) {
	if d.err != nil {
		return nil, 0
	}
	switch c := d.ws(); c {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		start := d.pos
		return d.number(), start
	case 'n':
		d.literal("null")
	default:
		d.mismatch(c, "number")
	}
	return nil, 0
}

// parseInt is strconv.ParseInt(lit, 10, 64) for a JSON number.
func parseInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	digits := lit
	if neg {
		digits = lit[1:]
	}
	if len(digits) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// parseUint is strconv.ParseUint(lit, 10, 64) for a JSON number.
func parseUint(lit []byte) (uint64, bool) {
	if len(lit) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// Bytes decodes a []byte as encoding/json does: a string is standard
// base64, an array holds the bytes as numbers, null sets *p to nil.
func Bytes[S ~[]byte](d *Decoder, p *S) {
	if d.err != nil {
		return
	}
	switch c := d.ws(); c {
	case '"':
		start := d.pos
		s := d.readString()
		if d.err != nil {
			return
		}
		b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, err := base64.StdEncoding.Decode(b, s)
		if err != nil {
			d.err = &TypeError{Value: "string (" + err.Error() + ")", Type: "[]byte", Offset: int64(start)}
			return
		}
		*p = b[:n]
	case '[':
		d.open()
		s := *p
		i := 0
		for d.Elem() {
			s = growTo(s, i)
			Uint(d, &s[i])
			i++
		}
		*p = endSlice(s, i)
	case 'n':
		d.literal("null")
		*p = nil
	default:
		d.mismatch(c, "[]byte")
	}
}

// GrowTo is how encoding/json makes room for element i of a slice it
// decodes into: the elements already there are reused (decoded into, not
// replaced), the slice grows when full. Generated code calls it before
// decoding &s[i].
func GrowTo[S ~[]E, E any](s S, i int) S { return growTo(s, i) }

func growTo[S ~[]E, E any](s S, i int) S {
	if i >= cap(s) {
		s = append(s[:cap(s)], *new(E))[:len(s)]
	}
	if i >= len(s) {
		s = s[:i+1]
	}
	return s
}

// EndSlice is how encoding/json ends a slice after n elements: cut to n,
// and an empty array gives an empty slice, never nil.
func EndSlice[S ~[]E, E any](s S, n int) S { return endSlice(s, n) }

func endSlice[S ~[]E, E any](s S, n int) S {
	if n == 0 {
		return S{}
	}
	return s[:n]
}

// Unmarshal hands the next value, whatever it is (null too), to u's
// UnmarshalJSON, as encoding/json does for a type that has the method.
func (d *Decoder) Unmarshal(u json.Unmarshaler) {
	if raw := d.Raw(); raw != nil {
		if err := u.UnmarshalJSON(raw); err != nil {
			d.Fail(err)
		}
	}
}

// Text hands a string's value to u's UnmarshalText, as encoding/json does
// for a type that has the method but not UnmarshalJSON. Any other value
// is an error; the caller handles null.
func (d *Decoder) Text(u encoding.TextUnmarshaler) {
	if d.err != nil {
		return
	}
	c := d.ws()
	if c != '"' {
		d.mismatch(c, "encoding.TextUnmarshaler")
		return
	}
	s := d.readString()
	if d.err != nil {
		return
	}
	if len(d.scratch) > 0 && len(s) > 0 && &s[0] == &d.scratch[0] {
		// The method may keep what encoding/json gives it: never the
		// scratch buffer.
		s = append([]byte(nil), s...)
	}
	if err := u.UnmarshalText(s); err != nil {
		d.Fail(err)
	}
}

// Fallback decodes the next value into p, a pointer to the Go value, with
// sigs.k8s.io/json's reflective decoder (the one apimachinery's serializer
// uses), for what generated code does not decode itself.
func (d *Decoder) Fallback(p any) {
	if raw := d.Raw(); raw != nil {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, p); err != nil {
			d.Fail(err)
		}
	}
}

// Alloc points *p at a new T unless it points somewhere already, as
// encoding/json does before decoding into a pointer.
func Alloc[T any](p **T) {
	if *p == nil {
		*p = new(T)
	}
}

// MakeMap makes *p a new map unless it has one: encoding/json decodes an
// object into the map already there, keeping its entries.
func MakeMap[M ~map[K]V, K comparable, V any](p *M) {
	if *p == nil {
		*p = make(M)
	}
}

// ZeroElem is a zero element of m, which encoding/json decodes a member's
// value into before storing it.
func ZeroElem[M ~map[K]V, K comparable, V any](m M) V {
	var v V
	return v
}

// StringKey is an object key as a key of m.
func StringKey[M ~map[K]V, K ~string, V any](d *Decoder, m M, key []byte) K {
	return K(key)
}

// IntKey converts an object key to an integer key of m as encoding/json
// does (strconv.ParseInt, and the key must fit); an error otherwise.
func IntKey[M ~map[K]V, K ~int | ~int8 | ~int16 | ~int32 | ~int64, V any](d *Decoder, m M, key []byte) K {
	n, err := strconv.ParseInt(string(key), 10, 64)
	if err != nil || int64(K(n)) != n {
		var k K
		d.typeError("number "+string(key), &k, d.pos)
		return 0
	}
	return K(n)
}

// UintKey converts an object key to an unsigned integer key of m.
func UintKey[M ~map[K]V, K ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr, V any](d *Decoder, m M, key []byte) K {
	n, err := strconv.ParseUint(string(key), 10, 64)
	if err != nil || uint64(K(n)) != n {
		var k K
		d.typeError("number "+string(key), &k, d.pos)
		return 0
	}
	return K(n)
}
