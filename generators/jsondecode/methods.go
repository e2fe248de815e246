package jsondecode

import (
	"slices"

	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// unmarshaler is what encoding/json finds on a pointer to a type.
type unmarshaler int

const (
	plainType     unmarshaler = iota
	jsonMethod                // json.Unmarshaler: UnmarshalJSON gets the value's bytes
	textMethod                // encoding.TextUnmarshaler, without UnmarshalJSON
	unknownMethod             // cannot tell from the syntax: decode reflectively
)

const unmarshalSignature = "([]byte) error"

// unmarshalerOf says which of the unmarshalers encoding/json looks for
// the method set of *t holds: t's own methods, or ones promoted from
// embedded fields by Go's rules (the shallowest depth wins; two at that
// depth, or a field of the same name, hide it).
func unmarshalerOf(t *typegraph.Type) (unmarshaler, error) {
	j, err := ptrMethod(t, "UnmarshalJSON")
	if err != nil || j == unknownMethod {
		return unknownMethod, err
	}
	if j == jsonMethod {
		return jsonMethod, nil
	}
	x, err := ptrMethod(t, "UnmarshalText")
	if err != nil || x == unknownMethod {
		return unknownMethod, err
	}
	if x == jsonMethod {
		return textMethod, nil
	}
	return plainType, nil
}

// ptrMethod looks name up in the method set of *t: jsonMethod when it is
// there with the unmarshalers' signature, plainType when it is not there,
// unknownMethod when an embedded interface could supply it or it has
// another signature.
func ptrMethod(t *typegraph.Type, name string) (unmarshaler, error) {
	if !t.IsNamed() || t.Kind == typegraph.Builtin {
		return plainType, nil
	}
	if t.Kind == typegraph.Interface {
		return unknownMethod, nil
	}
	type entry struct {
		t     *typegraph.Type
		count int // how many paths reach it at this depth
	}
	level := []entry{{t, 1}}
	seen := map[typegraph.Name]bool{} // at shallower depths
	for len(level) > 0 {
		var (
			next       []entry
			methods    int // of that name
			method     *typegraph.Method
			fieldsLike int // fields of that name, and interfaces that may have it
		)
		for _, e := range level {
			lt := e.t
			if lt.IsNamed() && seen[lt.Name] {
				continue
			}
			if lt.Kind == typegraph.Interface {
				fieldsLike += e.count
				continue
			}
			if m := lt.Method(name); m != nil {
				methods += e.count
				method = m
			}
			if lt.Kind != typegraph.Struct {
				continue
			}
			members, err := lt.Members()
			if err != nil {
				return unknownMethod, err
			}
			for _, m := range members {
				if m.Name == name {
					fieldsLike += e.count
				}
				if !m.Embedded {
					continue
				}
				et := m.Type
				if et.Kind == typegraph.Pointer && !et.IsNamed() {
					et = et.Elem
				}
				i := slices.IndexFunc(next, func(n entry) bool { return et.IsNamed() && n.t.Name == et.Name })
				if i >= 0 {
					next[i].count += e.count
				} else {
					next = append(next, entry{et, e.count})
				}
			}
		}
		for _, e := range level {
			if e.t.IsNamed() {
				seen[e.t.Name] = true
			}
		}
		switch {
		case methods == 1 && fieldsLike == 0:
			if method.Signature != unmarshalSignature && method.Signature != "([]uint8) error" {
				return unknownMethod, nil
			}
			return jsonMethod, nil
		case methods > 1:
			return plainType, nil
		case fieldsLike > 0:
			// A field hides the method, or an interface may hold it.
			return unknownMethod, nil
		}
		level = next
	}
	return plainType, nil
}
