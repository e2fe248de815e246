// Package markers reads comment markers such as "+genclient" or
// "+kubebuilder:resource:path=foos": typed definitions (name, target,
// argument parser, help), the registry that matches comment lines to them,
// and the comment-attachment rules code-generator uses (scan.go).
package markers

import (
	"fmt"
	"go/token"
	"strings"
)

// Target says what a marker may be attached to.
type Target uint8

const (
	// TargetPackage markers live in doc.go or in a package doc comment.
	TargetPackage Target = 1 << iota
	// TargetType markers sit in the comments above a type declaration.
	TargetType
	// TargetField markers sit in the comments above a struct field.
	TargetField
)

func (t Target) String() string {
	var names []string
	for _, n := range []struct {
		t    Target
		name string
	}{{TargetPackage, "packages"}, {TargetType, "types"}, {TargetField, "fields"}} {
		if t&n.t != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " and ")
}

// Line is one marker line: the comment text after "+", and where it is.
type Line struct {
	Text string
	Pos  token.Position
}

// Parser turns the text that follows a marker's name into a value. The
// text is empty ("+genclient"), starts with "=" ("+groupName=apps") or,
// for definitions made with DefineArgs, with ":"
// ("+kubebuilder:resource:path=foos").
type Parser[T any] func(arg string) (T, error)

// Def is what the registry needs of a definition, whatever its value type.
type Def interface {
	Name() string
	Target() Target
	// Syntax is how the marker is written, e.g. "+groupName=<group>".
	Syntax() string
	Help() string
	Repeatable() bool
	takesArgs() bool
	readAnywhere() bool
	// parseArg parses the text after the marker's name into the
	// definition's value type, which All and Get return without parsing
	// again.
	parseArg(arg string) (any, error)
}

// Definition is a marker whose arguments parse into a T.
type Definition[T any] struct {
	name       string
	target     Target
	syntax     string
	help       string
	repeatable bool
	args       bool
	anywhere   bool
	parse      Parser[T]
}

// Define returns a definition of a marker written "+name" or "+name=...".
func Define[T any](name string, target Target, parse Parser[T], syntax, help string) *Definition[T] {
	return &Definition[T]{name: name, target: target, syntax: syntax, help: help, parse: parse}
}

// DefineArgs returns a definition of a marker that takes named arguments
// after a colon, kubebuilder style: "+name:key=value,key=value".
func DefineArgs[T any](name string, target Target, parse Parser[T], syntax, help string) *Definition[T] {
	d := Define(name, target, parse, syntax, help)
	d.args = true
	return d
}

// Repeated marks the definition as one that may appear more than once,
// each occurrence adding a value.
func (d *Definition[T]) Repeated() *Definition[T] {
	d.repeatable = true
	return d
}

// Anywhere marks the definition as one read wherever it is in a file, not
// attached to a package, type or field (see Read): the registry neither
// collects it nor calls it detached.
func (d *Definition[T]) Anywhere() *Definition[T] {
	d.anywhere = true
	return d
}

// Read returns the values of the marker among lines, in their order, and
// an error at the position of each malformed one.
func (d *Definition[T]) Read(lines []Line) ([]Value[T], []Diagnostic) {
	var out []Value[T]
	var diags []Diagnostic
	for _, l := range lines {
		arg, ok := strings.CutPrefix(l.Text, d.name)
		if !ok || arg != "" && arg[0] != '=' && arg[0] != ':' {
			continue
		}
		if strings.HasPrefix(arg, ":=") {
			arg = arg[1:]
		}
		v, err := d.parse(arg)
		if err != nil {
			diags = append(diags, Diagnostic{Pos: l.Pos, Msg: fmt.Sprintf("+%s: %v; expected %s", l.Text, err, d.syntax)})
			continue
		}
		out = append(out, Value[T]{V: v, Pos: l.Pos})
	}
	return out, diags
}

func (d *Definition[T]) Name() string       { return d.name }
func (d *Definition[T]) Target() Target     { return d.target }
func (d *Definition[T]) Syntax() string     { return d.syntax }
func (d *Definition[T]) Help() string       { return d.help }
func (d *Definition[T]) Repeatable() bool   { return d.repeatable }
func (d *Definition[T]) takesArgs() bool    { return d.args }
func (d *Definition[T]) readAnywhere() bool { return d.anywhere }

func (d *Definition[T]) parseArg(arg string) (any, error) { return d.parse(arg) }

// Value is one parsed occurrence of a marker.
type Value[T any] struct {
	V   T
	Pos token.Position
}

// Get returns the marker's value in s, and whether it is there. For a
// repeated marker it is the first occurrence.
func (d *Definition[T]) Get(s Set) (T, bool) {
	o := s.first(d.key())
	if o == nil {
		var zero T
		return zero, false
	}
	v, _ := o.value.(T) // a nil value of an interface type T too
	return v, true
}

// Has reports whether the marker is in s.
func (d *Definition[T]) Has(s Set) bool { return s.first(d.key()) != nil }

// Pos returns where the marker first appears in s.
func (d *Definition[T]) Pos(s Set) token.Position {
	if o := s.first(d.key()); o != nil {
		return o.pos
	}
	return token.Position{}
}

// All returns every occurrence of the marker in s, in source order.
func (d *Definition[T]) All(s Set) []Value[T] {
	var out []Value[T]
	k := d.key()
	for _, o := range s.found {
		if o.key == k {
			v, _ := o.value.(T) // a nil value of an interface type T too
			out = append(out, Value[T]{V: v, Pos: o.pos})
		}
	}
	return out
}

func (d *Definition[T]) key() defKey { return defKey{d.name, d.target} }

type defKey struct {
	name   string
	target Target
}

// Set is the markers found on one package, type or field: a few at
// most, so a list rather than a map, small enough to keep one for every
// type and field read.
type Set struct {
	found []occurrence // in source order
}

// occurrence is one marker line that parsed: its argument text, kept to
// tell a repetition from a conflict, and its value, of the definition's
// type.
type occurrence struct {
	key   defKey
	arg   string
	value any
	pos   token.Position
}

func (s *Set) add(d Def, arg string, value any, pos token.Position) {
	s.found = append(s.found, occurrence{defKey{d.Name(), d.Target()}, arg, value, pos})
}

// first is the first occurrence of the definition k, or nil.
func (s Set) first(k defKey) *occurrence {
	for i := range s.found {
		if s.found[i].key == k {
			return &s.found[i]
		}
	}
	return nil
}

// Diagnostic is a problem with a marker, at a position.
type Diagnostic struct {
	Pos     token.Position
	Msg     string
	Warning bool
	// Lenient marks a warning about a marker that ctrlgen does not know or
	// that has no effect where it is, which code-generator and
	// controller-gen pass over in silence; a strict run makes it an error.
	Lenient bool
}

func (d Diagnostic) Error() string {
	kind := "error"
	if d.Warning {
		kind = "warning"
	}
	return fmt.Sprintf("%s: %s: %s", position(d.Pos), kind, d.Msg)
}

func position(p token.Position) string {
	if p.Filename == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}
