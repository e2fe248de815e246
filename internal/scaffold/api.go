package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v2"

	"github.com/ctrlgen/ctrlgen/internal/plural"
)

// APIOptions are ctrlgen create api's.
type APIOptions struct {
	Group   string // webapp; the API group is <group>.<domain>
	Version string // v1
	Kind    string // Guestbook
	// Plural is the resource name; empty means the kind's plural in lower
	// case, as client-gen forms it (guestbooks).
	Plural string
	// Namespaced is the kind's scope; nil means namespaced, or, without
	// Resource, what PROJECT says.
	Namespaced *bool
	// Resource writes the API types; Controller adds a controller for
	// the kind (on the next ctrlgen run), registers it in cmd/main.go and
	// writes its test. Without Resource, the kind must be in PROJECT.
	Resource   bool
	Controller bool
}

// CreateAPI returns the files that add a kind to the project in fsys,
// which ctrlgen init wrote: new ones, and the updates of PROJECT,
// cmd/main.go and the kustomizations. It reads fsys and changes nothing.
func CreateAPI(fsys fs.FS, o APIOptions) ([]File, error) {
	p, err := readProject(fsys)
	if err != nil {
		return nil, err
	}
	if err := o.validate(p); err != nil {
		return nil, err
	}
	if o.Resource {
		return p.addResource(fsys, o)
	}
	return p.addController(fsys, o)
}

func (o APIOptions) validate(p *Project) error {
	var errs []string
	if o.Group == "" {
		errs = append(errs, "--group is required, e.g. --group webapp")
	} else if !dnsLabelRE.MatchString(o.Group) {
		errs = append(errs, fmt.Sprintf("--group %q is not a DNS label: %s", o.Group, dnsLabelRule))
	} else if !isDNSSubdomain(o.Group + "." + p.Domain) {
		errs = append(errs, fmt.Sprintf("the API group %s.%s is longer than 253", o.Group, p.Domain))
	}
	if o.Version == "" {
		errs = append(errs, "--version is required, e.g. --version v1")
	} else if !versionRE.MatchString(o.Version) {
		errs = append(errs, fmt.Sprintf("--version %q is not a Kubernetes API version: v<n>, v<n>alpha<m> or v<n>beta<m>, e.g. v1, v1beta1", o.Version))
	}
	if o.Kind == "" {
		errs = append(errs, "--kind is required, e.g. --kind Guestbook")
	} else if !kindRE.MatchString(o.Kind) {
		errs = append(errs, fmt.Sprintf("--kind %q is not a kind: CamelCase ASCII letters and digits, starting with an upper-case letter, at most 63 long", o.Kind))
	}
	if o.Controller && token.IsKeyword(strings.ToLower(o.Kind)) {
		errs = append(errs, fmt.Sprintf("--kind %s: its controller's package would be called %s, a Go keyword; choose another kind, or --controller=false", o.Kind, strings.ToLower(o.Kind)))
	}
	if o.Plural != "" {
		if !dns1035LabelRE.MatchString(o.Plural) {
			errs = append(errs, fmt.Sprintf("--plural %q is not a resource name: %s, starting with a letter", o.Plural, dnsLabelRule))
		}
	}
	if !o.Resource && !o.Controller {
		errs = append(errs, "--resource=false and --controller=false: nothing to create")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// find returns the resource of group, version and kind in p, or nil.
func (p *Project) find(group, version, kind string) *Resource {
	for i, r := range p.Resources {
		if r.Group == group && r.Version == version && r.Kind == kind {
			return &p.Resources[i]
		}
	}
	return nil
}

// addResource returns the files of a new kind.
func (p *Project) addResource(fsys fs.FS, o APIOptions) ([]File, error) {
	r := Resource{Group: o.Group, Version: o.Version, Kind: o.Kind, Plural: o.Plural, Namespaced: o.Namespaced == nil || *o.Namespaced, Controller: o.Controller}
	if r.Plural == "" {
		r.Plural = strings.ToLower(plural.Of(r.Kind, plural.DefaultExceptions))
	}
	r.Path = p.Repo + "/" + r.apiDir()
	if err := p.checkNew(r); err != nil {
		return nil, err
	}
	d := newAPIData(p, r)
	var files []File
	if !slices.ContainsFunc(p.Resources, func(x Resource) bool { return x.Group == r.Group && x.Version == r.Version }) {
		doc, err := render("templates/api/doc.go.tmpl", d)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: path.Join(r.apiDir(), "doc.go"), Content: doc})
	}
	types, err := render("templates/api/types.go.tmpl", d)
	if err != nil {
		return nil, err
	}
	sample, err := render("templates/api/sample.yaml.tmpl", d)
	if err != nil {
		return nil, err
	}
	files = append(files,
		File{Path: path.Join(r.apiDir(), d.KindLower+"_types.go"), Content: types},
		File{Path: path.Join(SamplesDir, d.SampleFile), Content: sample})
	for _, u := range []struct{ file, point, line string }{
		{path.Join(CRDDir, "kustomization.yaml"), crdsPoint, "- " + d.CRDFile},
		{path.Join(SamplesDir, "kustomization.yaml"), samplesPoint, "- " + d.SampleFile},
	} {
		content, err := fs.ReadFile(fsys, u.file)
		if err != nil {
			return nil, err
		}
		if slices.Contains(strings.Split(string(content), "\n"), u.line) {
			continue // another version of the kind has the same CRD
		}
		if content, err = insertBefore(u.file, content, u.point, u.line); err != nil {
			return nil, err
		}
		files = append(files, File{Path: u.file, Content: content, Update: true})
	}
	p.Resources = append(p.Resources, r)
	return p.withController(fsys, d, files)
}

// checkNew refuses a kind that is in the project already, or whose names
// would clash with one that is.
func (p *Project) checkNew(r Resource) error {
	for _, x := range p.Resources {
		switch {
		case x.Group == r.Group && x.Version == r.Version && x.Kind == r.Kind && (x.Controller || !r.Controller):
			return fmt.Errorf("%s is in %s already", r, ProjectFile)
		case x.Group == r.Group && x.Version == r.Version && x.Kind == r.Kind:
			return fmt.Errorf("%s is in %s already; for a controller of it, run create api --resource=false", r, ProjectFile)
		case x.Group == r.Group && x.Version == r.Version && (x.Kind == r.Kind+"List" || x.Kind+"List" == r.Kind):
			return fmt.Errorf("%s and %s: the package would have two types called %s", r, x, max(x.Kind, r.Kind))
		case x.Group == r.Group && x.Plural == r.Plural && x.Kind != r.Kind:
			return fmt.Errorf("%s would be resource %s.%s, which %s is; give another --plural", r, r.Plural, r.Group, x)
		}
	}
	if r.Controller {
		return p.checkControllerDir(r)
	}
	return nil
}

// checkControllerDir refuses a second controller in the same package:
// ctrlgen writes each to <controllers-dir>/<lower-case kind>.
func (p *Project) checkControllerDir(r Resource) error {
	for _, x := range p.Resources {
		if x.Controller && x.controllerDir() == r.controllerDir() && x.Kind+x.Group+x.Version != r.Kind+r.Group+r.Version {
			return fmt.Errorf("%s has its controller in %s, where ctrlgen would write %s's too; give this one --controller=false", x, x.controllerDir(), r)
		}
	}
	return nil
}

// addController returns the files that add a controller to a kind of
// the project: the +ctrlgen:controller marker on its type, and what
// withController adds.
func (p *Project) addController(fsys fs.FS, o APIOptions) ([]File, error) {
	r := p.find(o.Group, o.Version, o.Kind)
	switch {
	case r == nil:
		return nil, fmt.Errorf("%s/%s, Kind=%s is not in %s: ctrlgen generates controllers for the kinds of the project's API packages; create it with --resource", o.Group, o.Version, o.Kind, ProjectFile)
	case r.Controller:
		return nil, fmt.Errorf("%s has a controller already", r)
	case o.Namespaced != nil && *o.Namespaced != r.Namespaced:
		return nil, fmt.Errorf("--namespaced=%t, but %s is namespaced=%t in %s", *o.Namespaced, r, r.Namespaced, ProjectFile)
	case o.Plural != "" && o.Plural != r.Plural:
		return nil, fmt.Errorf("--plural %s, but %s is %s in %s", o.Plural, r, r.Plural, ProjectFile)
	}
	r.Controller = true
	if err := p.checkControllerDir(*r); err != nil {
		return nil, err
	}
	marked, err := addControllerMarker(fsys, r.apiDir(), r.Kind)
	if err != nil {
		return nil, err
	}
	return p.withController(fsys, newAPIData(p, *r), []File{marked})
}

// withController adds to files, when d's kind has a controller, its test
// and its registration in cmd/main.go; and the new PROJECT.
func (p *Project) withController(fsys fs.FS, d apiData, files []File) ([]File, error) {
	if d.Controller {
		test, err := render("templates/api/controller_test.go.tmpl", d)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: path.Join(d.controllerDir(), d.KindLower+"_controller_test.go"), Content: test})
		alias := d.KindLower + "controller"
		main, err := fs.ReadFile(fsys, MainFile)
		if err != nil {
			return nil, err
		}
		if main, err = insertBefore(MainFile, main, importsPoint, alias+` "`+d.ControllerPkg+`"`); err != nil {
			return nil, err
		}
		if main, err = insertBefore(MainFile, main, registerPoint, "manager.Register("+alias+".ControllerName, "+alias+".Init)"); err != nil {
			return nil, err
		}
		if main, err = format.Source(main); err != nil {
			return nil, fmt.Errorf("%s: %w", MainFile, err)
		}
		files = append(files, File{Path: MainFile, Content: main, Update: true})
	}
	project, err := marshalProject(*p)
	if err != nil {
		return nil, err
	}
	return append(files, File{Path: ProjectFile, Content: project, Update: true}), nil
}

// insertBefore returns content, the file called name, with line
// inserted before the line that is point, at its indentation.
func insertBefore(name string, content []byte, point, line string) ([]byte, error) {
	lines := strings.SplitAfter(string(content), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == point {
			indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			lines = slices.Insert(lines, i, indent+line+"\n")
			return []byte(strings.Join(lines, "")), nil
		}
	}
	return nil, fmt.Errorf("%s has no line %q, before which create api adds %q; add that line by hand where it belongs", name, point, line)
}

// addControllerMarker returns the API package's file that declares kind
// with +ctrlgen:controller added as the last line of the type's doc
// comment.
func addControllerMarker(fsys fs.FS, dir, kind string) (File, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return File{}, err
	}
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(e.Name(), "zz_generated.") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return File{}, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return File{}, err
		}
		pos := typeLine(f, kind)
		if !pos.IsValid() {
			continue
		}
		start := fset.File(pos).LineStart(fset.Position(pos).Line)
		offset := fset.Position(start).Offset
		line := src[offset:]
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		out := slices.Concat(src[:offset], indent, []byte("// +ctrlgen:controller\n"), src[offset:])
		if out, err = format.Source(out); err != nil {
			return File{}, fmt.Errorf("%s: %w", name, err)
		}
		return File{Path: name, Content: out, Update: true}, nil
	}
	return File{}, fmt.Errorf("no type %s in %s", kind, dir)
}

// typeLine is where the declaration of the type called name starts: its
// "type" keyword, or in a type ( ... ) group its name.
func typeLine(f *ast.File, name string) token.Pos {
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			if ts := s.(*ast.TypeSpec); ts.Name.Name == name {
				if g.Lparen.IsValid() {
					return ts.Pos()
				}
				return g.Pos()
			}
		}
	}
	return token.NoPos
}

const projectHeader = `# The project's layout and its APIs, as kubebuilder's PROJECT: written by
# ctrlgen init, updated by ctrlgen create api, which reads it.
`

func marshalProject(p Project) ([]byte, error) {
	b, err := yaml.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]byte(projectHeader), b...), nil
}

func readProject(fsys fs.FS) (*Project, error) {
	b, err := fs.ReadFile(fsys, ProjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s file here: run ctrlgen create at the root of a project that ctrlgen init wrote", ProjectFile)
	}
	if err != nil {
		return nil, err
	}
	p := &Project{}
	if err := yaml.UnmarshalStrict(b, p); err != nil {
		return nil, fmt.Errorf("%s: %w", ProjectFile, err)
	}
	if p.Layout != Layout {
		return nil, fmt.Errorf("%s: layout %q; this ctrlgen knows %q", ProjectFile, p.Layout, Layout)
	}
	return p, nil
}
