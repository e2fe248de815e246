// Package conversion generates the conversions of every kind with
// +ctrlgen:webhook:conversion, through its storage version, the hub:
//
//   - in the hub's package, zz_generated.conversion.go: Hub();
//   - in every other version's, zz_generated.conversion.go: ConvertTo and
//     ConvertFrom (runtime/conversion's Convertible), which copy every
//     field the two versions share, keep the fields only one of them has
//     in an annotation of the other for round trips, and end with the
//     user's functions for the types that differ;
//   - in every other version's, <kind>_conversion.go, written once for the
//     user: those functions' declarations without bodies, so that the
//     package does not compile until they are written;
//   - next to the webhook packages, zz_generated.conversion.go: the
//     /convert endpoint for the manager;
//   - with a CRD directory, patches/webhook_in_<plural>.yaml, written once
//     (a kubebuilder project's own is kept): kubebuilder's kustomize patch
//     that gives the CRD its conversion webhook.
package conversion

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// FileName is the generated file, in API packages and the webhooks
// directory.
const FileName = "zz_generated.conversion.go"

const runtimeConversion = "github.com/ctrlgen/ctrlgen/runtime/conversion"

// Generator is the "conversion" generator.
type Generator struct{}

func (Generator) Name() string { return "conversion" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

// Owns is true for the generated files next to the project's types and
// webhooks; the files written once (the user's functions, the CRD
// patches) are never removed.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.WritesTypeFile(FileName, path) || p.WebhooksDir != "" && path == filepath.Join(p.WebhooksDir, FileName)
}

// Generate returns the files of every converted kind.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	conversions := p.ConversionKinds()
	if len(conversions) == 0 {
		return nil, nil
	}
	var files []*gen.File
	for _, c := range conversions {
		files = append(files, hubFile(c))
		for _, s := range c.Spokes {
			files = append(files, spokeFile(c, s))
			if s.WritesUserFile {
				files = append(files, userFile(c, s))
			}
		}
		if p.CRDDir != "" {
			files = append(files, crdPatch(p, c))
		}
	}
	files = append(files, endpointFile(p, conversions))
	return files, nil
}

func hubFile(c *model.Conversion) *gen.File {
	k := c.Hub
	f := gen.NewFile(filepath.Join(k.Version.Package.Dir, FileName), k.Version.Package.Name, k.Version.TypesPkg)
	f.P("// Hub marks ", k.Name, " as the version the others convert through: the storage")
	f.P("// version (conversion.Hub).")
	f.P("func (*", k.Name, ") Hub() {}")
	return f
}

// writer writes one spoke's conversions.
type writer struct {
	f        *gen.File
	c        *model.Conversion
	s        *model.Spoke
	qualify  func(pkg string) string
	hubAlias string
}

func newWriter(c *model.Conversion, s *model.Spoke, path string) *writer {
	v := s.Kind.Version
	f := gen.NewFile(path, v.Package.Name, v.TypesPkg)
	w := &writer{f: f, c: c, s: s}
	w.qualify = func(pkg string) string {
		if pkg == f.ImportPath {
			return ""
		}
		return f.Import(pkg)
	}
	w.hubAlias = f.ImportAs(c.Hub.Version.TypesPkg, c.Hub.Version.TypesAlias)
	return w
}

func (w *writer) typ(t *typegraph.Type) string { return t.Print(w.qualify) }

func spokeFile(c *model.Conversion, s *model.Spoke) *gen.File {
	w := newWriter(c, s, filepath.Join(s.Kind.Version.Package.Dir, FileName))
	for _, d := range w.directions() {
		w.method(d)
	}
	for _, tp := range s.Pairs {
		w.pair(tp, true)
		w.pair(tp, false)
	}
	return w.f
}

// direction is one of a spoke's two methods.
type direction struct {
	method, doc string
	// receiver and other are the method's receiver and the hub's names
	// in it: in and out, or out and in.
	receiver, other string
	// convert is the generated pair function that runs; back converts
	// the other way, to check what is kept.
	convert, back string
	// restored are the fields kept on the object converted from (under
	// restoredVersion), kept the fields written onto the one converted to,
	// of version holder (under keptVersion, from an object of type
	// inType).
	restored, kept                       []*model.KeptField
	restoredVersion, keptVersion, holder string
	inType                               string
}

func (w *writer) directions() []direction {
	k, hub := w.s.Kind, w.c.Hub
	hubType := w.hubAlias + "." + hub.Name
	hubName := hub.Version.Group.Name + "/" + hub.Version.Name
	root := w.s.Pairs[0]
	return []direction{
		{method: "ConvertTo", doc: "converts this " + k.Name + " to the hub, " + hubName,
			receiver: "in", other: "out", convert: root.ToHub, back: root.FromHub,
			restored: w.s.HubOnly, restoredVersion: hub.Version.Name,
			kept: w.s.SpokeOnly, keptVersion: k.Version.Name, holder: hub.Version.Name, inType: k.Name},
		{method: "ConvertFrom", doc: "converts the hub, " + hubName + ", to this " + k.Name,
			receiver: "out", other: "in", convert: root.FromHub, back: root.ToHub,
			restored: w.s.SpokeOnly, restoredVersion: k.Version.Name,
			kept: w.s.HubOnly, keptVersion: hub.Version.Name, holder: k.Version.Name, inType: hubType},
	}
}

// method writes ConvertTo or ConvertFrom.
func (w *writer) method(d direction) {
	f := w.f
	conv := f.Import(runtimeConversion)
	f.P()
	f.P("// ", d.method, " ", d.doc, " (conversion.Convertible).")
	if len(d.kept) > 0 {
		f.P("// The fields ", d.holder, " has no place for are kept in its annotation ", annotation(d.keptVersion), ".")
	}
	f.P("func (", d.receiver, " *", w.s.Kind.Name, ") ", d.method, "(hub ", conv, ".Hub) error {")
	f.P(d.other, ", ok := hub.(*", w.hubAlias, ".", w.c.Hub.Name, ")")
	f.P("if !ok {")
	f.P("return ", conv, ".WrongHub(hub, ", d.other, ")")
	f.P("}")
	f.P("out.ObjectMeta = in.ObjectMeta")
	w.restore(conv, d.restoredVersion, d.restored)
	f.P("if err := ", d.convert, "(in, out); err != nil {")
	f.P("return err")
	f.P("}")
	w.keep(conv, d.keptVersion, d.inType, d.back, d.kept)
	f.P("}")
}

func annotation(version string) string { return "conversion.ctrlgen.dev/" + version }

// restore sets out's fields from the annotation of version's fields,
// before the conversion, so that the user's functions have the last word.
func (w *writer) restore(conv, version string, fields []*model.KeptField) {
	f := w.f
	if len(fields) == 0 {
		return
	}
	f.P("kept, err := ", conv, ".Take(&out.ObjectMeta, ", fmt.Sprintf("%q", version), ")")
	f.P("if err != nil {")
	f.P("return err")
	f.P("}")
	for _, kf := range fields {
		expr := "out"
		opened := 0
		for _, step := range kf.Steps[:len(kf.Steps)-1] {
			expr += "." + step.Name
			if !step.Pointer {
				continue
			}
			elem := w.typ(step.Elem)
			f.P("if kept.Has(", fmt.Sprintf("%q", step.Path), ") {")
			f.P("if ", expr, " == nil {")
			f.P(expr, " = new(", elem, ")")
			f.P("}")
			opened++
		}
		expr += "." + kf.Steps[len(kf.Steps)-1].Name
		f.P("if err := kept.Restore(", fmt.Sprintf("%q", kf.Path), ", &", expr, "); err != nil {")
		f.P("return err")
		f.P("}")
		for range opened {
			f.P("}")
		}
	}
}

// keep writes the annotation of version's fields from in, ending the
// function: those that converting out back, to the type of in, with
// convertBack does not give anyway.
func (w *writer) keep(conv, version, inType, convertBack string, fields []*model.KeptField) {
	f := w.f
	if len(fields) == 0 {
		f.P("return nil")
		return
	}
	f.P("back := new(", inType, ")")
	f.P("if err := ", convertBack, "(out, back); err != nil {")
	f.P("return err")
	f.P("}")
	f.P("var keep ", conv, ".KeptFields")
	for _, kf := range fields {
		expr, backExpr := "in", "back"
		opened := 0
		var backGuard []string
		for _, step := range kf.Steps[:len(kf.Steps)-1] {
			expr += "." + step.Name
			backExpr += "." + step.Name
			if step.Pointer {
				f.P("if ", expr, " != nil {")
				opened++
				backGuard = append(backGuard, backExpr+" != nil")
			}
		}
		last := "." + kf.Steps[len(kf.Steps)-1].Name
		if len(backGuard) > 0 {
			f.P("var roundTripped any")
			f.P("if ", strings.Join(backGuard, " && "), " {")
			f.P("roundTripped = ", backExpr+last)
			f.P("}")
			f.P("if err := keep.Keep(", fmt.Sprintf("%q", kf.Path), ", ", expr+last, ", roundTripped); err != nil {")
		} else {
			f.P("if err := keep.Keep(", fmt.Sprintf("%q", kf.Path), ", ", expr+last, ", ", backExpr+last, "); err != nil {")
		}
		f.P("return err")
		f.P("}")
		for range opened {
			f.P("}")
		}
	}
	f.P("return ", conv, ".Put(&out.ObjectMeta, ", fmt.Sprintf("%q", version), ", keep)")
}

// pair writes the generated conversion of a type pair, to the hub or
// from it.
func (w *writer) pair(tp *model.TypePair, toHub bool) {
	f := w.f
	name, user := tp.FromHub, tp.UserFromHub
	in, out := w.typ(tp.Hub), w.typ(tp.Spoke)
	if toHub {
		name, user = tp.ToHub, tp.UserToHub
		in, out = out, in
	}
	f.P()
	f.P("func ", name, "(in *", in, ", out *", out, ") error {")
	for _, fc := range tp.Fields {
		target, fn := fc.Spoke, ""
		if toHub {
			target = fc.Hub
		}
		if fc.Pair != nil {
			fn = fc.Pair.FromHub
			if toHub {
				fn = fc.Pair.ToHub
			}
		}
		switch fc.Converts {
		case model.Assign:
			f.P("out.", fc.Name, " = in.", fc.Name)
		case model.Cast:
			f.P("out.", fc.Name, " = ", w.typ(target), "(in.", fc.Name, ")")
		case model.Struct:
			f.P("if err := ", fn, "(&in.", fc.Name, ", &out.", fc.Name, "); err != nil {")
			f.P("return err")
			f.P("}")
		case model.Pointer:
			f.P("if in.", fc.Name, " == nil {")
			f.P("out.", fc.Name, " = nil")
			f.P("} else {")
			f.P("if out.", fc.Name, " == nil {")
			f.P("out.", fc.Name, " = new(", w.typ(target.Elem), ")")
			f.P("}")
			f.P("if err := ", fn, "(in.", fc.Name, ", out.", fc.Name, "); err != nil {")
			f.P("return err")
			f.P("}")
			f.P("}")
		case model.Slice:
			f.P("if in.", fc.Name, " == nil {")
			f.P("out.", fc.Name, " = nil")
			f.P("} else {")
			f.P("out.", fc.Name, " = make(", w.typ(target), ", len(in.", fc.Name, "))")
			f.P("for i := range in.", fc.Name, " {")
			f.P("if err := ", fn, "(&in.", fc.Name, "[i], &out.", fc.Name, "[i]); err != nil {")
			f.P("return err")
			f.P("}")
			f.P("}")
			f.P("}")
		case model.Map:
			f.P("if in.", fc.Name, " == nil {")
			f.P("out.", fc.Name, " = nil")
			f.P("} else {")
			f.P("out.", fc.Name, " = make(", w.typ(target), ", len(in.", fc.Name, "))")
			f.P("for key, value := range in.", fc.Name, " {")
			f.P("var converted ", w.typ(target.Elem))
			f.P("if err := ", fn, "(&value, &converted); err != nil {")
			f.P("return err")
			f.P("}")
			f.P("out.", fc.Name, "[key] = converted")
			f.P("}")
			f.P("}")
		}
	}
	if user != "" {
		f.P("return ", user, "(in, out)")
	} else {
		f.P("return nil")
	}
	f.P("}")
}

func userFile(c *model.Conversion, s *model.Spoke) *gen.File {
	w := newWriter(c, s, s.UserFile)
	w.f.Generated = false
	f, hub := w.f, c.Hub
	first := true
	for _, tp := range s.Pairs {
		if tp.UserToHub == "" {
			continue
		}
		for _, toHub := range []bool{true, false} {
			name, in, out := tp.UserFromHub, w.typ(tp.Hub), w.typ(tp.Spoke)
			doc := fmt.Sprintf("// %s converts what the generated conversion of %s from %s/%s does not:", name, tp.Spoke.Name.Name, hub.Version.Group.Name, hub.Version.Name)
			if toHub {
				name, in, out = tp.UserToHub, out, in
				doc = fmt.Sprintf("// %s converts what the generated conversion of %s to %s/%s does not:", name, tp.Spoke.Name.Name, hub.Version.Group.Name, hub.Version.Name)
			}
			if !first {
				f.P()
			}
			first = false
			f.P(doc)
			for _, d := range tp.Differences {
				f.P("//   - ", d)
			}
			if toHub {
				f.P("//")
				f.P("// The fields only one version has are kept in an annotation on the other,")
				f.P("// and restored before these functions run: set them here from what the")
				f.P("// other version holds instead, or leave them. This file does not compile")
				f.P("// until the functions have bodies.")
			}
			f.P("func ", name, "(in *", in, ", out *", out, ") error")
		}
	}
	return f
}

func endpointFile(p *model.Project, conversions []*model.Conversion) *gen.File {
	f := gen.NewFile(filepath.Join(p.WebhooksDir, FileName), "webhooks", p.WebhooksPkg)
	ctx, http := f.Import("context"), f.Import("net/http")
	manager := f.Import("github.com/ctrlgen/ctrlgen/runtime/manager")
	webhook := f.Import("github.com/ctrlgen/ctrlgen/runtime/webhook/conversion")
	scheme := f.Import(p.ClientsetSchemePkg)
	var kinds []string
	for _, c := range conversions {
		kinds = append(kinds, c.Hub.Plural+"."+c.Hub.Version.Group.Name)
	}
	f.P("// RegisterConversion adds the conversion webhook of ", strings.Join(kinds, ", "), " to m at")
	f.P("// ", manager, ".ConversionPath (/convert), where the CRDs' conversion webhooks call it; m serves")
	f.P("// it over HTTPS on every replica and writes its CA bundle into those CRDs.")
	f.P("func RegisterConversion(m *", manager, ".Manager) {")
	f.P("m.RegisterWebhook(", manager, ".ConversionPath, InitConversion)")
	f.P("}")
	f.P()
	f.P("// InitConversion builds the conversion webhook: it converts each object")
	f.P("// through its kind's hub with the generated ConvertTo and ConvertFrom.")
	f.P("func InitConversion(", ctx, ".Context, *", manager, ".Context) (", http, ".Handler, error) {")
	f.P("return ", webhook, ".NewWebhook(", scheme, ".Scheme), nil")
	f.P("}")
	return f
}

// crdPatch is kubebuilder's config/crd/patches/webhook_in_<plural>.yaml,
// written once as kubebuilder scaffolds it: a project that has it keeps
// its own.
func crdPatch(p *model.Project, c *model.Conversion) *gen.File {
	k := c.Hub
	var b strings.Builder
	fmt.Fprintf(&b, `# The following patch enables a conversion webhook for the CRD: list it under
# "patches" in %s/kustomization.yaml. The manager writes its CA bundle
# into the CRD at run time.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s.%s
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          namespace: system
          name: webhook-service
          path: /convert
      conversionReviewVersions:
      - v1
`, filepath.Base(p.CRDDir), k.Plural, k.Version.Group.Name)
	f := gen.NewText(filepath.Join(p.CRDDir, "patches", "webhook_in_"+k.Plural+".yaml"), []byte(b.String()))
	f.Generated = false
	return f
}
