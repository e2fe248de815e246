package applyconfiguration

import (
	"sort"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// utils writes applyconfiguration/utils.go: ForKind over every apply
// configuration, by group and version as applyconfiguration-gen orders
// them, and NewTypeConverter over the schema in internal.
func (g *graph) utils() (*gen.File, error) {
	f, err := g.newFile(g.p.ApplyConfigurationsPkg, "utils.go")
	if err != nil {
		return nil, err
	}
	type group struct {
		name     string
		versions []*model.ApplyConfigurationTarget
	}
	byGroup := map[string]*group{}
	var groups []*group
	for _, tg := range g.Targets {
		name := tg.Version.Group.Name
		if name == "" {
			name = "core"
		}
		gr := byGroup[name]
		if gr == nil {
			gr = &group{name: name}
			byGroup[name] = gr
			groups = append(groups, gr)
		}
		gr.versions = append(gr.versions, tg)
	}
	sort.Slice(groups, func(i, j int) bool { return strings.ToLower(groups[i].name) < strings.ToLower(groups[j].name) })
	f.P("// ForKind returns an apply configuration type for the given GroupVersionKind, or nil if no")
	f.P("// apply configuration type exists for the given GroupVersionKind.")
	f.P("func ForKind(kind ", f.ImportAs(schemaPkg, "schema"), ".GroupVersionKind) interface{} {")
	f.P("switch kind {")
	for _, gr := range groups {
		sort.Slice(gr.versions, func(i, j int) bool {
			return strings.ToLower(gr.versions[i].Version.Name) < strings.ToLower(gr.versions[j].Version.Name)
		})
		for _, tg := range gr.versions {
			f.P("// Group=", gr.name, ", Version=", tg.Version.Name)
			for _, t := range tg.Types {
				f.P("case ", g.ident(f, tg.Version.TypesPkg, "SchemeGroupVersion"), `.WithKind("`, t.Name.Name, `"):`)
				f.P("return &", g.ident(f, tg.Version.ApplyConfigPkg, t.Name.Name+applyConfigSuffix), "{}")
			}
			f.P()
		}
	}
	f.P("}")
	f.P("return nil")
	f.P("}")
	f.P()
	f.P("func NewTypeConverter(scheme *", f.ImportAs(runtimePkg, "runtime"), ".Scheme) ", f.ImportAs(managedFieldsPkg, "managedfields"), ".TypeConverter {")
	f.P("return ", f.ImportAs(managedFieldsPkg, "managedfields"), ".NewSchemeTypeConverter(scheme, ", g.ident(f, g.p.ApplyConfigurationsPkg+"/"+internalPkgElement, "Parser"), "())")
	f.P("}")
	return f, nil
}

// internal writes applyconfiguration/internal/internal.go: Parser, over
// the schema of every type the apply configurations reach.
func (g *graph) internal() (*gen.File, error) {
	f, err := g.newFile(g.p.ApplyConfigurationsPkg+"/"+internalPkgElement, "internal.go")
	if err != nil {
		return nil, err
	}
	yaml, err := schemaYAML(g.Roots)
	if err != nil {
		return nil, err
	}
	typed := f.ImportAs(smdTypedPkg, "typed")
	f.P("func Parser() *", typed, ".Parser {")
	f.P("parserOnce.Do(func() {")
	f.P("var err error")
	f.P("parser, err = ", typed, ".NewParser(schemaYAML)")
	f.P("if err != nil {")
	f.P(`panic(`, f.ImportAs("fmt", "fmt"), `.Sprintf("Failed to parse schema: %v", err))`)
	f.P("}")
	f.P("})")
	f.P("return parser")
	f.P("}")
	f.P()
	f.P("var parserOnce ", f.ImportAs("sync", "sync"), ".Once")
	f.P("var parser *", typed, ".Parser")
	f.P("var schemaYAML = ", typed, ".YAMLObject(`", yaml, "`)")
	return f, nil
}
