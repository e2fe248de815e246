package jsondecode

import (
	"cmp"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// field is a struct field encoding/json decodes a key into.
type field struct {
	name   string
	tagged bool
	// index is the path of member positions from the struct down,
	// through embedded structs; members the Go members along it.
	index   []int
	members []typegraph.Member
	quoted  bool
}

// fields returns the JSON fields of struct t as encoding/json's
// typeFields finds them: exported fields, embedded structs without a tag
// name flattened breadth first, "-" dropped, and of several fields with
// one name the shallowest, then the tagged one, survives; two equally
// dominant ones cancel each other out.
func fields(t *typegraph.Type) ([]field, error) {
	type level struct {
		typ     *typegraph.Type
		index   []int
		members []typegraph.Member
	}
	var (
		current, next    []level
		count, nextCount map[typegraph.Name]int
		visited          = map[typegraph.Name]bool{}
		found            []field
	)
	next = []level{{typ: t}}
	for len(next) > 0 {
		current, next = next, nil
		count, nextCount = nextCount, map[typegraph.Name]int{}
		for _, f := range current {
			key := f.typ.Name
			if key.Name != "" {
				if visited[key] {
					continue
				}
				visited[key] = true
			}
			members, err := f.typ.Members()
			if err != nil {
				return nil, err
			}
			for i, sf := range members {
				if sf.Embedded {
					et := sf.Type
					if et.Kind == typegraph.Pointer {
						et = et.Elem
					}
					if !token.IsExported(sf.Name) && kind(et) != reflect.Struct {
						continue
					}
				} else if !token.IsExported(sf.Name) {
					continue
				}
				tag := reflect.StructTag(sf.Tag).Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTag(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				path := append(slices.Clip(f.members), sf)
				ft := sf.Type
				if !ft.IsNamed() && ft.Kind == typegraph.Pointer {
					ft = ft.Elem
				}
				quoted := false
				if hasOption(opts, "string") {
					switch kind(ft) {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if name != "" || !sf.Embedded || kind(ft) != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					fl := field{name: name, tagged: tagged, index: index, members: path, quoted: quoted}
					found = append(found, fl)
					if count[f.typ.Name] > 1 {
						// Embedded twice at this depth: a duplicate makes
						// the dominance rule drop both.
						found = append(found, fl)
					}
					continue
				}
				nextCount[ft.Name]++
				if nextCount[ft.Name] == 1 {
					next = append(next, level{typ: ft, index: index, members: path})
				}
			}
		}
	}
	slices.SortFunc(found, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var out []field
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].name == found[i].name {
			j++
		}
		if dominant, ok := dominantField(found[i:j]); ok {
			out = append(out, dominant)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out, nil
}

// dominantField is encoding/json's: the first of fields (sorted by depth,
// then tagged first) unless the next is as deep and as tagged.
func dominantField(fs []field) (field, bool) {
	if len(fs) > 1 && len(fs[0].index) == len(fs[1].index) && fs[0].tagged == fs[1].tagged {
		return field{}, false
	}
	return fs[0], true
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTag is encoding/json's isValidTag.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// kind is the reflect.Kind of t.
func kind(t *typegraph.Type) reflect.Kind {
	switch t.Kind {
	case typegraph.Builtin:
		return builtinKinds[t.Name.Name]
	case typegraph.Alias:
		return kind(t.Underlying)
	case typegraph.Struct:
		return reflect.Struct
	case typegraph.Map:
		return reflect.Map
	case typegraph.Slice:
		return reflect.Slice
	case typegraph.Pointer:
		return reflect.Pointer
	case typegraph.Array:
		return reflect.Array
	case typegraph.Interface:
		return reflect.Interface
	case typegraph.Chan:
		return reflect.Chan
	case typegraph.Func:
		return reflect.Func
	}
	return reflect.Invalid
}

var builtinKinds = map[string]reflect.Kind{
	"bool": reflect.Bool, "string": reflect.String,
	"int": reflect.Int, "int8": reflect.Int8, "int16": reflect.Int16, "int32": reflect.Int32, "int64": reflect.Int64, "rune": reflect.Int32,
	"uint": reflect.Uint, "uint8": reflect.Uint8, "uint16": reflect.Uint16, "uint32": reflect.Uint32, "uint64": reflect.Uint64, "byte": reflect.Uint8,
	"uintptr": reflect.Uintptr, "float32": reflect.Float32, "float64": reflect.Float64,
	"complex64": reflect.Complex64, "complex128": reflect.Complex128,
}
