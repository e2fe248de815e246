// Package typegraph resolves Go type declarations from syntax, without a
// type checker, into the shape k8s.io/gengo/v2/types gives deepcopy-gen:
// named types keep their name and kind, a named builtin, map or slice is
// an Alias of its underlying type, and a named pointer, array, channel or
// function type takes that kind. Struct members are resolved only when
// asked for, so a type from another package costs a parse of that package
// and nothing more unless its fields are needed.
package typegraph

import (
	"fmt"
	"go/token"
	"strings"
	"sync"
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

	methods map[string]*Method
	members []Member
	// resolveMembers fills members on first use; nil once done. mu, the
	// graph's, guards it for named types.
	resolveMembers func() ([]Member, error)
	mu             *sync.Mutex
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

// Members returns a struct's fields, resolving them on first use.
func (t *Type) Members() ([]Member, error) {
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	return t.membersLocked()
}

func (t *Type) membersLocked() ([]Member, error) {
	if t.resolveMembers != nil {
		m, err := t.resolveMembers()
		if err != nil {
			return nil, err
		}
		t.members, t.resolveMembers = m, nil
	}
	return t.members, nil
}

// Method returns the named type's declared method called name, or nil.
func (t *Type) Method(name string) *Method { return t.methods[name] }

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
