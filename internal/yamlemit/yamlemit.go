// Package yamlemit writes a tree of mappings, sequences and scalars as
// YAML, byte for byte as go.yaml.in/yaml/v2 (the library behind
// sigs.k8s.io/yaml, and so behind controller-gen's manifests) marshals
// the same value: block style, two-space indent, mapping keys in its
// order, scalars in the style its emitter picks, lines folded at 80
// columns. It is a port of the parts of that emitter a tree of JSON
// values reaches (emitterc.go, encode.go, resolve.go and sorter.go of
// go.yaml.in/yaml/v2 v2.4.4), without its event queue and reflection.
package yamlemit

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A Node is a mapping, a sequence or a scalar.
type Node struct {
	kind  kind
	value string   // a scalar's text
	style style    // a scalar's requested style
	an    analysis // the scalar's, once analyzed
	done  bool     // analyzed
	pairs []Pair   // a mapping's, in order
	items []*Node
}

// Pair is one entry of a mapping.
type Pair struct {
	Key   *Node
	Value *Node
}

type kind uint8

const (
	scalarNode kind = iota
	mappingNode
	sequenceNode
)

type style uint8

const (
	plainStyle style = iota
	singleQuotedStyle
	doubleQuotedStyle
	literalStyle
)

// String is a string scalar, styled as yaml.v2 styles a Go string.
// Invalid UTF-8 bytes become U+FFFD, as when the value has gone through
// JSON (yaml.v2 itself would write base64).
func String(s string) *Node {
	s = validUTF8(s)
	st := plainStyle
	switch {
	case strings.Contains(s, "\n"):
		st = literalStyle
	case !plainIsString(s):
		st = doubleQuotedStyle
	}
	return &Node{value: s, style: st}
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// Int is an integer scalar.
func Int(i int64) *Node { return &Node{value: strconv.FormatInt(i, 10)} }

// Float is a floating-point scalar, as yaml.v2 writes a float64.
func Float(f float64) *Node {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "+Inf":
		s = ".inf"
	case "-Inf":
		s = "-.inf"
	case "NaN":
		s = ".nan"
	}
	return &Node{value: s}
}

// Bool is a boolean scalar.
func Bool(b bool) *Node {
	if b {
		return &Node{value: "true"}
	}
	return &Node{value: "false"}
}

// Null is the null scalar.
func Null() *Node { return &Node{value: "null"} }

// Mapping is a mapping of the pairs, whose keys must be string scalars,
// sorted as yaml.v2 sorts a Go map's keys (Sort).
func Mapping(pairs []Pair) *Node {
	Sort(pairs)
	return &Node{kind: mappingNode, pairs: pairs}
}

// Sequence is a sequence of the items.
func Sequence(items []*Node) *Node { return &Node{kind: sequenceNode, items: items} }

// plainIsString reports whether s, unquoted, reads back as the string s:
// not as a bool, null, number or timestamp, nor a base-60 float, which
// yaml.v2 quotes for older parsers.
func plainIsString(s string) bool {
	if s == "" {
		return false
	}
	switch resolveTable[s[0]] {
	case 0:
		return true
	case 'M':
		return !resolveMap[s]
	case '.':
		if resolveMap[s] {
			return false
		}
		_, err := strconv.ParseFloat(s, 64)
		return err != nil
	}
	// A sign or a digit.
	if resolveMap[s] || isTimestamp(s) {
		return false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return false
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return false
	}
	if yamlStyleFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return false
		}
	}
	if rest, ok := strings.CutPrefix(plain, "0b"); ok {
		if _, err := strconv.ParseInt(rest, 2, 64); err == nil {
			return false
		}
		if _, err := strconv.ParseUint(rest, 2, 64); err == nil {
			return false
		}
	} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
		if _, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
			return false
		}
	}
	return !isBase60Float(s)
}

var (
	resolveTable = func() (t [256]byte) {
		t['+'], t['-'] = 'S', 'S'
		for _, c := range "0123456789" {
			t[c] = 'D'
		}
		for _, c := range "yYnNtTfFoO~" {
			t[c] = 'M'
		}
		t['.'] = '.'
		return t
	}()
	// resolveMap holds the plain scalars yaml.v2 reads as something other
	// than a string, other than numbers and timestamps.
	resolveMap = func() map[string]bool {
		m := map[string]bool{}
		for _, s := range strings.Fields("y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<") {
			m[s] = true
		}
		return m
	}()
	yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	base60float    = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
)

func isBase60Float(s string) bool {
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60float.MatchString(s)
}

// isTimestamp is yaml.v2's parseTimestamp succeeding.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}

// Sort sorts mapping pairs with string keys as yaml.v2's keyList: runs
// of digits compare as numbers, letters before other characters.
func Sort(pairs []Pair) {
	slices.SortFunc(pairs, func(a, b Pair) int {
		switch {
		case keyLess(a.Key.value, b.Key.value):
			return -1
		case keyLess(b.Key.value, a.Key.value):
			return 1
		}
		return 0
	})
}

func keyLess(a, b string) bool {
	if a == b {
		return false
	}
	if isASCII(a) && isASCII(b) {
		return runesLess([]byte(a), []byte(b), asciiLetter, asciiDigit)
	}
	return runesLess([]rune(a), []rune(b), unicode.IsLetter, unicode.IsDigit)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func asciiDigit(c byte) bool  { return c >= '0' && c <= '9' }

func runesLess[C byte | rune](ar, br []C, isLetter, isDigit func(C) bool) bool {
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al := isLetter(ar[i])
		bl := isLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && isDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && isDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && isDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}

// Marshal returns the YAML of the document root, as yaml.Marshal.
func Marshal(root *Node) []byte {
	e := &emitter{out: make([]byte, 0, sizeHint(root, 0)), indent: -1, whitespace: true, indention: true}
	e.node(root, false, false)
	// The implicit document's end; yaml.Marshal writes no "..." after it.
	e.writeIndent()
	return e.out
}

// sizeHint is about the size of n's YAML at the given depth.
func sizeHint(n *Node, depth int) int {
	size := len(n.value) + 2*depth + 4
	for _, p := range n.pairs {
		size += sizeHint(p.Key, depth) + sizeHint(p.Value, depth+1)
	}
	for _, item := range n.items {
		size += sizeHint(item, depth+1)
	}
	return size
}

const (
	bestIndent = 2
	bestWidth  = 80
)

// emitter is yaml_emitter_t's state, for block and (empty) flow
// collections.
type emitter struct {
	out       []byte
	indent    int
	indents   []int
	column    int
	flowLevel int

	whitespace, indention bool

	mappingContext, simpleKeyContext bool
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	if e.indent < 0 {
		if flow {
			e.indent = bestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += bestIndent
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

// node is yaml_emitter_emit_node.
func (e *emitter) node(n *Node, mapping, simpleKey bool) {
	e.mappingContext, e.simpleKeyContext = mapping, simpleKey
	switch n.kind {
	case scalarNode:
		e.scalar(n)
	case sequenceNode:
		if e.flowLevel > 0 || len(n.items) == 0 {
			e.flowSequence(n)
		} else {
			e.blockSequence(n)
		}
	case mappingNode:
		if e.flowLevel > 0 || len(n.pairs) == 0 {
			e.flowMapping(n)
		} else {
			e.blockMapping(n)
		}
	}
}

func (e *emitter) blockSequence(n *Node) {
	e.increaseIndent(false, e.mappingContext && !e.indention)
	for _, item := range n.items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(item, false, false)
	}
	e.popIndent()
}

func (e *emitter) blockMapping(n *Node) {
	e.increaseIndent(false, false)
	for _, p := range n.pairs {
		e.writeIndent()
		if isSimpleKey(p.Key) {
			e.node(p.Key, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.node(p.Key, true, false)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(p.Value, true, false)
	}
	e.popIndent()
}

func (e *emitter) flowSequence(n *Node) {
	e.writeIndicator("[", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i, item := range n.items {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > bestWidth {
			e.writeIndent()
		}
		e.node(item, false, false)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("]", false, false, false)
}

func (e *emitter) flowMapping(n *Node) {
	e.writeIndicator("{", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i, p := range n.pairs {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > bestWidth {
			e.writeIndent()
		}
		if isSimpleKey(p.Key) {
			e.node(p.Key, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, false)
			e.node(p.Key, true, false)
			if e.column > bestWidth {
				e.writeIndent()
			}
			e.writeIndicator(":", true, false, false)
		}
		e.node(p.Value, true, false)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("}", false, false, false)
}

// isSimpleKey is yaml_emitter_check_simple_key.
func isSimpleKey(n *Node) bool {
	switch n.kind {
	case scalarNode:
		return !n.analysis().multiline && len(n.value) <= 128
	case sequenceNode:
		return len(n.items) == 0
	default:
		return len(n.pairs) == 0
	}
}

func (n *Node) analysis() *analysis {
	if !n.done {
		n.an, n.done = analyze(n.value), true
	}
	return &n.an
}

// scalar is yaml_emitter_emit_scalar.
func (e *emitter) scalar(n *Node) {
	a := n.analysis()
	st := n.style
	if e.simpleKeyContext && a.multiline {
		st = doubleQuotedStyle
	}
	if st == plainStyle {
		if e.flowLevel > 0 && !a.flowPlainAllowed || e.flowLevel == 0 && !a.blockPlainAllowed {
			st = singleQuotedStyle
		}
		if len(n.value) == 0 && (e.flowLevel > 0 || e.simpleKeyContext) {
			st = singleQuotedStyle
		}
	}
	if st == singleQuotedStyle && !a.singleQuotedAllowed {
		st = doubleQuotedStyle
	}
	if st == literalStyle && (!a.blockAllowed || e.flowLevel > 0 || e.simpleKeyContext) {
		st = doubleQuotedStyle
	}
	e.increaseIndent(true, false)
	switch st {
	case plainStyle:
		e.writePlain(n.value, !e.simpleKeyContext)
	case singleQuotedStyle:
		e.writeSingleQuoted(n.value, !e.simpleKeyContext)
	case doubleQuotedStyle:
		e.writeDoubleQuoted(n.value, !e.simpleKeyContext)
	case literalStyle:
		e.writeLiteral(n.value)
	}
	e.popIndent()
}

// inert are the characters that, after the first, change nothing but
// what the next character follows: printable ASCII but the space and
// the indicators.
var inert = func() (t [256]bool) {
	for c := 0x21; c <= 0x7E; c++ {
		t[c] = !strings.ContainsRune(",?[]{}:#", rune(c))
	}
	return t
}()

// analysis is yaml_emitter_analyze_scalar's.
type analysis struct {
	multiline, flowPlainAllowed, blockPlainAllowed, singleQuotedAllowed, blockAllowed bool
}

func analyze(value string) analysis {
	if len(value) == 0 {
		return analysis{blockPlainAllowed: true, singleQuotedAllowed: true}
	}
	var blockIndicators, flowIndicators, lineBreaks, specialCharacters,
		leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak,
		previousSpace, previousBreak bool
	if strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...") {
		blockIndicators, flowIndicators = true, true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(value); i += w {
		c := value[i]
		if i > 0 && inert[c] {
			// The common case, as the switches below would find it.
			previousSpace, previousBreak, precededByWhitespace = false, false, false
			w = 1
			continue
		}
		w = width(c)
		followedByWhitespace := i+w >= len(value) || value[i+w] == ' ' || value[i+w] == '\t'
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators, blockIndicators = true, true
			case '?', ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		} else {
			switch c {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		}
		if !isPrintable(value, i) {
			specialCharacters = true
		}
		brk := isBreak(value, i)
		switch {
		case c == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+1 == len(value) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case brk:
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(value) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = c == ' ' || c == '\t' || c == 0 || brk
	}
	a := analysis{multiline: lineBreaks, flowPlainAllowed: true, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.flowPlainAllowed, a.blockPlainAllowed = false, false
	}
	if trailingSpace {
		a.blockAllowed = false
	}
	if breakSpace {
		a.flowPlainAllowed, a.blockPlainAllowed, a.singleQuotedAllowed = false, false, false
	}
	if spaceBreak || specialCharacters {
		a.flowPlainAllowed, a.blockPlainAllowed, a.singleQuotedAllowed, a.blockAllowed = false, false, false, false
	}
	if lineBreaks {
		a.flowPlainAllowed, a.blockPlainAllowed = false, false
	}
	if flowIndicators {
		a.flowPlainAllowed = false
	}
	if blockIndicators {
		a.blockPlainAllowed = false
	}
	return a
}

// put writes one byte of a one-column character.
func (e *emitter) put(c byte) {
	e.out = append(e.out, c)
	e.column++
}

func (e *emitter) putBreak() {
	e.out = append(e.out, '\n')
	e.column = 0
}

// text copies value[i:j], characters that need no escape and no break.
func (e *emitter) text(value string, i, j int) {
	e.out = append(e.out, value[i:j]...)
	e.column += utf8.RuneCountInString(value[i:j])
}

// writeBreak copies the line break at value[i] and returns the index
// after it.
func (e *emitter) writeBreak(value string, i int) int {
	if value[i] == '\n' {
		e.putBreak()
		return i + 1
	}
	w := width(value[i])
	e.out = append(e.out, value[i:i+w]...)
	e.column = 0
	return i + w
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || e.column == indent && !e.whitespace {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace, e.indention = true, true
}

func (e *emitter) writeIndicator(indicator string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.out = append(e.out, indicator...)
	e.column += len(indicator) // ASCII
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

// runEnd is the end of the run of characters from i on that are neither
// a space, nor a line break, nor stop.
func runEnd(value string, i int, stop func(string, int) bool) int {
	for i < len(value) && value[i] != ' ' && !isBreak(value, i) && (stop == nil || !stop(value, i)) {
		i += width(value[i])
	}
	return i
}

func (e *emitter) writePlain(value string, allowBreaks bool) {
	if !e.whitespace {
		e.put(' ')
	}
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && !isSpace(value, i+1) {
				e.writeIndent()
			} else {
				e.put(' ')
			}
			i++
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(value, i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			j := runEnd(value, i, nil)
			e.text(value, i, j)
			i = j
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.whitespace, e.indention = false, false
}

func isQuote(value string, i int) bool { return value[i] == '\'' }

func (e *emitter) writeSingleQuoted(value string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 && !isSpace(value, i+1) {
				e.writeIndent()
			} else {
				e.put(' ')
			}
			i++
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(value, i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			j := i + 1
			if value[i] == '\'' {
				e.put('\'')
			} else {
				j = runEnd(value, i, isQuote)
			}
			e.text(value, i, j)
			i = j
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace, e.indention = false, false
}

// escaped reports whether a double-quoted scalar escapes the character
// at value[i].
func escaped(value string, i int) bool {
	return !isPrintable(value, i) || isBOM(value) || isBreak(value, i) || value[i] == '"' || value[i] == '\\'
}

func (e *emitter) writeDoubleQuoted(value string, allowBreaks bool) {
	spaces := false
	e.writeIndicator(`"`, true, false, false)
	for i := 0; i < len(value); {
		switch {
		case escaped(value, i):
			v, w := utf8.DecodeRuneInString(value[i:])
			i += w
			e.put('\\')
			switch v {
			case 0x00:
				e.put('0')
			case 0x07:
				e.put('a')
			case 0x08:
				e.put('b')
			case 0x09:
				e.put('t')
			case 0x0A:
				e.put('n')
			case 0x0b:
				e.put('v')
			case 0x0c:
				e.put('f')
			case 0x0d:
				e.put('r')
			case 0x1b:
				e.put('e')
			case 0x22:
				e.put('"')
			case 0x5c:
				e.put('\\')
			case 0x85:
				e.put('N')
			case 0xA0:
				e.put('_')
			case 0x2028:
				e.put('L')
			case 0x2029:
				e.put('P')
			default:
				digits := 8
				switch {
				case v <= 0xFF:
					e.put('x')
					digits = 2
				case v <= 0xFFFF:
					e.put('u')
					digits = 4
				default:
					e.put('U')
				}
				for k := (digits - 1) * 4; k >= 0; k -= 4 {
					digit := byte((v >> uint(k)) & 0x0F)
					if digit < 10 {
						e.put(digit + '0')
					} else {
						e.put(digit + 'A' - 10)
					}
				}
			}
			spaces = false
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 {
				e.writeIndent()
				if isSpace(value, i+1) {
					e.put('\\')
				}
			} else {
				e.put(' ')
			}
			i++
			spaces = true
		default:
			j := runEnd(value, i, escaped)
			e.text(value, i, j)
			i = j
			spaces = false
		}
	}
	e.writeIndicator(`"`, false, false, false)
	e.whitespace, e.indention = false, false
}

func (e *emitter) writeBlockScalarHints(value string) {
	if isSpace(value, 0) || isBreak(value, 0) {
		e.writeIndicator(string(rune('0'+bestIndent)), false, false, false)
	}
	var chomp string
	if len(value) == 0 {
		chomp = "-"
	} else {
		i := len(value) - 1
		for value[i]&0xC0 == 0x80 {
			i--
		}
		switch {
		case !isBreak(value, i):
			chomp = "-"
		case i == 0:
			chomp = "+"
		default:
			i--
			for value[i]&0xC0 == 0x80 {
				i--
			}
			if isBreak(value, i) {
				chomp = "+"
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}

func (e *emitter) writeLiteral(value string) {
	e.writeIndicator("|", true, false, false)
	e.writeBlockScalarHints(value)
	e.putBreak()
	e.indention, e.whitespace = true, true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			i = e.writeBreak(value, i)
			e.indention = true
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
		}
		j := i + 1
		for j < len(value) && !(breakStart[value[j]] && isBreak(value, j)) {
			j++ // a break starts with none of the continuation bytes
		}
		e.text(value, i, j)
		i = j
		e.indention = false
		breaks = false
	}
}

// breakStart are the first bytes of line breaks.
var breakStart = [256]bool{'\r': true, '\n': true, 0xC2: true, 0xE2: true}

// The character classes of yamlprivateh.go, on valid UTF-8.

func isPrintable(b string, i int) bool {
	c := b[i]
	if c < 0x80 {
		return c == 0x0A || c >= 0x20 && c <= 0x7E
	}
	return c == 0xC2 && b[i+1] >= 0xA0 ||
		c > 0xC2 && c < 0xED ||
		c == 0xED && b[i+1] < 0xA0 ||
		c == 0xEE ||
		c == 0xEF &&
			!(b[i+1] == 0xBB && b[i+2] == 0xBF) &&
			!(b[i+1] == 0xBF && (b[i+2] == 0xBE || b[i+2] == 0xBF))
}

// isBOM is is_bom, which looks at the start of the value wherever the
// character is: a value that starts with a byte order mark is escaped
// whole.
func isBOM(b string) bool { return strings.HasPrefix(b, "\ufeff") }

func isSpace(b string, i int) bool { return i < len(b) && b[i] == ' ' }

func isBreak(b string, i int) bool {
	switch b[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return b[i+1] == 0x85
	case 0xE2:
		return b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9)
	}
	return false
}

func width(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}
