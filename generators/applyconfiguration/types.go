package applyconfiguration

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// typeWriter writes one type's apply configuration, as
// applyconfiguration-gen's applyConfigurationGenerator.GenerateType.
type typeWriter struct {
	g    *graph
	f    *gen.File
	v    *model.Version
	t    *typegraph.Type
	kind *model.Kind // nil unless t is a +genclient kind
	ac   string      // <Type>ApplyConfiguration
}

// member is a field being written, and the embedded field it is reached
// through, if any.
type member struct {
	m          typegraph.Member
	typ        *acType // the apply configuration type of the field
	tags       jsonTags
	embeddedIn *member
	// inGo is true for a field of a struct embedded as its Go type, one
	// without an apply configuration (applyconfiguration-gen writes them
	// for types of its input packages only: knative's DomainMappingStatus
	// embeds knative.dev/pkg's duckv1.Status as itself). The field keeps
	// its Go type, and With sets it as the struct declares it.
	inGo bool
}

// newMember is m, a field of the type or of the struct embed embeds in
// it, as its With function and getter see it.
func (w *typeWriter) newMember(m typegraph.Member, tags jsonTags, embed *member) *member {
	mp := &member{m: m, tags: tags, embeddedIn: embed}
	mp.inGo = embed != nil && (embed.inGo || !w.g.isApplyConfig(embed.m.Type))
	switch {
	case mp.inGo:
		mp.typ = w.g.goTypeOf(w.f, m.Type)
	case w.g.isApplyConfig(m.Type):
		mp.typ = w.g.acTypeOf(w.f, m.Type).ptr()
	default:
		mp.typ = w.g.acTypeOf(w.f, m.Type)
	}
	return mp
}

// byPointer reports whether the field holds a pointer to the value
// With takes: in an apply configuration, every field but apply
// configurations (pointers already), slices and maps; in a Go struct,
// the pointers it declares.
func (w *typeWriter) byPointer(m *member) bool {
	if m.inGo {
		return m.m.Type.Kind == typegraph.Pointer
	}
	return !w.g.isApplyConfig(m.m.Type) && !isNillable(m.m.Type)
}

// path is how a With function reaches the field from its receiver:
// b.Field, or b.<Embedded>.Field.
func (m *member) path() string {
	if m.embeddedIn == nil {
		return "b." + m.m.Name
	}
	return "b." + m.embeddedIn.typ.target().name + "." + m.m.Name
}

func (w *typeWriter) write() error {
	w.ac = w.t.Name.Name + applyConfigSuffix
	if err := w.writeStruct(); err != nil {
		return err
	}
	hasTypeMeta, err := w.t.Embeds(metaV1Pkg, "TypeMeta")
	if err != nil {
		return err
	}
	switch {
	case w.kind != nil:
		w.constructorForKind()
		w.extract()
	case hasTypeMeta:
		w.f.P()
		w.f.P("// ", w.ac, " constructs a declarative configuration of the ", w.t.Name.Name, " type for use with")
		w.f.P("// apply.")
		w.f.P("func ", w.t.Name.Name, "() *", w.ac, " {")
		w.f.P("b := &", w.ac, "{}")
		w.f.P(`b.WithKind("`, w.t.Name.Name, `")`)
		w.f.P(`b.WithAPIVersion("`, apiVersion(w.v), `")`)
		w.f.P("return b")
		w.f.P("}")
	default:
		w.f.P()
		w.f.P("// ", w.ac, " constructs a declarative configuration of the ", w.t.Name.Name, " type for use with")
		w.f.P("// apply.")
		w.f.P("func ", w.t.Name.Name, "() *", w.ac, " {")
		w.f.P("return &", w.ac, "{}")
		w.f.P("}")
	}
	if w.kind != nil || hasTypeMeta {
		w.f.P()
		w.f.P("func (b ", w.ac, ") IsApplyConfiguration() {}")
	}
	var generated []string
	if err := w.withFuncs(w.t, nil, &generated); err != nil {
		return err
	}
	return w.getters(w.t, nil)
}

// blocklisted are the fields applyconfiguration-gen leaves out.
func blocklisted(t *typegraph.Type, m typegraph.Member) bool {
	if t.Name == (typegraph.Name{Pkg: metaV1Pkg, Name: "ObjectMeta"}) && (m.Name == "ManagedFields" || m.Name == "SelfLink") {
		return true
	}
	return strings.HasPrefix(m.Name, "ZZZ_")
}

func isNillable(t *typegraph.Type) bool { return t.Kind == typegraph.Slice || t.Kind == typegraph.Map }

// writeStruct writes the type declaration, formatted on its own: its
// fields need gofmt's alignment and its doc comment gofmt's rewriting.
func (w *typeWriter) writeStruct() error {
	var b bytes.Buffer
	p := func(args ...any) {
		fmt.Fprint(&b, args...)
		b.WriteByte('\n')
	}
	f := w.f
	p("// ", w.ac, " represents a declarative configuration of the ", w.t.Name.Name, " type for use")
	p("// with apply.")
	if c := commentsWithoutMarkers(w.t.Comments); c != "" {
		p("//")
		b.WriteString(c)
	}
	p("type ", w.ac, " struct {")
	members, err := w.t.Members()
	if err != nil {
		return err
	}
	for _, m := range members {
		if blocklisted(w.t, m) {
			continue
		}
		tags, ok := lookupJSONTags(m)
		if !ok {
			continue
		}
		if !tags.inline {
			tags.omitempty = true
		}
		typ := w.g.acTypeOf(f, m.Type)
		b.WriteString(commentsWithoutMarkers(m.Comments))
		switch {
		case m.Embedded && tags.inline:
			p(typ.text, " `json:\"", tags, "\"`")
		case m.Embedded:
			p("*", typ.text, " `json:\"", tags, "\"`")
		case isNillable(m.Type):
			p(m.Name, " ", typ.text, " `json:\"", tags, "\"`")
		default:
			p(m.Name, " *", typ.text, " `json:\"", tags, "\"`")
		}
	}
	p("}")
	decl, err := gen.FormatDecl(b.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %w", w.ac, err)
	}
	_, err = f.Write(decl)
	return err
}

func (w *typeWriter) constructorForKind() {
	f, k := w.f, w.kind
	f.P()
	f.P("// ", k.Name, " constructs a declarative configuration of the ", k.Name, " type for use with")
	f.P("// apply.")
	if k.Namespaced {
		f.P("func ", k.Name, "(name, namespace string) *", w.ac, " {")
	} else {
		f.P("func ", k.Name, "(name string) *", w.ac, " {")
	}
	f.P("b := &", w.ac, "{}")
	f.P("b.WithName(name)")
	if k.Namespaced {
		f.P("b.WithNamespace(namespace)")
	}
	f.P(`b.WithKind("`, k.Name, `")`)
	f.P(`b.WithAPIVersion("`, apiVersion(w.v), `")`)
	f.P("return b")
	f.P("}")
}

// extract writes Extract<Kind>From, Extract<Kind> and one
// Extract<Kind><Subresource> per subresource: status when the kind has
// one, and those of its "+genclient:method=" extras.
func (w *typeWriter) extract() {
	f, k := w.f, w.kind
	obj := goname.LowerFirst(k.Name)
	if obj == "b" || obj == "err" || obj == "fieldManager" || obj == "subresource" {
		obj += "Obj"
	}
	typ := w.g.ident(f, k.Version.TypesPkg, k.Name)
	parser := w.g.ident(f, w.g.p.ApplyConfigurationsPkg+"/"+internalPkgElement, "Parser")
	f.P()
	f.P("// Extract", k.Name, "From extracts the applied configuration owned by fieldManager from")
	f.P("// ", obj, " for the specified subresource. Pass an empty string for subresource to extract")
	f.P(`// the main resource. Common subresources include "status", "scale", etc.`)
	f.P("// ", obj, " must be a unmodified ", k.Name, " API object that was retrieved from the Kubernetes API.")
	f.P("// Extract", k.Name, "From provides a way to perform a extract/modify-in-place/apply workflow.")
	f.P("// Note that an extracted apply configuration will contain fewer fields than what the fieldManager previously")
	f.P("// applied if another fieldManager has updated or force applied any of the previously applied fields.")
	f.P("func Extract", k.Name, "From(", obj, " *", typ, ", fieldManager string, subresource string) (*", w.ac, ", error) {")
	f.P("b := &", w.ac, "{}")
	f.P("err := ", f.ImportAs(managedFieldsPkg, "managedfields"), ".ExtractInto(", obj, ", ", parser, `().Type("`, openAPIName(k.Type.Name), `"), fieldManager, b, subresource)`)
	f.P("if err != nil {")
	f.P("return nil, err")
	f.P("}")
	f.P("b.WithName(", obj, ".Name)")
	if k.Namespaced {
		f.P("b.WithNamespace(", obj, ".Namespace)")
	}
	f.P()
	f.P(`b.WithKind("`, k.Name, `")`)
	f.P(`b.WithAPIVersion("`, apiVersion(w.v), `")`)
	f.P("return b, nil")
	f.P("}")
	f.P()
	f.P("// Extract", k.Name, " extracts the applied configuration owned by fieldManager from")
	f.P("// ", obj, ". If no managedFields are found in ", obj, " for fieldManager, a")
	f.P("// ", w.ac, " is returned with only the Name, Namespace (if applicable),")
	f.P("// APIVersion and Kind populated. It is possible that no managed fields were found for because other")
	f.P("// field managers have taken ownership of all the fields previously owned by fieldManager, or because")
	f.P("// the fieldManager never owned fields any fields.")
	f.P("// ", obj, " must be a unmodified ", k.Name, " API object that was retrieved from the Kubernetes API.")
	f.P("// Extract", k.Name, " provides a way to perform a extract/modify-in-place/apply workflow.")
	f.P("// Note that an extracted apply configuration will contain fewer fields than what the fieldManager previously")
	f.P("// applied if another fieldManager has updated or force applied any of the previously applied fields.")
	f.P("func Extract", k.Name, "(", obj, " *", typ, ", fieldManager string) (*", w.ac, ", error) {")
	f.P("return Extract", k.Name, "From(", obj, `, fieldManager, "")`)
	f.P("}")
	for _, sub := range subresources(k) {
		f.P()
		f.P("// Extract", k.Name, title(sub), " extracts the applied configuration owned by fieldManager from")
		f.P("// ", obj, " for the ", sub, " subresource.")
		f.P("func Extract", k.Name, title(sub), "(", obj, " *", typ, ", fieldManager string) (*", w.ac, ", error) {")
		f.P("return Extract", k.Name, "From(", obj, `, fieldManager, "`, sub, `")`)
		f.P("}")
	}
}

// subresources are applyconfiguration-gen's: status for a kind with a
// status (and no +genclient:noStatus), and every extra method's, sorted.
func subresources(k *model.Kind) []string {
	set := map[string]bool{}
	if k.HasStatus {
		set["status"] = true
	}
	for _, m := range k.Methods {
		if m.Subresource != "" {
			set[m.Subresource] = true
		}
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// title is cases.Title's result on a subresource name: the first letter
// of each word upper case, the others lower.
func title(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		isLetter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		switch {
		case start && isLetter:
			b.WriteString(strings.ToUpper(string(r)))
		default:
			b.WriteString(strings.ToLower(string(r)))
		}
		start = !isLetter && !(r >= '0' && r <= '9')
	}
	return b.String()
}

func (w *typeWriter) withFuncs(t *typegraph.Type, embed *member, generated *[]string) error {
	members, err := t.Members()
	if err != nil {
		return err
	}
	for _, m := range members {
		if blocklisted(t, m) {
			continue
		}
		tags, ok := lookupJSONTags(m)
		if !ok {
			continue
		}
		if slices.Contains(*generated, m.Name) {
			continue
		}
		*generated = append(*generated, m.Name)
		mp := w.newMember(m, tags, embed)
		if m.Embedded {
			if err := w.withFuncs(m.Type.Resolved(), mp, generated); err != nil {
				return err
			}
			if !tags.inline {
				w.ensureEmbedExists(mp)
			}
			continue
		}
		if d := deref(m.Type); !mp.inGo && d.Kind == typegraph.Slice && w.g.isApplyConfig(d.Elem) {
			w.withForSlice(mp, mp.typ.elem.ptr())
			continue
		}
		switch m.Type.Kind {
		case typegraph.Slice:
			w.withForSlice(mp, mp.typ.elem)
		case typegraph.Map:
			w.withForMap(mp)
		default:
			w.with(mp)
		}
	}
	return nil
}

func deref(t *typegraph.Type) *typegraph.Type {
	for t.Kind == typegraph.Pointer {
		t = t.Elem
	}
	return t
}

// ensureEmbedExistsIfApplicable: fields of an embedded pointer (a
// non-inline embedded struct) need it allocated first.
func (w *typeWriter) ensureEmbedExistsIfApplicable(m *member) {
	if m.embeddedIn != nil && !m.embeddedIn.tags.inline {
		w.f.P("b.ensure", m.embeddedIn.typ.target().name, "Exists()")
	}
}

func (w *typeWriter) ensureEmbedExists(m *member) {
	target := m.typ.target()
	w.f.P()
	w.f.P("func (b *", w.ac, ") ensure", target.name, "Exists() {")
	w.f.P("if b.", target.name, " == nil {")
	w.f.P("b.", target.name, " = &", target.text, "{}")
	w.f.P("}")
	w.f.P("}")
}

func (w *typeWriter) with(m *member) {
	f, name := w.f, m.m.Name
	f.P()
	f.P("// With", name, " sets the ", name, " field in the declarative configuration to the given value")
	f.P(`// and returns the receiver, so that objects can be built by chaining "With" function invocations.`)
	f.P("// If called multiple times, the ", name, " field is set to the value of the last call.")
	f.P("func (b *", w.ac, ") With", name, "(value ", m.typ.text, ") *", w.ac, " {")
	w.ensureEmbedExistsIfApplicable(m)
	if w.byPointer(m) {
		f.P(m.path(), " = &value")
	} else {
		f.P(m.path(), " = value")
	}
	f.P("return b")
	f.P("}")
}

func (w *typeWriter) withForSlice(m *member, arg *acType) {
	f, name := w.f, m.m.Name
	pointerToSlice := m.m.Type.Kind == typegraph.Pointer
	if pointerToSlice {
		f.P()
		f.P("func (b *", w.ac, ") ensure", goname.UpperFirst(m.typ.elem.name), "Exists() {")
		f.P("if b.", name, " == nil {")
		f.P("b.", name, " = &[]", m.typ.elem.text, "{}")
		f.P("}")
		f.P("}")
	}
	f.P()
	f.P("// With", name, " adds the given value to the ", name, " field in the declarative configuration")
	f.P(`// and returns the receiver, so that objects can be build by chaining "With" function invocations.`)
	f.P("// If called multiple times, values provided by each call will be appended to the ", name, " field.")
	f.P("func (b *", w.ac, ") With", name, "(values ...", arg.text, ") *", w.ac, " {")
	w.ensureEmbedExistsIfApplicable(m)
	if pointerToSlice {
		f.P("b.ensure", goname.UpperFirst(m.typ.elem.name), "Exists()")
	}
	target := m.path()
	if pointerToSlice {
		target = "*" + target
	}
	f.P("for i := range values {")
	if arg.pointer {
		f.P("if values[i] == nil {")
		f.P(`panic("nil value passed to With`, name, `")`)
		f.P("}")
		f.P(target, " = append(", target, ", *values[i])")
	} else {
		f.P(target, " = append(", target, ", values[i])")
	}
	f.P("}")
	f.P("return b")
	f.P("}")
}

func (w *typeWriter) withForMap(m *member) {
	f, name := w.f, m.m.Name
	f.P()
	f.P("// With", name, " puts the entries into the ", name, " field in the declarative configuration")
	f.P(`// and returns the receiver, so that objects can be build by chaining "With" function invocations.`)
	f.P("// If called multiple times, the entries provided by each call will be put on the ", name, " field,")
	f.P("// overwriting an existing map entries in ", name, " field with the same key.")
	f.P("func (b *", w.ac, ") With", name, "(entries ", m.typ.text, ") *", w.ac, " {")
	w.ensureEmbedExistsIfApplicable(m)
	f.P("if ", m.path(), " == nil && len(entries) > 0 {")
	f.P(m.path(), " = make(", m.typ.text, ", len(entries))")
	f.P("}")
	f.P("for k, v := range entries {")
	f.P(m.path(), "[k] = v")
	f.P("}")
	f.P("return b")
	f.P("}")
}

// needsGetter: apply needs to read name, namespace, kind and apiVersion.
func needsGetter(t *typegraph.Type, m typegraph.Member) bool {
	return t.Name == (typegraph.Name{Pkg: metaV1Pkg, Name: "ObjectMeta"}) && (m.Name == "Name" || m.Name == "Namespace") ||
		t.Name == (typegraph.Name{Pkg: metaV1Pkg, Name: "TypeMeta"}) && (m.Name == "Kind" || m.Name == "APIVersion")
}

func (w *typeWriter) getters(t *typegraph.Type, embed *member) error {
	members, err := t.Members()
	if err != nil {
		return err
	}
	for _, m := range members {
		if blocklisted(t, m) {
			continue
		}
		tags, ok := lookupJSONTags(m)
		if !ok {
			continue
		}
		mp := w.newMember(m, tags, embed)
		if m.Embedded {
			if err := w.getters(m.Type.Resolved(), mp); err != nil {
				return err
			}
			continue
		}
		if !needsGetter(t, m) {
			continue
		}
		f := w.f
		f.P()
		f.P("// Get", m.Name, " retrieves the value of the ", m.Name, " field in the declarative configuration.")
		if w.byPointer(mp) {
			f.P("func (b *", w.ac, ") Get", m.Name, "() *", mp.typ.text, " {")
		} else {
			f.P("func (b *", w.ac, ") Get", m.Name, "() ", mp.typ.text, " {")
		}
		w.ensureEmbedExistsIfApplicable(mp)
		f.P("return ", mp.path())
		f.P("}")
	}
	return nil
}
