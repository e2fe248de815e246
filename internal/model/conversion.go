package model

import (
	"go/token"

	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// Conversion is what "+ctrlgen:webhook:conversion" gives a kind: every
// version of it converts to and from the hub, its storage version.
type Conversion struct {
	Hub    *Kind
	Spokes []*Spoke
	Pos    token.Position
}

// Spoke is one version other than the hub, and how its types convert.
type Spoke struct {
	Kind *Kind
	// Pairs are the struct types converted, the kind's own first, each
	// once.
	Pairs []*TypePair
	// SpokeOnly are the spoke's fields the hub has no place for, kept in
	// the hub's annotation (runtime/conversion); HubOnly the hub's fields
	// the spoke has no place for, kept in the spoke's. Only fields reached
	// through struct fields and pointers are kept: a list's or map's
	// elements have no fixed path.
	SpokeOnly, HubOnly []*KeptField
	// UserFile is the spoke's file of user functions, written once while
	// the package declares none of them (WritesUserFile).
	UserFile       string
	WritesUserFile bool
}

// TypePair is a struct type of the spoke and the hub's type of the same
// name.
type TypePair struct {
	Spoke, Hub *typegraph.Type
	// ToHub and FromHub name the generated functions.
	ToHub, FromHub string
	// UserToHub and UserFromHub name the user's functions the generated
	// ones end with; empty when the two types differ in no field.
	UserToHub, UserFromHub string
	// Fields are the fields converted by the generated functions.
	Fields []*FieldConversion
	// Differences say, for the user's functions, what they convert.
	Differences []string
}

// Converts says how a field two versions share is converted.
type Converts int

const (
	// Assign copies the field: its type is the same in both.
	Assign Converts = iota
	// Cast converts a named type of the same name and underlying type.
	Cast
	// Struct, Pointer, Slice and Map convert a TypePair, directly or as
	// the element.
	Struct
	Pointer
	Slice
	Map
)

// FieldConversion is one field the generated functions convert.
type FieldConversion struct {
	Name     string
	Converts Converts
	// Pair is the element's pair for Struct, Pointer, Slice and Map.
	Pair *TypePair
	// Spoke and Hub are the field's types.
	Spoke, Hub *typegraph.Type
}

// KeptField is a field one version cannot hold, kept in an annotation
// for the round trip.
type KeptField struct {
	// Path is its JSON path, "spec.address", the annotation's key.
	Path string
	// Steps are the Go fields to it from the kind.
	Steps []*KeptStep
}

// KeptStep is one Go field on the way to a kept field.
type KeptStep struct {
	Name string
	// Path is the JSON path up to and including this step.
	Path string
	// Pointer says the field is a pointer, to the struct Elem.
	Pointer bool
	Elem    *typegraph.Type
}

// ConversionKinds are the kinds with conversion, by hub, in group and
// kind order.
func (p *Project) ConversionKinds() []*Conversion {
	var out []*Conversion
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				if k.Conversion != nil && k.Conversion.Hub == k {
					out = append(out, k.Conversion)
				}
			}
		}
	}
	return out
}
