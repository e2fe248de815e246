package jsoncodec

import (
	"fmt"
	"strconv"
	"sync"
)

// maxDepth is encoding/json's nesting limit: 10000 nested objects and
// arrays are fine, one more is a syntax error.
const maxDepth = 10000

// Decoder reads one JSON document. Generated decode functions call its
// methods (and this package's generic functions) in the order the values
// come; every method consumes exactly one value, or one member key.
//
// Errors are sticky: after the first one (a syntax error, a value of the
// wrong type, an error of an UnmarshalJSON method) every method returns at
// once, and Err reports it. encoding/json goes on after a value of the
// wrong type to report it at the end; stopping at once errs exactly as
// often, and the serializer decodes a failed document again with
// apimachinery's serializer anyway.
type Decoder struct {
	data  []byte
	pos   int
	depth int
	// comma is true when the next member or element must be preceded by
	// a comma: after a key (its value comes next, then the comma), and
	// after a closed object or array.
	comma bool
	err   error

	scratch []byte
	stack   []byte
	top     topLevel
}

var decoders = sync.Pool{New: func() any { return new(Decoder) }}

// NewDecoder returns a decoder of data, which must stay unchanged while
// it decodes (decoded strings never alias it).
func NewDecoder(data []byte) *Decoder {
	d := decoders.Get().(*Decoder)
	d.reset(data)
	return d
}

// Release returns d to a pool; d must not be used afterwards.
func (d *Decoder) Release() {
	d.data = nil
	if cap(d.scratch) > 64<<10 {
		d.scratch = nil
	}
	d.err = nil
	decoders.Put(d)
}

func (d *Decoder) reset(data []byte) {
	d.data, d.pos, d.depth, d.comma, d.err = data, 0, 0, false, nil
	d.top = topLevel{}
}

// Err is the first error, or nil.
func (d *Decoder) Err() error { return d.err }

// End checks that nothing but white space follows the document's value.
// It returns Err.
func (d *Decoder) End() error {
	if d.err != nil {
		return d.err
	}
	if d.ws() != 0 || d.pos < len(d.data) {
		d.syntax("after top-level value")
	}
	return d.err
}

// Fail stops decoding with err, unless it has stopped already.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// SyntaxError is malformed JSON at Offset.
type SyntaxError struct {
	msg    string
	Offset int64
}

func (e *SyntaxError) Error() string { return e.msg }

// TypeError is a JSON value that the Go value cannot hold: a string for
// an int, a number out of range, a fraction for an integer.
type TypeError struct {
	Value  string // "string", "number 1.5", "object", …
	Type   string // the Go type
	Offset int64
}

func (e *TypeError) Error() string {
	return "json: cannot unmarshal " + e.Value + " into Go value of type " + e.Type
}

func (d *Decoder) syntax(context string) {
	if d.err != nil {
		return
	}
	if d.pos >= len(d.data) {
		d.err = &SyntaxError{msg: "unexpected end of JSON input", Offset: int64(d.pos)}
		return
	}
	d.err = &SyntaxError{msg: "invalid character " + quoteChar(d.data[d.pos]) + " " + context, Offset: int64(d.pos + 1)}
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}

// typeError stops decoding: the value at start, already consumed, does
// not fit target (a pointer to the Go value).
func (d *Decoder) typeError(value string, target any, start int) {
	if d.err == nil {
		d.err = &TypeError{Value: value, Type: fmt.Sprintf("%T", target)[1:], Offset: int64(start)}
	}
}

// ws skips white space and returns the next byte, 0 at the end.
func (d *Decoder) ws() byte {
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c > ' ' {
			return c
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		d.pos++
	}
	return 0
}

// Null consumes a null and reports true if one comes next.
func (d *Decoder) Null() bool {
	if d.err != nil || d.ws() != 'n' {
		return false
	}
	return d.literal("null")
}

// literal consumes the literal word, which starts at pos.
func (d *Decoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	for i := 1; i < len(word); i++ {
		d.pos++
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			d.syntax("in literal " + word + " (expecting " + quoteChar(word[i]) + ")")
			return false
		}
	}
	return false
}

// Object starts an object and reports true; then Key gives its members.
// A null is consumed and leaves the Go value alone (false); any other
// value is an error.
func (d *Decoder) Object() bool { return d.start('{', "object") }

// Array starts an array and reports true; then Elem tells whether
// another element follows. A null is consumed and false returned (the
// caller sets a slice to nil); any other value is an error.
func (d *Decoder) Array() bool { return d.start('[', "array") }

// start starts an object or array (open is its first byte), or consumes a
// null (false); any other value is an error.
func (d *Decoder) start(open byte, what string) bool {
	if d.err != nil {
		return false
	}
	switch c := d.ws(); c {
	case open:
		return d.open()
	case 'n':
		d.literal("null")
		return false
	default:
		d.mismatch(c, what)
		return false
	}
}

func (d *Decoder) open() bool {
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		d.err = &SyntaxError{msg: "exceeded max depth", Offset: int64(d.pos)}
		return false
	}
	d.comma = false
	return true
}

func (d *Decoder) close() {
	d.pos++
	d.depth--
	d.comma = true
}

// mismatch handles a value of another JSON type than the Go value takes:
// a syntax error if no value starts at pos, else a type error.
func (d *Decoder) mismatch(c byte, want string) {
	var got string
	switch c {
	case '{':
		got = "object"
	case '[':
		got = "array"
	case '"':
		got = "string"
	case 't', 'f':
		got = "bool"
	case 'n':
		got = "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		got = "number"
	default:
		d.syntax("looking for beginning of value")
		return
	}
	start := d.pos
	d.Skip()
	if d.err == nil {
		d.err = &TypeError{Value: got, Type: want, Offset: int64(start)}
	}
}

// Key returns the next member's key, with the colon after it consumed, or
// false at the end of the object (or on an error). The key is valid until
// the next call.
func (d *Decoder) Key() ([]byte, bool) {
	if d.err != nil {
		return nil, false
	}
	if d.depth == 1 && d.top.pending != 0 {
		d.top.finish(d.data, d.pos)
	}
	c := d.ws()
	if d.comma {
		switch c {
		case ',':
			d.pos++
			if c = d.ws(); c != '"' {
				d.syntax("looking for beginning of object key string")
				return nil, false
			}
		case '}':
			d.close()
			return nil, false
		default:
			d.syntax("after object key:value pair")
			return nil, false
		}
	} else if c != '"' {
		if c == '}' {
			d.close()
			return nil, false
		}
		d.syntax("looking for beginning of object key string")
		return nil, false
	}
	key := d.readString()
	if d.err != nil {
		return nil, false
	}
	if d.ws() != ':' {
		d.syntax("after object key")
		return nil, false
	}
	d.pos++
	d.comma = true
	if d.depth == 1 && d.top.on {
		d.top.member(key, d.pos)
	}
	return key, true
}

// Elem reports whether another element of the array follows, consuming
// the comma before it; false at the end of the array (or on an error).
func (d *Decoder) Elem() bool {
	if d.err != nil {
		return false
	}
	c := d.ws()
	if d.comma {
		switch c {
		case ',':
			d.pos++
		case ']':
			d.close()
			return false
		default:
			d.syntax("after array element")
			return false
		}
	} else if c == ']' {
		d.close()
		return false
	}
	d.comma = true
	return true
}

// Skip consumes a value, checking it is well-formed.
func (d *Decoder) Skip() {
	if d.err != nil {
		return
	}
	switch c := d.ws(); c {
	case '{', '[':
		d.skipNested()
	case '"':
		d.skipString()
	case 't':
		d.literal("true")
	case 'f':
		d.literal("false")
	case 'n':
		d.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		d.number()
	default:
		d.syntax("looking for beginning of value")
	}
}

// Raw consumes a value and returns its bytes, as encoding/json hands
// them to an UnmarshalJSON method; nil on an error.
func (d *Decoder) Raw() []byte {
	if d.err != nil {
		return nil
	}
	d.ws()
	start := d.pos
	d.Skip()
	if d.err != nil {
		return nil
	}
	return d.data[start:d.pos]
}

// skipNested consumes an object or array, with everything in it.
func (d *Decoder) skipNested() {
	stack := d.stack[:0]
	defer func() { d.stack = stack[:0] }()
	for {
		// A value begins.
		switch c := d.ws(); c {
		case '{', '[':
			d.pos++
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			stack = append(stack, closer)
			if d.depth+len(stack) > maxDepth {
				d.pos--
				d.err = &SyntaxError{msg: "exceeded max depth", Offset: int64(d.pos + 1)}
				return
			}
			if d.ws() == closer {
				d.pos++
				stack = stack[:len(stack)-1]
			} else if c == '{' {
				if !d.skipKey() {
					return
				}
				continue
			} else {
				continue
			}
		case '"':
			d.skipString()
		case 't':
			d.literal("true")
		case 'f':
			d.literal("false")
		case 'n':
			d.literal("null")
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			d.number()
		default:
			d.syntax("looking for beginning of value")
		}
		// A value ended: close what ends with it.
		for d.err == nil {
			if len(stack) == 0 {
				return
			}
			closer := stack[len(stack)-1]
			c := d.ws()
			if c == closer {
				d.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				if closer == '}' {
					d.syntax("after object key:value pair")
				} else {
					d.syntax("after array element")
				}
				return
			}
			d.pos++
			if closer == '}' && !d.skipKey() {
				return
			}
			break
		}
		if d.err != nil {
			return
		}
	}
}

// skipKey consumes a member's key and colon.
func (d *Decoder) skipKey() bool {
	if d.ws() != '"' {
		d.syntax("looking for beginning of object key string")
		return false
	}
	d.skipString()
	if d.err != nil {
		return false
	}
	if d.ws() != ':' {
		d.syntax("after object key")
		return false
	}
	d.pos++
	return true
}

// number consumes a number and returns its bytes, checked against JSON's
// grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *Decoder) number() []byte {
	data, i := d.data, d.pos
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i++; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		}
	default:
		d.pos = i
		d.syntax("in numeric literal")
		return nil
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.syntax("after decimal point in numeric literal")
			return nil
		}
		for i++; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.syntax("in exponent of numeric literal")
			return nil
		}
		for i++; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		}
	}
	d.pos = i
	return data[start:i]
}
