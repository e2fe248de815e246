package builder

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// conversionMark is a kind marked +ctrlgen:webhook:conversion.
type conversionMark struct {
	kind *model.Kind
	pos  token.Position
}

const metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// conversionKinds gives every version of each kind marked
// +ctrlgen:webhook:conversion its Conversion: the storage version is the
// hub, and each other version's types are paired with the hub's of the
// same name, field by field.
func (b *builder) conversionKinds(p *model.Project) {
	done := map[string]bool{}
	for _, mark := range b.conversions {
		k := mark.kind
		key := k.Version.Group.Name + "/" + k.Name
		if done[key] {
			continue
		}
		done[key] = true
		if p.WebhooksPkg == "" {
			b.errorf(mark.pos, "cannot tell the import path of the webhooks directory next to %s, where the conversion webhook is registered: put it in a Go module, or inside --output-dir", p.ControllersDir)
			continue
		}
		var versions, storage []*model.Kind
		for _, v := range k.Version.Group.Versions {
			for _, other := range v.Kinds {
				if other.Name == k.Name {
					versions = append(versions, other)
					if other.StorageVersion {
						storage = append(storage, other)
					}
				}
			}
		}
		switch {
		case len(versions) < 2:
			b.errorf(mark.pos, "+ctrlgen:webhook:conversion on %s: %s has no other version in this run to convert to; add one (a package of the same group with a %s type), or remove conversion", gvkString(k), k.Name, k.Name)
			continue
		case len(storage) != 1:
			b.errorf(mark.pos, "+ctrlgen:webhook:conversion on %s: mark exactly one version's %s +kubebuilder:storageversion, the hub the others convert through (%d are)", gvkString(k), k.Name, len(storage))
			continue
		}
		hub := storage[0]
		if declared := handWrittenConversions(versions, hub); declared != "" {
			b.errorf(mark.pos, "+ctrlgen:webhook:conversion on %s: %s; remove those methods to have them generated, or conversion from the marker to keep them (the webhook serves them as they are)", gvkString(k), declared)
			continue
		}
		c := &model.Conversion{Hub: hub, Pos: mark.pos}
		for _, spoke := range versions {
			spoke.Conversion = c
			if spoke == hub {
				continue
			}
			s, err := b.spoke(spoke, hub)
			if err != nil {
				b.errorf(mark.pos, "+ctrlgen:webhook:conversion on %s: %v", gvkString(k), err)
				continue
			}
			c.Spokes = append(c.Spokes, s)
		}
	}
}

// handWrittenConversions names the conversion methods the versions'
// types already declare, which the generator would declare again.
func handWrittenConversions(versions []*model.Kind, hub *model.Kind) string {
	var found []string
	for _, k := range versions {
		names := []string{"ConvertTo", "ConvertFrom"}
		if k == hub {
			names = []string{"Hub"}
		}
		for _, name := range names {
			if k.Type.Method(name) != nil {
				found = append(found, fmt.Sprintf("%s/%s.%s has %s", k.Version.Group.Name, k.Version.Name, k.Name, name))
			}
		}
	}
	return strings.Join(found, ", ")
}

// spoke pairs a version's types with the hub's.
func (b *builder) spoke(k, hub *model.Kind) (*model.Spoke, error) {
	pr := &pairer{spokePkg: k.Version.TypesPkg, hubPkg: hub.Version.TypesPkg, hub: hub.Version.GoName, hubVersion: hub.Version.Name, pairs: map[string]*model.TypePair{}}
	root, err := pr.pair(k.Type, hub.Type, true)
	if err != nil {
		return nil, err
	}
	s := &model.Spoke{Kind: k, Pairs: pr.order}
	kept := keptWalk{static: map[*model.TypePair]bool{}}
	kept.walk(root, nil, nil, &s.SpokeOnly, &s.HubOnly, map[*model.TypePair]bool{})
	for _, tp := range pr.order {
		if tp.UserToHub != "" && !kept.static[tp] {
			tp.Differences = append(tp.Differences, "its values are in lists or maps only, so the fields one version has and the other has not are not kept in an annotation")
		}
	}
	pkg, err := b.prog.Lookup(k.Version.TypesPkg)
	if err != nil {
		return nil, err
	}
	declared := map[string]bool{}
	for _, f := range pkg.Files {
		for _, d := range f.Syntax.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				declared[fd.Name.Name] = true
			}
		}
	}
	s.UserFile = filepath.Join(pkg.Dir, strings.ToLower(k.Name)+"_conversion.go")
	for _, tp := range pr.order {
		if tp.UserToHub == "" {
			continue
		}
		if declared[tp.UserToHub] || declared[tp.UserFromHub] {
			s.WritesUserFile = false
			break
		}
		s.WritesUserFile = true // versions that differ in nothing need no user file
	}
	return s, nil
}

// pairer pairs the struct types of a spoke with the hub's.
type pairer struct {
	spokePkg, hubPkg string
	hub              string // the hub version's Go name, "V1"
	hubVersion       string // and its name, "v1", for messages
	pairs            map[string]*model.TypePair
	order            []*model.TypePair
}

func (pr *pairer) pair(spoke, hub *typegraph.Type, root bool) (*model.TypePair, error) {
	if tp, ok := pr.pairs[spoke.Name.Name]; ok {
		return tp, nil
	}
	name := spoke.Name.Name
	tp := &model.TypePair{Spoke: spoke, Hub: hub,
		ToHub: "autoConvert" + name + "To" + pr.hub, FromHub: "autoConvert" + name + "From" + pr.hub}
	pr.pairs[name] = tp
	pr.order = append(pr.order, tp)
	sm, err := spoke.Members()
	if err != nil {
		return nil, err
	}
	hm, err := hub.Members()
	if err != nil {
		return nil, err
	}
	hubFields := map[string]typegraph.Member{}
	for _, m := range hm {
		hubFields[m.Name] = m
	}
	spokeFields := map[string]bool{}
	hubVersion := pr.hubVersion
	for _, m := range sm {
		spokeFields[m.Name] = true
		if !ast.IsExported(m.Name) || root && isObjectMetaOrTypeMeta(m) {
			continue
		}
		h, ok := hubFields[m.Name]
		if !ok {
			tp.Differences = append(tp.Differences, fmt.Sprintf("%s: %s's %s has no %s", m.Name, hubVersion, name, m.Name))
			continue
		}
		fc, err := pr.field(m, h)
		if err != nil {
			return nil, err
		}
		if fc == nil {
			tp.Differences = append(tp.Differences, fmt.Sprintf("%s: %s here, %s in %s", m.Name, m.Type.Print(pr.qualifier), h.Type.Print(pr.qualifier), hubVersion))
			continue
		}
		tp.Fields = append(tp.Fields, fc)
	}
	for _, m := range hm {
		if !spokeFields[m.Name] && ast.IsExported(m.Name) && !(root && isObjectMetaOrTypeMeta(m)) {
			tp.Differences = append(tp.Differences, fmt.Sprintf("%s: only %s's %s has it", m.Name, hubVersion, name))
		}
	}
	if len(tp.Differences) > 0 {
		tp.UserToHub, tp.UserFromHub = "convert"+name+"To"+pr.hub, "convert"+name+"From"+pr.hub
	}
	return tp, nil
}

// qualifier writes the spoke's types unqualified and others by their
// package's last element, for messages.
func (pr *pairer) qualifier(pkg string) string {
	if pkg == pr.spokePkg {
		return ""
	}
	return path.Base(pkg)
}

// field says how the spoke's field s converts to the hub's h, or nil
// when the generated code cannot.
func (pr *pairer) field(s, h typegraph.Member) (*model.FieldConversion, error) {
	fc := &model.FieldConversion{Name: s.Name, Spoke: s.Type, Hub: h.Type}
	st, ht := s.Type, h.Type
	if pr.identical(st, ht) {
		return fc, nil
	}
	if tp, err := pr.localPair(st, ht); tp != nil || err != nil {
		fc.Converts, fc.Pair = model.Struct, tp
		return fc, err
	}
	if pr.local(st, ht) && st.Kind == typegraph.Alias && ht.Kind == typegraph.Alias && pr.identical(st.Underlying, ht.Underlying) {
		fc.Converts = model.Cast
		return fc, nil
	}
	if st.IsNamed() || ht.IsNamed() || st.Kind != ht.Kind {
		return nil, nil
	}
	switch st.Kind {
	case typegraph.Pointer:
		fc.Converts = model.Pointer
	case typegraph.Slice:
		fc.Converts = model.Slice
	case typegraph.Map:
		if !pr.identical(st.Key, ht.Key) {
			return nil, nil
		}
		fc.Converts = model.Map
	default:
		return nil, nil
	}
	tp, err := pr.localPair(st.Elem, ht.Elem)
	if tp == nil || err != nil {
		return nil, err
	}
	fc.Pair = tp
	return fc, nil
}

// local reports whether s is the spoke's type and h the hub's of the same
// name.
func (pr *pairer) local(s, h *typegraph.Type) bool {
	return s.Name.Pkg == pr.spokePkg && h.Name.Pkg == pr.hubPkg && s.Name.Name == h.Name.Name && s.Name.Name != ""
}

// localPair pairs s and h when they are structs of the spoke and the hub
// of the same name; nil otherwise.
func (pr *pairer) localPair(s, h *typegraph.Type) (*model.TypePair, error) {
	if !pr.local(s, h) || s.Kind != typegraph.Struct || h.Kind != typegraph.Struct {
		return nil, nil
	}
	return pr.pair(s, h, false)
}

// identical reports whether s and h are the same type, outside the spoke
// and hub packages.
func (pr *pairer) identical(s, h *typegraph.Type) bool {
	if s.IsNamed() || h.IsNamed() {
		return s.Name == h.Name && s.Name.Pkg != pr.spokePkg && s.Name.Pkg != pr.hubPkg
	}
	if s.Kind != h.Kind {
		return false
	}
	switch s.Kind {
	case typegraph.Pointer, typegraph.Slice:
		return pr.identical(s.Elem, h.Elem)
	case typegraph.Map:
		return pr.identical(s.Key, h.Key) && pr.identical(s.Elem, h.Elem)
	case typegraph.Array:
		return s.Len == h.Len && pr.identical(s.Elem, h.Elem)
	}
	return false
}

func isObjectMetaOrTypeMeta(m typegraph.Member) bool {
	return m.Type.Name.Pkg == metav1Pkg && (m.Type.Name.Name == "ObjectMeta" || m.Type.Name.Name == "TypeMeta")
}

// keptWalk finds the fields one version has and the other has not,
// through struct fields and pointers from the kind.
type keptWalk struct {
	// static are the pairs reached that way.
	static map[*model.TypePair]bool
}

// walk visits tp, reached through spokeSteps on the spoke and hubSteps
// on the hub.
func (w *keptWalk) walk(tp *model.TypePair, spokeSteps, hubSteps []*model.KeptStep, spokeOnly, hubOnly *[]*model.KeptField, onPath map[*model.TypePair]bool) {
	if onPath[tp] {
		return
	}
	onPath[tp] = true
	defer delete(onPath, tp)
	w.static[tp] = true
	sm, _ := tp.Spoke.Members() // both were read by pair
	hm, _ := tp.Hub.Members()
	converted := map[string]*model.FieldConversion{}
	for _, fc := range tp.Fields {
		converted[fc.Name] = fc
	}
	sides := []struct {
		members []typegraph.Member
		steps   []*model.KeptStep
		out     *[]*model.KeptField
	}{{sm, spokeSteps, spokeOnly}, {hm, hubSteps, hubOnly}}
	for _, side := range sides {
		for _, m := range side.members {
			if !ast.IsExported(m.Name) || converted[m.Name] != nil || isObjectMetaOrTypeMeta(m) {
				continue
			}
			name, ok := jsonName(m)
			if !ok {
				continue
			}
			if name == "" {
				name = m.Name // an inlined struct only one version has
			}
			step := &model.KeptStep{Name: m.Name, Path: joinPath(side.steps, name)}
			steps := extend(side.steps, step)
			*side.out = append(*side.out, &model.KeptField{Path: step.Path, Steps: steps})
		}
	}
	for _, fc := range tp.Fields {
		if fc.Converts != model.Struct && fc.Converts != model.Pointer {
			continue
		}
		sName, sOK := jsonNameOf(sm, fc.Name)
		hName, hOK := jsonNameOf(hm, fc.Name)
		if !sOK || !hOK {
			continue
		}
		ptr := fc.Converts == model.Pointer
		sStep := &model.KeptStep{Name: fc.Name, Path: joinPath(spokeSteps, sName), Pointer: ptr, Elem: fc.Pair.Spoke}
		hStep := &model.KeptStep{Name: fc.Name, Path: joinPath(hubSteps, hName), Pointer: ptr, Elem: fc.Pair.Hub}
		w.walk(fc.Pair, extend(spokeSteps, sStep), extend(hubSteps, hStep), spokeOnly, hubOnly, onPath)
	}
}

func jsonNameOf(ms []typegraph.Member, name string) (string, bool) {
	for _, m := range ms {
		if m.Name == name {
			return jsonName(m)
		}
	}
	return "", false
}

// jsonName is the field's name in JSON, "" for an inlined one; false
// for a field JSON leaves out.
func jsonName(m typegraph.Member) (string, bool) {
	tag := reflect.StructTag(m.Tag).Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	switch {
	case name == "-" && opts == "":
		return "", false
	case strings.Contains(","+opts+",", ",inline,"):
		return "", true
	case name != "":
		return name, true
	case m.Embedded:
		return "", m.Type.Kind == typegraph.Struct || m.Type.Kind == typegraph.Pointer
	}
	return m.Name, true
}

// extend is steps and then step, in a slice of its own: the walk's
// branches must not share one.
func extend(steps []*model.KeptStep, step *model.KeptStep) []*model.KeptStep {
	return append(slices.Clip(steps), step)
}

func joinPath(steps []*model.KeptStep, name string) string {
	prefix := ""
	if len(steps) > 0 {
		prefix = steps[len(steps)-1].Path
	}
	switch {
	case name == "":
		return prefix
	case prefix == "":
		return name
	}
	return prefix + "." + name
}
