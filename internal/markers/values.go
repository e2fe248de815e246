package markers

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	sc "text/scanner"
)

// The kubebuilder markers take values in controller-tools' syntax: quoted
// or bare strings, integers, numbers, booleans, slices written {a,b} or
// a;b, and maps written {key: value}. A bare string runs up to the next
// ',', ';' or '}', so a pattern holding one of them must be quoted. This
// file reads that syntax the way controller-tools v0.23's markers package
// does, so that a value means the same to ctrlgen and to controller-gen.

// valueScanner reads values from one marker's argument text.
type valueScanner struct {
	s   *sc.Scanner
	raw string
	err error
}

func newValueScanner(raw string) *valueScanner {
	v := &valueScanner{raw: raw}
	v.s = newScanner(raw, func(_ *sc.Scanner, msg string) { v.fail(msg) })
	return v
}

func newScanner(raw string, onErr func(*sc.Scanner, string)) *sc.Scanner {
	s := &sc.Scanner{}
	s.Init(strings.NewReader(raw))
	s.Mode = sc.ScanIdents | sc.ScanInts | sc.ScanFloats | sc.ScanStrings | sc.ScanRawStrings | sc.SkipComments
	s.Error = onErr
	return s
}

func (v *valueScanner) fail(msg string) {
	if v.err == nil {
		v.err = errors.New(msg)
	}
}

// peek skips white space and returns the next character.
func (v *valueScanner) peek() rune { return peekNoSpace(v.s) }

func peekNoSpace(s *sc.Scanner) rune {
	r := s.Peek()
	for ; r <= ' ' && (1<<uint64(r))&s.Whitespace != 0; r = s.Peek() {
		s.Next()
	}
	return r
}

func (v *valueScanner) expect(tok rune, what string) bool {
	if got := v.s.Scan(); got != tok {
		v.fail(fmt.Sprintf("expected %s, got %q", what, v.s.TokenText()))
		return false
	}
	return true
}

// end fails unless everything was read.
func (v *valueScanner) end() error {
	if v.err == nil && v.peek() != sc.EOF {
		v.s.Scan()
		v.fail(fmt.Sprintf("unexpected %q after the value", v.s.TokenText()))
	}
	return v.err
}

// str reads a quoted string, or bare tokens up to ',', ';', '}' (and ':'
// inside a map).
func (v *valueScanner) str(inMap bool) string {
	mode := v.s.Mode
	v.s.Mode = mode &^ sc.ScanInts &^ sc.ScanFloats
	defer func() { v.s.Mode = mode }()
	isDelim := func(r rune) bool {
		return r == ',' || r == ';' || r == '}' || r == sc.EOF || inMap && r == ':'
	}
	if r := v.peek(); r == '"' || r == '`' {
		v.s.Scan()
		s, err := strconv.Unquote(v.s.TokenText())
		if err != nil {
			v.fail(fmt.Sprintf("unable to parse string: %v", err))
		}
		return s
	}
	start := v.s.Pos().Offset
	end := start
	for r := v.peek(); !isDelim(r); r = v.peek() {
		if end == start {
			start = v.s.Pos().Offset
		}
		v.s.Scan()
		end = v.s.Position.Offset + len(v.s.TokenText())
	}
	return v.raw[start:end]
}

func (v *valueScanner) signed(tok rune) (string, rune) {
	neg := ""
	if v.peek() == '-' {
		v.s.Scan()
		neg = "-"
	}
	got := v.s.Scan()
	return neg + v.s.TokenText(), got
}

func (v *valueScanner) integer() int {
	text, tok := v.signed(sc.Int)
	if tok != sc.Int {
		v.fail(fmt.Sprintf("expected integer, got %q", text))
		return 0
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		v.fail(fmt.Sprintf("unable to parse integer: %v", err))
	}
	return n
}

func (v *valueScanner) number() float64 {
	text, tok := v.signed(sc.Float)
	if tok != sc.Float && tok != sc.Int {
		v.fail(fmt.Sprintf("expected integer or float, got %q", text))
		return 0
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		v.fail(fmt.Sprintf("unable to parse number: %v", err))
	}
	return f
}

func (v *valueScanner) boolean() bool {
	if !v.expect(sc.Ident, "true or false") {
		return false
	}
	switch v.s.TokenText() {
	case "true":
		return true
	case "false":
		return false
	}
	v.fail(fmt.Sprintf("expected true or false, got %q", v.s.TokenText()))
	return false
}

// slice reads {a, b} or the legacy a;b, each item read by item.
func (v *valueScanner) slice(item func() any) []any {
	out := []any{}
	if v.peek() == '{' {
		v.s.Scan()
		for r := v.peek(); r != '}' && r != sc.EOF; r = v.peek() {
			out = append(out, item())
			if v.peek() == '}' {
				break
			}
			if !v.expect(',', "comma") {
				return out
			}
		}
		v.expect('}', "close curly brace")
		return out
	}
	for r := v.peek(); r != ',' && r != '}' && r != sc.EOF; r = v.peek() {
		out = append(out, item())
		tok := v.peek()
		if tok == ',' || tok == '}' || tok == sc.EOF {
			break
		}
		v.s.Scan()
		if tok != ';' {
			v.fail(fmt.Sprintf("expected comma, got %q", v.s.TokenText()))
			return out
		}
	}
	return out
}

func (v *valueScanner) strings() []string {
	items := v.slice(func() any { return v.str(false) })
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = s.(string)
	}
	return out
}

// valueKind is what guess finds a value to be.
type valueKind int

const (
	kindString valueKind = iota
	kindInt
	kindNumber
	kindBool
	kindSlice
	kindMap
)

type guessed struct {
	kind valueKind
	item *guessed // of a slice; nil item of a map means each value is guessed
}

// guess looks ahead, without consuming, at what the next value is, as
// controller-tools' guessType does.
func (v *valueScanner) guess(allowSlice bool) guessed {
	rest := v.raw[v.s.Pos().Offset:]
	if allowSlice {
		item := v.guessIn(rest, false)
		sub := newScanner(rest, func(*sc.Scanner, string) {})
		tok := sub.Scan()
		for tok != ',' && tok != sc.EOF && tok != ';' {
			tok = sub.Scan()
		}
		if tok == ';' {
			return guessed{kind: kindSlice, item: &item}
		}
		return item
	}
	return v.guessIn(rest, false)
}

func (v *valueScanner) guessIn(rest string, _ bool) guessed {
	scanErr := false
	sub := &valueScanner{raw: rest}
	sub.s = newScanner(rest, func(*sc.Scanner, string) { scanErr = true })
	hint := sub.peek()
	switch hint {
	case '"', '\'', '`':
		return guessed{kind: kindString}
	case '{':
		sub.s.Scan()
		hint = sub.peek()
		first := sub.guessIn(rest[sub.s.Pos().Offset:], false)
		if first.kind == kindString {
			sub.str(true)
			if tok := sub.s.Scan(); tok == ':' || hint == '}' {
				return guessed{kind: kindMap}
			}
		}
		return guessed{kind: kindSlice, item: &first}
	}
	probablyString := false
	if hint == 't' || hint == 'f' {
		if sub.s.Scan() == sc.Ident {
			switch sub.s.TokenText() {
			case "true", "false":
				return guessed{kind: kindBool}
			}
			probablyString = true
		}
	}
	if !probablyString {
		tok := sub.s.Scan()
		if tok == '-' {
			tok = sub.s.Scan()
		}
		if !scanErr && (tok == sc.Int || tok == sc.Float) {
			if follow := sub.peek(); follow == ',' || follow == ';' || follow == sc.EOF || follow == '}' {
				if tok == sc.Int {
					return guessed{kind: kindInt}
				}
				return guessed{kind: kindNumber}
			}
		}
	}
	return guessed{kind: kindString}
}

// anyValue reads a value of a type it guesses: string, int, float64,
// bool, []any or map[string]any.
func (v *valueScanner) anyValue(inSlice bool) any {
	return v.read(v.guess(!inSlice))
}

func (v *valueScanner) read(g guessed) any {
	switch g.kind {
	case kindInt:
		return v.integer()
	case kindNumber:
		return v.number()
	case kindBool:
		return v.boolean()
	case kindSlice:
		item := *g.item
		return v.slice(func() any { return v.read(item) })
	case kindMap:
		return v.mapValue()
	}
	return v.str(false)
}

func (v *valueScanner) mapValue() map[string]any {
	out := map[string]any{}
	if !v.expect('{', "open curly brace") {
		return out
	}
	for r := v.peek(); r != '}' && r != sc.EOF; r = v.peek() {
		key := v.str(true)
		if !v.expect(':', "colon") {
			return out
		}
		out[key] = v.anyValue(false)
		if v.peek() == '}' {
			break
		}
		if !v.expect(',', "comma") {
			return out
		}
	}
	v.expect('}', "close curly brace")
	return out
}

// fields reads "key=value,key=value", calling set for each key with the
// scanner positioned at its value.
func (v *valueScanner) fields(set func(key string) error) error {
	for v.err == nil && v.peek() != sc.EOF {
		if !v.expect(sc.Ident, "argument name") {
			break
		}
		key := v.s.TokenText()
		if !v.expect('=', "'=' after "+key) {
			break
		}
		if err := set(key); err != nil {
			return err
		}
		if v.err != nil || v.peek() == sc.EOF {
			break
		}
		v.expect(',', "comma")
	}
	return v.err
}
