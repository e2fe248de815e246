// Package register writes zz_generated.register.go next to writable API
// types: what register-gen writes, less whatever the package already
// declares (model.Register says which).
package register

import (
	"path/filepath"
	"text/template"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/model"
)

// FileName is the file written next to the types.
const FileName = "zz_generated.register.go"

// Generator is the register generator.
type Generator struct{}

func (Generator) Name() string { return "register" }

// Owns is true for zz_generated.register.go next to the project's types.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.WritesTypeFile(FileName, path)
}

func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	var files []*gen.File
	for _, pkg := range p.Packages {
		if pkg.Register == nil || pkg.ReadOnly || pkg.Version == nil {
			continue
		}
		f := gen.NewFile(filepath.Join(pkg.Dir, FileName), pkg.Name, pkg.Path)
		t := template.Must(tmpl.Clone()).Funcs(template.FuncMap{
			"imp": func(path, alias string) string { return f.ImportAs(path, alias) },
		})
		err := t.Execute(f, map[string]any{"R": pkg.Register, "Group": pkg.Version.Group.Name, "Version": pkg.Version.Name})
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

var tmpl = template.Must(template.New("register").Funcs(template.FuncMap{"imp": func(string, string) string { return "" }}).Parse(`
{{- if .R.GroupName}}
// GroupName is the name of this package's API group.
const GroupName = {{printf "%q" .Group}}
{{end}}
{{- if .R.SchemeGroupVersion}}
// SchemeGroupVersion is the group and version this package's types are registered under.
var SchemeGroupVersion = {{imp "k8s.io/apimachinery/pkg/runtime/schema" "schema"}}.GroupVersion{Group: GroupName, Version: {{printf "%q" .Version}}}
{{end}}
{{- if .R.Kind}}
// Kind takes an unqualified kind and returns a group-qualified GroupKind.
func Kind(kind string) {{imp "k8s.io/apimachinery/pkg/runtime/schema" "schema"}}.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}
{{end}}
{{- if .R.Resource}}
// Resource takes an unqualified resource and returns a group-qualified GroupResource.
func Resource(resource string) {{imp "k8s.io/apimachinery/pkg/runtime/schema" "schema"}}.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}
{{end}}
{{- if .R.SchemeBuilder}}
var (
	// SchemeBuilder collects the functions that add this package's types to a scheme.
	SchemeBuilder      = {{imp "k8s.io/apimachinery/pkg/runtime" "runtime"}}.NewSchemeBuilder(addKnownTypes)
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds this package's types to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

// addKnownTypes adds this package's types to scheme.
func addKnownTypes(scheme *{{imp "k8s.io/apimachinery/pkg/runtime" "runtime"}}.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
{{- range .R.Types}}
		&{{.}}{},
{{- end}}
	)
	{{imp "k8s.io/apimachinery/pkg/apis/meta/v1" "metav1"}}.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
{{end}}`))
