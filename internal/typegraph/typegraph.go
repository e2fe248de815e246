// Package typegraph resolves Go type declarations from syntax, without a
// type checker, into the shape k8s.io/gengo/v2/types gives deepcopy-gen:
// named types keep their name and kind, a named builtin, map or slice is
// an Alias of its underlying type, and a named pointer, array, channel or
// function type takes that kind. Struct members are resolved only when
// asked for, so a type from another package costs a parse of that package
// and nothing more unless its fields are needed.
//
// The graph also has what CRD schemas, which follow declarations as
// controller-gen does, need of them (Graph.Declared): each declaration as
// written, its doc comment, markers and string constants, with the types
// it names resolved only when asked for. Markers are collected once per
// declaration, for the builder and the schemas alike (markers.go).
package typegraph

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// Kind is the shape of a type, as gengo classifies it.
type Kind int

const (
	Unsupported Kind = iota
	Builtin
	Struct
	Map
	Slice
	Pointer
	Array
	Interface
	// Alias is a named type whose underlying type is a builtin, a map or a
	// slice: "type Phase string", "type Labels map[string]string".
	Alias
	Chan
	Func
)

var kindNames = [...]string{"Unsupported", "Builtin", "Struct", "Map", "Slice", "Pointer", "Array", "Interface", "Alias", "Chan", "Func"}

func (k Kind) String() string { return kindNames[k] }

// Name is a type's name. Builtins have an empty Pkg; anonymous types
// (map[string]int, []Foo, *Foo) have an empty Name.
type Name struct {
	Pkg, Name string
}

func (n Name) String() string {
	if n.Pkg == "" {
		return n.Name
	}
	return n.Pkg + "." + n.Name
}

// Type is a resolved type.
type Type struct {
	Name Name
	Kind Kind
	// Elem is the element of maps, slices, arrays, pointers and channels;
	// Key the key of maps; Len the length expression of arrays.
	Elem, Key *Type
	Len       string
	// Underlying is what an Alias names.
	Underlying *Type
	// Pos is where a named type is declared.
	Pos token.Position
	// Why says what makes an Unsupported type unsupported.
	Why string
	// Comments are the lines of a named type's doc comment, without the
	// comment markers: its "+" markers among them.
	Comments []string
	// Doc is a named type's doc comment as go/doc attaches it: the
	// type's own or, outside parentheses, its declaration's.
	Doc *ast.CommentGroup
	// Expr is the expression an unnamed type, or a use of a builtin, was
	// resolved from: "any" and "interface{}" are both an Interface. It is
	// nil for a member's type that did not resolve (Fields), an
	// Unsupported type whose Why says why.
	Expr ast.Expr

	// named is what the graph keeps of a named type, nil for others.
	named *named
	// err is why the type could not be resolved.
	err error
	// completed says every type t refers to is resolved (see complete).
	completed bool
	// members are as declared (Fields). resolveMembers fills them on
	// first use; nil once done. The graph's mutex guards it for named
	// types.
	members        []Member
	resolveMembers func() ([]Member, error)
}

// named is what the graph keeps of a named type.
type named struct {
	g *Graph
	// pkg is where it is declared; nil until the type is resolved
	// (pending).
	pkg *Package
	// alias says the declaration is "type T = <definition>".
	alias      bool
	definition *Type
	// completedMembers are the members with their types completed
	// (Members), once membersCompleted.
	completedMembers []Member
	membersCompleted bool
}

// Member is a struct field.
type Member struct {
	Name     string
	Embedded bool
	Type     *Type
	// Tag is the field's struct tag, unquoted: `json:"name,omitempty"`.
	Tag string
	// Comments are the lines of the field's doc comment, without the
	// comment markers.
	Comments []string
	// Doc is the field's doc comment; Pos where the field starts, in the
	// graph's file set.
	Doc *ast.CommentGroup
	Pos token.Pos
}

// Method is a declared method's signature, as far as deep copies and
// unmarshalers care.
type Method struct {
	PtrRecv bool
	Params  []Ref
	Results []Ref
	// Signature is the parameter and result types as written, without
	// names: "([]byte) error".
	Signature string
}

// Ref is a parameter or result type: a name, maybe behind one pointer.
// Name is empty for anything else.
type Ref struct {
	Name Name
	Ptr  bool
}

// IsNamed reports whether the type has a name of its own (builtins
// included).
func (t *Type) IsNamed() bool { return t.Name.Name != "" }

// Members returns a struct's fields, resolved on first use with the types
// they use, as Named resolves types.
func (t *Type) Members() ([]Member, error) {
	if t.named == nil {
		return t.members, nil // an unnamed struct, resolved with what uses it
	}
	t.named.g.mu.Lock()
	defer t.named.g.mu.Unlock()
	return t.membersLocked(true)
}

// Fields returns a struct's fields as Members does, but as far as
// Graph.Declared resolves types: the named types they use may be known
// by their names only.
func (t *Type) Fields() ([]Member, error) {
	if t.named == nil {
		return t.members, nil
	}
	t.named.g.mu.Lock()
	defer t.named.g.mu.Unlock()
	return t.membersLocked(false)
}

// membersLocked resolves the members, and with complete the types they
// use, each once.
func (t *Type) membersLocked(complete bool) ([]Member, error) {
	if t.resolveMembers != nil {
		m, err := t.resolveMembers()
		if err != nil {
			return nil, err
		}
		t.members, t.resolveMembers = m, nil
	}
	if !complete {
		return t.members, nil
	}
	n := t.named
	if !n.membersCompleted {
		m, err := n.g.completeMembers(t.members)
		if err != nil {
			return nil, err
		}
		n.completedMembers, n.membersCompleted = m, true
	}
	return n.completedMembers, nil
}

// pending says the named type is known by its name only: define has not
// resolved it yet.
func (n *named) pending() bool { return n.pkg == nil }

// Method returns the named type's declared method called name, or nil.
// The methods read are the deep-copy ones, the unmarshalers encoding/json
// calls, the marshalers CRD schemas look for and the conversion ones
// (Hub, ConvertTo, ConvertFrom).
func (t *Type) Method(name string) *Method {
	if t.named == nil || t.named.pkg == nil {
		return nil
	}
	return t.named.pkg.methods[t.Name.Name][name]
}

// Package is the package that declares the named type t, once resolved;
// nil for other types.
func (t *Type) Package() *Package {
	if t.named == nil {
		return nil
	}
	return t.named.pkg
}

// Definition is what a named type's declaration says it is, resolved as
// Graph.Declared resolves types: the named type of "type T U" or
// "type T = U", the slice of "type T []U", and t itself for a struct or
// interface written out. It is nil for other types.
func (t *Type) Definition() *Type {
	if t.named == nil {
		return nil
	}
	return t.named.definition
}

// Underlying follows Aliases to the type they name.
func (t *Type) Resolved() *Type {
	for t.Kind == Alias {
		t = t.Underlying
	}
	return t
}

// IsPrimitive reports whether t is a builtin or names one.
func (t *Type) IsPrimitive() bool {
	return t.Kind == Builtin || (t.Kind == Alias && t.Underlying.Kind == Builtin)
}

// IsAssignable reports whether assignment copies t deeply: primitives,
// and structs of assignable members.
func (t *Type) IsAssignable() (bool, error) {
	if t.IsPrimitive() {
		return true, nil
	}
	if t.Kind != Struct {
		return false, nil
	}
	members, err := t.Members()
	if err != nil {
		return false, err
	}
	for _, m := range members {
		if ok, err := m.Type.IsAssignable(); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// Embeds reports whether struct t embeds the named type pkg.name.
func (t *Type) Embeds(pkg, name string) (bool, error) {
	members, err := t.Members()
	if err != nil {
		return false, err
	}
	for _, m := range members {
		if m.Embedded && m.Type.Name == (Name{Pkg: pkg, Name: name}) {
			return true, nil
		}
	}
	return false, nil
}

// IsEmptyStruct reports whether t is the anonymous struct{} (or names
// it), which gengo calls an anonymous struct.
func (t *Type) IsEmptyStruct() bool {
	if t.Kind == Alias {
		return t.Underlying.IsEmptyStruct()
	}
	return t.Kind == Struct && !t.IsNamed() && t.resolveMembers == nil && len(t.members) == 0
}

// IsReference reports whether t is a pointer, map or slice, or names one.
func (t *Type) IsReference() bool {
	switch t.Kind {
	case Pointer, Map, Slice:
		return true
	case Alias:
		return t.Resolved().IsReference()
	}
	return false
}

// String writes the type with package paths in full.
func (t *Type) String() string {
	return t.Print(func(pkg string) string { return pkg })
}

// Print writes the type as Go source; qualify returns the qualifier for a
// package path ("" for the package being written).
func (t *Type) Print(qualify func(pkg string) string) string {
	if t.IsNamed() {
		if t.Name.Pkg == "" {
			return t.Name.Name
		}
		if q := qualify(t.Name.Pkg); q != "" {
			return q + "." + t.Name.Name
		}
		return t.Name.Name
	}
	switch t.Kind {
	case Map:
		return "map[" + t.Key.Print(qualify) + "]" + t.Elem.Print(qualify)
	case Slice:
		return "[]" + t.Elem.Print(qualify)
	case Array:
		return "[" + t.Len + "]" + t.Elem.Print(qualify)
	case Pointer:
		return "*" + t.Elem.Print(qualify)
	case Chan:
		return "chan " + t.Elem.Print(qualify)
	case Interface:
		return "interface{}"
	case Struct:
		var fields []string
		for _, m := range t.members {
			if m.Embedded {
				fields = append(fields, m.Type.Print(qualify))
			} else {
				fields = append(fields, m.Name+" "+m.Type.Print(qualify))
			}
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	}
	return fmt.Sprintf("/* unsupported: %s */", t.Why)
}
