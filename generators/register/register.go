// Package register writes zz_generated.register.go next to writable API
// types: what register-gen v0.37 writes (GroupName, GroupVersion,
// SchemeGroupVersion, Resource, SchemeBuilder, AddToScheme, Install and
// addKnownTypes), less whatever the package already declares
// (model.Register says which).
package register

import (
	"path/filepath"
	"text/template"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// FileName is the file written next to the types.
const FileName = "zz_generated.register.go"

// Generator is the register generator.
type Generator struct{}

func (Generator) Name() string { return "register" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

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

// tmpl is register-gen v0.37's template, comments and all, with each
// part left out when the package declares it already.
var tmpl = template.Must(template.New("register").Funcs(template.FuncMap{"imp": func(string, string) string { return "" }}).Parse(`
{{- if .R.GroupName}}
// GroupName specifies the group name used to register the objects.
const GroupName = {{printf "%q" .Group}}
{{end}}
{{- if .R.GroupVersion}}
// GroupVersion specifies the group and the version used to register the objects.
var GroupVersion = {{imp "k8s.io/apimachinery/pkg/apis/meta/v1" "metav1"}}.GroupVersion{Group: GroupName, Version: {{printf "%q" .Version}}}
{{end}}
{{- if .R.SchemeGroupVersion}}
// SchemeGroupVersion is group version used to register these objects
//
// Deprecated: use GroupVersion instead.
var SchemeGroupVersion = {{imp "k8s.io/apimachinery/pkg/runtime/schema" "schema"}}.GroupVersion{Group: GroupName, Version: {{printf "%q" .Version}}}
{{end}}
{{- if .R.Resource}}
// Resource takes an unqualified resource and returns a Group qualified GroupResource
func Resource(resource string) {{imp "k8s.io/apimachinery/pkg/runtime/schema" "schema"}}.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}
{{end}}
{{- if .R.SchemeBuilder}}
var (
	// localSchemeBuilder and AddToScheme will stay in k8s.io/kubernetes.
	SchemeBuilder      {{imp "k8s.io/apimachinery/pkg/runtime" "runtime"}}.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	{{- if .R.Install}}
	// Deprecated: use Install instead
	AddToScheme = localSchemeBuilder.AddToScheme
	Install     = localSchemeBuilder.AddToScheme
	{{- else}}
	AddToScheme = localSchemeBuilder.AddToScheme
	{{- end}}
)

func init() {
	// We only register manually written functions here. The registration of the
	// generated functions takes place in the generated files. The separation
	// makes the code compile even when the generated files are missing.
	localSchemeBuilder.Register(addKnownTypes)
}

// Adds the list of known types to Scheme.
func addKnownTypes(scheme *{{imp "k8s.io/apimachinery/pkg/runtime" "runtime"}}.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
{{- range .R.Types}}
		&{{.}}{},
{{- end}}
	)
	// AddToGroupVersion allows the serialization of client types like ListOptions.
	{{imp "k8s.io/apimachinery/pkg/apis/meta/v1" "metav1"}}.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
{{end}}`))
