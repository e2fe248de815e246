package deepcopy

import (
	"fmt"

	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// generateFor writes the body that copies *in to *out for a value of type
// t, by t's underlying kind; the do* functions construct values with t
// itself, so a named map stays named. A type with its own deep copy,
// pointers aside, is copied with it.
func (w *writer) generateFor(t *typegraph.Type) error {
	kind := t.Resolved().Kind
	if kind != typegraph.Pointer {
		if has, _, err := hasMethods(t); has || err != nil {
			w.p("*out = in.DeepCopy()\n")
			return err
		}
	}
	switch kind {
	case typegraph.Builtin:
		w.p("*out = *in\n")
		return nil
	case typegraph.Map:
		return w.doMap(t)
	case typegraph.Slice:
		return w.doSlice(t)
	case typegraph.Struct:
		return w.doStruct(t)
	case typegraph.Pointer:
		return w.doPointer(t)
	}
	return unsupported(t)
}

func unsupported(t *typegraph.Type) error {
	u := t.Resolved()
	if u.Kind == typegraph.Interface && !u.IsNamed() {
		return fmt.Errorf("cannot deep-copy %s: use a named interface that has a DeepCopy<Interface> method", t)
	}
	if u.Why != "" {
		return fmt.Errorf("cannot deep-copy %s: %s", t, u.Why)
	}
	return fmt.Errorf("cannot deep-copy %s (%s)", t, u.Kind)
}

// hasMethods reports whether t has DeepCopy or DeepCopyInto, and whether
// DeepCopy returns a pointer (for a DeepCopyInto alone: whether t is not a
// reference type).
func hasMethods(t *typegraph.Type) (has, ptrResult bool, err error) {
	dc, dci, err := methods(t)
	if err != nil || (dc == nil && dci == nil) {
		return false, false, err
	}
	if dc != nil {
		return true, dc.Results[0].Ptr, nil
	}
	return true, !t.IsReference(), nil
}

func (w *writer) doMap(t *typegraph.Type) error {
	ut := t.Resolved()
	uet := ut.Elem.Resolved()
	if ok, err := ut.Key.IsAssignable(); !ok || err != nil {
		if err != nil {
			return err
		}
		return fmt.Errorf("cannot deep-copy map key %s", ut.Key)
	}
	w.p("*out = make(%s, len(*in))\nfor key, val := range *in {\n", w.name(t))
	has, rightPointer, err := hasMethods(ut.Elem)
	if err != nil {
		return err
	}
	if has {
		leftPointer := ut.Elem.Kind == typegraph.Pointer
		switch {
		case leftPointer == rightPointer:
			w.p("(*out)[key] = val.DeepCopy()\n}\n")
		case leftPointer:
			w.p("x := val.DeepCopy()\n(*out)[key] = &x\n}\n")
		default:
			w.p("(*out)[key] = *val.DeepCopy()\n}\n")
		}
		return nil
	}
	assignable, err := uet.IsAssignable()
	if err != nil {
		return err
	}
	switch {
	case ut.Elem.IsEmptyStruct(), assignable:
		w.p("(*out)[key] = val\n")
	case uet.Kind == typegraph.Interface:
		if !uet.IsNamed() {
			return unsupported(uet)
		}
		w.p("if val == nil {(*out)[key]=nil} else {\n(*out)[key] = val.DeepCopy%s()\n}\n", uet.Name.Name)
	case uet.Kind == typegraph.Slice, uet.Kind == typegraph.Map, uet.Kind == typegraph.Pointer:
		w.p("var outVal %s\nif val == nil { (*out)[key] = nil } else {\nin, out := &val, &outVal\n", w.name(uet))
		if err := w.generateFor(ut.Elem); err != nil {
			return err
		}
		w.p("}\n(*out)[key] = outVal\n")
	case uet.Kind == typegraph.Struct:
		w.p("(*out)[key] = *val.DeepCopy()\n")
	default:
		return unsupported(uet)
	}
	w.p("}\n")
	return nil
}

func (w *writer) doSlice(t *typegraph.Type) error {
	ut := t.Resolved()
	uet := ut.Elem.Resolved()
	w.p("*out = make(%s, len(*in))\n", w.name(t))
	if has, _, err := hasMethods(ut.Elem); has || err != nil {
		w.p("for i := range *in {\n(*in)[i].DeepCopyInto(&(*out)[i])\n}\n")
		return err
	}
	if assignable, err := uet.IsAssignable(); assignable || err != nil {
		w.p("copy(*out, *in)\n")
		return err
	}
	w.p("for i := range *in {\n")
	switch uet.Kind {
	case typegraph.Slice, typegraph.Map, typegraph.Pointer:
		w.p("if (*in)[i] != nil {\nin, out := &(*in)[i], &(*out)[i]\n")
		if err := w.generateFor(ut.Elem); err != nil {
			return err
		}
		w.p("}\n")
	case typegraph.Interface:
		if !uet.IsNamed() {
			return unsupported(uet)
		}
		w.p("if (*in)[i] != nil {\n(*out)[i] = (*in)[i].DeepCopy%s()\n}\n", uet.Name.Name)
	case typegraph.Struct:
		w.p("(*in)[i].DeepCopyInto(&(*out)[i])\n")
	default:
		return unsupported(uet)
	}
	w.p("}\n")
	return nil
}

func (w *writer) doStruct(t *typegraph.Type) error {
	w.p("*out = *in\n")
	members, err := t.Resolved().Members()
	if err != nil {
		return err
	}
	for _, m := range members {
		if err := w.member(m); err != nil {
			return fmt.Errorf("field %s: %w", m.Name, err)
		}
	}
	return nil
}

// member fixes up one field after "*out = *in".
func (w *writer) member(m typegraph.Member) error {
	ft := m.Type
	uft := ft.Resolved()
	has, rightPointer, err := hasMethods(ft)
	if err != nil {
		return err
	}
	n := m.Name
	switch {
	case has:
		leftPointer := ft.Kind == typegraph.Pointer
		switch {
		case leftPointer == rightPointer:
			w.p("out.%s = in.%s.DeepCopy()\n", n, n)
		case leftPointer:
			w.p("x := in.%s.DeepCopy()\nout.%s = &x\n", n, n)
		default:
			w.p("in.%s.DeepCopyInto(&out.%s)\n", n, n)
		}
	case uft.Kind == typegraph.Builtin:
		// "*out = *in" copied it.
	case uft.Kind == typegraph.Map, uft.Kind == typegraph.Slice, uft.Kind == typegraph.Pointer:
		w.p("if in.%s != nil {\nin, out := &in.%s, &out.%s\n", n, n, n)
		if err := w.generateFor(ft); err != nil {
			return err
		}
		w.p("}\n")
	case uft.Kind == typegraph.Array:
		w.p("out.%s = in.%s\n", n, n)
	case uft.Kind == typegraph.Struct:
		if assignable, err := ft.IsAssignable(); err != nil {
			return err
		} else if assignable {
			w.p("out.%s = in.%s\n", n, n)
		} else {
			w.p("in.%s.DeepCopyInto(&out.%s)\n", n, n)
		}
	case uft.Kind == typegraph.Interface:
		if !uft.IsNamed() {
			return unsupported(uft)
		}
		w.p("if in.%s != nil {\nout.%s = in.%s.DeepCopy%s()\n}\n", n, n, n, uft.Name.Name)
	default:
		return unsupported(ft)
	}
	return nil
}

func (w *writer) doPointer(t *typegraph.Type) error {
	ut := t.Resolved()
	uet := ut.Elem.Resolved()
	has, rightPointer, err := hasMethods(ut.Elem)
	if err != nil {
		return err
	}
	switch {
	case has && rightPointer:
		w.p("*out = (*in).DeepCopy()\n")
		return nil
	case has:
		w.p("x := (*in).DeepCopy()\n*out = &x\n")
		return nil
	}
	assignable, err := uet.IsAssignable()
	if err != nil {
		return err
	}
	switch {
	case assignable:
		w.p("*out = new(%s)\n**out = **in\n", w.name(ut.Elem))
	case uet.Kind == typegraph.Map, uet.Kind == typegraph.Slice, uet.Kind == typegraph.Pointer:
		w.p("*out = new(%s)\nif **in != nil {\nin, out := *in, *out\n", w.name(ut.Elem))
		if err := w.generateFor(uet); err != nil {
			return err
		}
		w.p("}\n")
	case uet.Kind == typegraph.Struct:
		w.p("*out = new(%s)\n(*in).DeepCopyInto(*out)\n", w.name(ut.Elem))
	default:
		return unsupported(uet)
	}
	return nil
}
