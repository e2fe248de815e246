package jsoncodec

import (
	"bytes"
	"strconv"
)

// Any decodes into an empty interface as sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts does: objects become
// map[string]any, arrays []any, an integer without a decimal point that
// fits int64 an int64, any other number a float64; null sets *p to nil.
// An interface that already holds a value is decoded into as
// encoding/json does, reflectively.
func Any(d *Decoder, p *any) {
	if d.err != nil {
		return
	}
	if *p != nil {
		d.Fallback(p)
		return
	}
	v := d.anyValue()
	if d.err == nil {
		*p = v
	}
}

func (d *Decoder) anyValue() any {
	switch c := d.ws(); c {
	case '{':
		if !d.open() {
			return nil
		}
		m := make(map[string]any)
		for k, ok := d.Key(); ok; k, ok = d.Key() {
			key := string(k)
			m[key] = d.anyValue()
		}
		return m
	case '[':
		if !d.open() {
			return nil
		}
		a := make([]any, 0)
		for d.Elem() {
			a = append(a, d.anyValue())
		}
		return a
	case '"':
		s := d.readString()
		if d.err != nil {
			return nil
		}
		return string(s)
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
		return false
	case 'n':
		d.literal("null")
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		start := d.pos
		lit := d.number()
		if d.err != nil {
			return nil
		}
		if bytes.IndexByte(lit, '.') < 0 {
			if n, ok := parseInt(lit); ok {
				return n
			}
		}
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil {
			d.err = &TypeError{Value: "number " + string(lit), Type: "float64", Offset: int64(start)}
			return nil
		}
		return f
	default:
		d.syntax("looking for beginning of value")
		return nil
	}
}
