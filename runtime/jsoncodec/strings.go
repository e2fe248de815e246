package jsoncodec

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// plain marks the bytes a string can hold as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// readString consumes the string at pos and returns its value, with
// escapes decoded and invalid UTF-8 replaced. The result aliases the data
// when the string needs neither, else d.scratch: it is valid until the
// next string is read.
func (d *Decoder) readString() []byte {
	data := d.data
	start := d.pos + 1
	i := start
	for i < len(data) && plain[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
		d.pos = i + 1
		return data[start:i]
	}
	end, ok := d.scanString(i)
	if !ok {
		return nil
	}
	s := data[start:end]
	out, ok := unquoteInto(d.scratch[:0], s)
	if !ok {
		// scanString accepted what unquote refuses: cannot happen.
		d.syntax("in string literal")
		return nil
	}
	if len(out) > 0 && len(s) > 0 && &out[0] != &s[0] {
		d.scratch = out
	}
	return out
}

// skipString consumes the string at pos, checking it is well-formed.
func (d *Decoder) skipString() {
	data := d.data
	i := d.pos + 1
	for i < len(data) && plain[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
		d.pos = i + 1
		return
	}
	d.scanString(i)
}

// scanString checks the rest of a string from i, as encoding/json's
// scanner does (no control characters, only its escapes; any other byte
// is accepted), and consumes it; end is the index of the closing quote.
func (d *Decoder) scanString(i int) (end int, ok bool) {
	data := d.data
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return i, true
		case c == '\\':
			i++
			if i >= len(data) {
				d.pos = i
				d.syntax("in string escape code")
				return 0, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(data) || !isHex(data[i]) {
						d.pos = i
						d.syntax("in \\u hexadecimal character escape")
						return 0, false
					}
					i++
				}
			default:
				d.pos = i
				d.syntax("in string escape code")
				return 0, false
			}
		case c < 0x20:
			d.pos = i
			d.syntax("in string literal")
			return 0, false
		default:
			i++
		}
	}
	d.pos = i
	d.syntax("in string literal")
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquote is encoding/json's unquoteBytes: the value of the quoted string
// s, or false when s is not one. It accepts what the scanner does not
// check when a ",string" field's text is read as a literal (such as \').
func unquote(s []byte) ([]byte, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	return unquoteInto(nil, s[1:len(s)-1])
}

// unquoteInto returns the value of the string whose text between the
// quotes is s: s itself when it holds no escape, quote, control character
// or invalid UTF-8, else the value appended to buf.
func unquoteInto(buf, s []byte) ([]byte, bool) {
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}
	b := append(buf, s[:r]...)
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return nil, false
			}
			switch s[r] {
			default:
				return nil, false
			case '"', '\\', '/', '\'':
				b = append(b, s[r])
				r++
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return nil, false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			}
		case c == '"', c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b, true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
