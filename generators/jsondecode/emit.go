package jsondecode

import (
	"fmt"
	"go/token"
	"path"
	"reflect"
	"regexp"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// RuntimePkg is the package the generated decoders run on.
const RuntimePkg = "github.com/ctrlgen/ctrlgen/runtime/jsoncodec"

// emitter writes decode functions into a file: one per named type the
// roots reach, each decoding into *T as encoding/json decodes into a
// settable T (its UnmarshalJSON or UnmarshalText first, if *T has one).
type emitter struct {
	f *gen.File
	// rt qualifies the runtime package's names: "jsoncodec." or "".
	rt string
	// prefix starts function names; funcName builds the rest.
	prefix string
	// shipped names the runtime's decoders of types it ships, used
	// rather than generating them again.
	shipped func(typegraph.Name) (string, bool)
	funcs   map[typegraph.Name]string
	taken   map[string]bool
	queue   []*typegraph.Type
	tmp     int
	// qualifyName makes the part of a function name that says which
	// package the type is from ("" for the main types package).
	qualifyName func(pkg string) string
}

func newEmitter(f *gen.File, prefix string, shipped func(typegraph.Name) (string, bool), qualifyName func(string) string) *emitter {
	e := &emitter{
		f:           f,
		prefix:      prefix,
		shipped:     shipped,
		funcs:       map[typegraph.Name]string{},
		taken:       map[string]bool{},
		qualifyName: qualifyName,
	}
	if q := f.ImportAs(RuntimePkg, "jsoncodec"); q != "" {
		e.rt = q + "."
	}
	return e
}

func (e *emitter) p(format string, args ...any) { fmt.Fprintf(e.f, format, args...) }

// typeName writes t as Go source in the file.
func (e *emitter) typeName(t *typegraph.Type) string {
	return t.Print(func(pkg string) string { return e.f.ImportAs(pkg, importAlias(pkg)) })
}

var versionElem = regexp.MustCompile(`^v[0-9]+`)

// importAlias is the alias to import pkg under: its last element, with the
// one before it in front when the last is a version (metav1, corev1).
func importAlias(pkg string) string {
	base := gen.DefaultAlias(pkg)
	if versionElem.MatchString(path.Base(pkg)) {
		if dir := path.Dir(pkg); dir != "." {
			return gen.DefaultAlias(dir) + base
		}
	}
	return base
}

// funcFor returns the name of t's decode function, queueing it.
func (e *emitter) funcFor(t *typegraph.Type) string {
	if name, ok := e.funcs[t.Name]; ok {
		return name
	}
	if name, ok := e.shipped(t.Name); ok {
		if q := e.f.ImportAs(RuntimePkg, "jsoncodec"); q != "" {
			name = q + "." + name
		}
		e.funcs[t.Name] = name
		return name
	}
	base := e.prefix + e.qualifyName(t.Name.Pkg) + t.Name.Name
	name := base
	for i := 2; e.taken[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	e.taken[name] = true
	e.funcs[t.Name] = name
	e.queue = append(e.queue, t)
	return name
}

// flush writes every queued function, and those they queue.
func (e *emitter) flush() error {
	for len(e.queue) > 0 {
		t := e.queue[0]
		e.queue = e.queue[1:]
		if err := e.function(t); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) function(t *typegraph.Type) error {
	name := e.funcs[t.Name]
	e.p("// %s decodes JSON into *v as encoding/json does.\n", name)
	e.p("func %s(d *%sDecoder, v *%s) {\n", name, e.rt, e.typeName(t))
	e.tmp = 0
	m, err := unmarshalerOf(t)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", t.Pos, t.Name.Name, err)
	}
	switch {
	case m != plainType:
		e.withMethod("v", t, m)
	case t.Kind == typegraph.Struct:
		if err := e.structBody(t); err != nil {
			return err
		}
	case t.Kind == typegraph.Alias:
		e.unnamed("v", t.Underlying)
	case t.Kind == typegraph.Array:
		e.unnamed("v", &typegraph.Type{Kind: typegraph.Array, Elem: t.Elem, Len: t.Len})
	default:
		e.fallback("v")
	}
	e.p("}\n\n")
	return nil
}

// value writes the statements decoding into *ptr, a pointer to a settable
// value of type t.
func (e *emitter) value(ptr string, t *typegraph.Type) {
	switch {
	case t.Kind == typegraph.Builtin:
		e.builtin(ptr, t)
	case t.IsNamed():
		e.named(ptr, t)
	default:
		e.unnamed(ptr, t)
	}
}

func (e *emitter) fallback(ptr string) { e.p("d.Fallback(%s)\n", ptr) }

func (e *emitter) builtin(ptr string, t *typegraph.Type) {
	switch k := builtinKinds[t.Name.Name]; k {
	case reflect.String:
		e.p("%sString(d, %s)\n", e.rt, ptr)
	case reflect.Bool:
		e.p("%sBool(d, %s)\n", e.rt, ptr)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.p("%sInt(d, %s)\n", e.rt, ptr)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.p("%sUint(d, %s)\n", e.rt, ptr)
	case reflect.Float32, reflect.Float64:
		e.p("%sFloat(d, %s)\n", e.rt, ptr)
	default: // complex numbers, error
		e.fallback(ptr)
	}
}

// replaced are types whose UnmarshalJSON the runtime does the work of
// itself, where it can without encoding/json (see jsoncodec.Time).
var replaced = map[typegraph.Name]string{
	{Pkg: metav1, Name: "Time"}:      "Time",
	{Pkg: metav1, Name: "MicroTime"}: "MicroTime",
}

// named decodes into a named type: its unmarshaler, or its function.
func (e *emitter) named(ptr string, t *typegraph.Type) {
	if !e.writable(t) {
		e.fallback(ptr)
		return
	}
	if fn, ok := replaced[t.Name]; ok {
		e.p("%s%s(d, %s)\n", e.rt, fn, ptr)
		return
	}
	m, err := unmarshalerOf(t)
	if err != nil {
		m = unknownMethod
	}
	if m != plainType {
		e.withMethod(ptr, t, m)
		return
	}
	switch t.Kind {
	case typegraph.Struct, typegraph.Array:
		e.p("%s(d, %s)\n", e.funcFor(t), ptr)
	case typegraph.Alias:
		if t.Underlying.Kind == typegraph.Builtin {
			e.builtin(ptr, t.Underlying)
		} else {
			e.p("%s(d, %s)\n", e.funcFor(t), ptr)
		}
	default: // named pointers, interfaces, channels, functions
		e.fallback(ptr)
	}
}

// withMethod decodes with *t's UnmarshalJSON or UnmarshalText.
func (e *emitter) withMethod(ptr string, t *typegraph.Type, m unmarshaler) {
	switch m {
	case jsonMethod:
		e.p("d.Unmarshal(%s)\n", ptr)
	case textMethod:
		// null goes by the underlying kind, as for a plain type.
		if nullable(t) {
			e.p("if d.Null() {\n%s = nil\n} else {\nd.Text(%s)\n}\n", deref(ptr), ptr)
		} else {
			e.p("if !d.Null() {\nd.Text(%s)\n}\n", ptr)
		}
	default:
		e.fallback(ptr)
	}
}

func nullable(t *typegraph.Type) bool {
	switch kind(t) {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		return true
	}
	return false
}

// deref is the value a pointer expression points at.
func deref(ptr string) string {
	if rest, ok := strings.CutPrefix(ptr, "&"); ok {
		return rest
	}
	return "(*" + ptr + ")"
}

func (e *emitter) newTmp(name string) string {
	e.tmp++
	return fmt.Sprintf("%s%d", name, e.tmp)
}

// unnamed decodes into a composite type written out: pointers, slices,
// arrays, maps, empty interfaces.
func (e *emitter) unnamed(ptr string, t *typegraph.Type) {
	x := deref(ptr)
	switch t.Kind {
	case typegraph.Builtin:
		e.builtin(ptr, t)
	case typegraph.Pointer:
		el := t.Elem
		switch {
		case el.Kind == typegraph.Pointer, el.Kind == typegraph.Interface,
			el.Kind == typegraph.Struct && !el.IsNamed(), el.IsNamed() && !e.writable(el):
			e.fallback(ptr)
			return
		}
		e.p("if d.Null() {\n%s = nil\n} else {\n%sAlloc(%s)\n", x, e.rt, ptr)
		e.value(x, el)
		e.p("}\n")
	case typegraph.Slice:
		el := t.Elem
		if el.Kind == typegraph.Builtin && builtinKinds[el.Name.Name] == reflect.Uint8 {
			e.p("%sBytes(d, %s)\n", e.rt, ptr)
			return
		}
		if kind(el) == reflect.Uint8 {
			e.fallback(ptr) // a named byte type: base64 into it needs reflection
			return
		}
		s, i := e.newTmp("s"), e.newTmp("i")
		e.p("if d.Null() {\n%s = nil\n} else if d.Array() {\n%s, %s := %s, 0\nfor d.Elem() {\n", x, s, i, x)
		e.p("%s = %sGrowTo(%s, %s)\n", s, e.rt, s, i)
		e.value(fmt.Sprintf("&%s[%s]", s, i), el)
		e.p("%s++\n}\n%s = %sEndSlice(%s, %s)\n}\n", i, x, e.rt, s, i)
	case typegraph.Array:
		i := e.newTmp("i")
		e.p("if d.Array() {\n%s := 0\nfor d.Elem() {\nif %s < len(%s) {\n", i, i, x)
		e.value(fmt.Sprintf("&%s[%s]", x, i), t.Elem)
		e.p("} else {\nd.Skip()\n}\n%s++\n}\nif %s < len(%s) {\nclear(%s[%s:])\n}\n}\n", i, i, x, x, i)
	case typegraph.Map:
		e.mapValue(ptr, x, t)
	case typegraph.Interface:
		if t.Why != "" {
			e.fallback(ptr)
			return
		}
		e.p("%sAny(d, %s)\n", e.rt, ptr)
	default: // struct literals, channels, functions, generics
		e.fallback(ptr)
	}
}

func (e *emitter) mapValue(ptr, x string, t *typegraph.Type) {
	key := t.Key
	var keyFunc string
	switch k := kind(key); {
	case k == reflect.String:
		keyFunc = "StringKey"
	case k >= reflect.Int && k <= reflect.Int64:
		keyFunc = "IntKey"
	case k >= reflect.Uint && k <= reflect.Uintptr:
		keyFunc = "UintKey"
	}
	if keyFunc == "" || key.IsNamed() && key.Kind != typegraph.Builtin && !e.writable(key) {
		e.fallback(ptr)
		return
	}
	if m, err := unmarshalerOf(key); err != nil || m != plainType {
		// encoding/json reads such keys with UnmarshalText (or
		// UnmarshalJSON, given quotes and all).
		e.fallback(ptr)
		return
	}
	k, el := e.newTmp("k"), e.newTmp("e")
	e.p("if d.Null() {\n%s = nil\n} else if d.Object() {\n%sMakeMap(%s)\n", x, e.rt, ptr)
	e.p("for key, ok := d.Key(); ok; key, ok = d.Key() {\n")
	e.p("%s := %s%s(d, %s, key)\n", k, e.rt, keyFunc, x)
	e.p("%s := %sZeroElem(%s)\n", el, e.rt, x)
	e.value("&"+el, t.Elem)
	e.p("%s[%s] = %s\n}\n}\n", x, k, el)
}

// structBody decodes each member by its JSON name; unknown ones are
// skipped. A struct whose fields generated code cannot reach (through
// unexported embedded structs of another package) or decode natively
// (",string" on a type with unmarshalers) is decoded reflectively.
func (e *emitter) structBody(t *typegraph.Type) error {
	fs, err := fields(t)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", t.Pos, t.Name.Name, err)
	}
	for _, f := range fs {
		if !e.reachable(t, f) {
			e.fallback("v")
			return nil
		}
	}
	e.p("if !d.Object() {\nreturn\n}\n")
	if len(fs) == 0 {
		e.p("for _, ok := d.Key(); ok; _, ok = d.Key() {\nd.Skip()\n}\n")
		return nil
	}
	e.p("for key, ok := d.Key(); ok; key, ok = d.Key() {\nswitch string(key) {\n")
	for _, f := range fs {
		e.p("case %q:\n", f.name)
		sel := "v"
		for i, m := range f.members {
			sel += "." + m.Name
			if i < len(f.members)-1 && m.Type.Kind == typegraph.Pointer {
				// encoding/json allocates an embedded pointer as soon
				// as one of its fields is named.
				e.p("%sAlloc(&%s)\n", e.rt, sel)
			}
		}
		ft := f.members[len(f.members)-1].Type
		if f.quoted {
			e.quoted("&"+sel, ft)
		} else {
			e.value("&"+sel, ft)
		}
	}
	e.p("default:\nd.Skip()\n}\n}\n")
	return nil
}

// reachable reports whether generated code can decode field f of t: every
// member on its path can be named from the file's package, and a
// ",string" field is of a type decoded without methods.
func (e *emitter) reachable(t *typegraph.Type, f field) bool {
	for _, m := range f.members {
		if !token.IsExported(m.Name) && t.Name.Pkg != e.f.ImportPath {
			return false
		}
	}
	if f.quoted {
		ft := f.members[len(f.members)-1].Type
		if ft.Kind == typegraph.Pointer && !ft.IsNamed() {
			ft = ft.Elem
		}
		if m, err := unmarshalerOf(ft); err != nil || m != plainType {
			return false
		}
	}
	return true
}

// quoted decodes a ",string" field of a bool, number or string type, or a
// pointer to one.
func (e *emitter) quoted(ptr string, t *typegraph.Type) {
	suffix := ""
	if t.Kind == typegraph.Pointer && !t.IsNamed() {
		suffix, t = "Ptr", t.Elem
	}
	var fn string
	switch k := kind(t); {
	case k == reflect.String:
		fn = "QuotedString"
	case k == reflect.Bool:
		fn = "QuotedBool"
	case k >= reflect.Int && k <= reflect.Int64:
		fn = "QuotedInt"
	case k >= reflect.Uint && k <= reflect.Uintptr:
		fn = "QuotedUint"
	default:
		fn = "QuotedFloat"
	}
	e.p("%s%s%s(d, %s)\n", e.rt, fn, suffix, ptr)
}

// writable reports whether a named type can be written in the file: it
// is exported, or in the file's own package, and its package can be
// imported from there.
func (e *emitter) writable(t *typegraph.Type) bool {
	if t.Name.Pkg == "" || t.Name.Pkg == e.f.ImportPath {
		return true
	}
	return token.IsExported(t.Name.Name) && importable(e.f.ImportPath, t.Name.Pkg)
}

// importable is the go command's rule for internal packages.
func importable(from, pkg string) bool {
	i := strings.LastIndex(pkg, "/internal/")
	switch {
	case i >= 0:
	case strings.HasSuffix(pkg, "/internal"):
		i = len(pkg) - len("/internal")
	case strings.HasPrefix(pkg, "internal/"), pkg == "internal":
		return false
	default:
		return true
	}
	parent := pkg[:i]
	return from == parent || strings.HasPrefix(from, parent+"/")
}
