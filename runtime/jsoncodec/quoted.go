package jsoncodec

import (
	"errors"
	"strconv"
	"unsafe"
)

// The ",string" option: encoding/json reads the field's JSON string and
// decodes its text as a literal of the field's type (bool, number or
// string). These functions follow its valueQuoted and literalStore with
// fromQuoted set, case by case.

var errQuoted = errors.New("json: invalid use of ,string struct tag")

// quotedItem reads a ",string" field's value: the text of a JSON string,
// or nil when nothing is to be stored; null reports that a pointer is to
// be set to nil (a JSON null, or the text "null").
func (d *Decoder) quotedItem(pointer bool) (item []byte, null bool) {
	if d.err != nil {
		return nil, false
	}
	switch c := d.ws(); c {
	case '"':
		s := d.readString()
		if d.err != nil {
			return nil, false
		}
		switch {
		case len(s) == 0:
			d.Fail(errQuoted)
			return nil, false
		case s[0] == 'n':
			if string(s) != "null" {
				d.Fail(errQuoted)
				return nil, false
			}
			return nil, pointer
		}
		return s, false
	case 'n':
		d.literal("null")
		return nil, pointer
	case '{', '[', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		d.Skip()
		d.Fail(errQuoted)
	default:
		d.syntax("looking for beginning of value")
	}
	return nil, false
}

// QuotedString decodes a ",string" string field: the text must itself be
// a quoted JSON string.
func QuotedString[T ~string](d *Decoder, p *T) {
	if item, _ := d.quotedItem(false); item != nil {
		storeQuotedString(d, item, p)
	}
}

// QuotedStringPtr is QuotedString for a *string field.
func QuotedStringPtr[T ~string](d *Decoder, pp **T) {
	item, null := d.quotedItem(true)
	if null {
		*pp = nil
	} else if item != nil {
		if *pp == nil {
			*pp = new(T)
		}
		storeQuotedString(d, item, *pp)
	}
}

func storeQuotedString[T ~string](d *Decoder, item []byte, p *T) {
	if item[0] != '"' {
		d.Fail(errQuoted)
		return
	}
	s, ok := unquote(item)
	if !ok {
		d.Fail(errQuoted)
		return
	}
	*p = T(s)
}

// QuotedBool decodes a ",string" bool field.
func QuotedBool[T ~bool](d *Decoder, p *T) {
	if item, _ := d.quotedItem(false); item != nil {
		storeQuotedBool(d, item, p)
	}
}

// QuotedBoolPtr is QuotedBool for a *bool field.
func QuotedBoolPtr[T ~bool](d *Decoder, pp **T) {
	item, null := d.quotedItem(true)
	if null {
		*pp = nil
	} else if item != nil {
		if *pp == nil {
			*pp = new(T)
		}
		storeQuotedBool(d, item, *pp)
	}
}

func storeQuotedBool[T ~bool](d *Decoder, item []byte, p *T) {
	switch string(item) {
	case "true":
		*p = true
	case "false":
		*p = false
	default:
		d.Fail(errQuoted)
	}
}

// QuotedInt decodes a ",string" signed integer field.
func QuotedInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](d *Decoder, p *T) {
	if item, _ := d.quotedItem(false); item != nil {
		storeQuotedInt(d, item, p)
	}
}

// QuotedIntPtr is QuotedInt for a pointer field.
func QuotedIntPtr[T ~int | ~int8 | ~int16 | ~int32 | ~int64](d *Decoder, pp **T) {
	item, null := d.quotedItem(true)
	if null {
		*pp = nil
	} else if item != nil {
		if *pp == nil {
			*pp = new(T)
		}
		storeQuotedInt(d, item, *pp)
	}
}

func storeQuotedInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](d *Decoder, item []byte, p *T) {
	if !quotedNumber(d, item) {
		return
	}
	n, err := strconv.ParseInt(string(item), 10, 64)
	if err != nil || int64(T(n)) != n {
		d.typeError("number "+string(item), p, d.pos)
		return
	}
	*p = T(n)
}

// QuotedUint decodes a ",string" unsigned integer field.
func QuotedUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](d *Decoder, p *T) {
	if item, _ := d.quotedItem(false); item != nil {
		storeQuotedUint(d, item, p)
	}
}

// QuotedUintPtr is QuotedUint for a pointer field.
func QuotedUintPtr[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](d *Decoder, pp **T) {
	item, null := d.quotedItem(true)
	if null {
		*pp = nil
	} else if item != nil {
		if *pp == nil {
			*pp = new(T)
		}
		storeQuotedUint(d, item, *pp)
	}
}

func storeQuotedUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](d *Decoder, item []byte, p *T) {
	if !quotedNumber(d, item) {
		return
	}
	n, err := strconv.ParseUint(string(item), 10, 64)
	if err != nil || uint64(T(n)) != n {
		d.typeError("number "+string(item), p, d.pos)
		return
	}
	*p = T(n)
}

// QuotedFloat decodes a ",string" float field.
func QuotedFloat[T ~float32 | ~float64](d *Decoder, p *T) {
	if item, _ := d.quotedItem(false); item != nil {
		storeQuotedFloat(d, item, p)
	}
}

// QuotedFloatPtr is QuotedFloat for a pointer field.
func QuotedFloatPtr[T ~float32 | ~float64](d *Decoder, pp **T) {
	item, null := d.quotedItem(true)
	if null {
		*pp = nil
	} else if item != nil {
		if *pp == nil {
			*pp = new(T)
		}
		storeQuotedFloat(d, item, *pp)
	}
}

func storeQuotedFloat[T ~float32 | ~float64](d *Decoder, item []byte, p *T) {
	if !quotedNumber(d, item) {
		return
	}
	f, err := strconv.ParseFloat(string(item), int(unsafe.Sizeof(T(0)))*8)
	if err != nil {
		d.typeError("number "+string(item), p, d.pos)
		return
	}
	*p = T(f)
}

// quotedNumber refuses, for a number field, a text that encoding/json
// refuses before parsing it: one that does not start like a number.
func quotedNumber(d *Decoder, item []byte) bool {
	if c := item[0]; c != '-' && (c < '0' || c > '9') {
		d.Fail(errQuoted)
		return false
	}
	return true
}
