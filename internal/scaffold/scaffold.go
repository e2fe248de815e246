// Package scaffold writes a new ctrlgen project and its APIs, as
// kubebuilder's "init" and "create api" do: Init and CreateAPI return the
// files in memory, and Write puts them on disk, never overwriting a file
// that it was not asked to update.
//
// The layout is kubebuilder v4's multi-group one: cmd/main.go,
// api/<group>/<version>, internal/controller, config/{crd,rbac,manager,
// default,samples}, with ctrlgen's generated clientset, listers and
// informers under pkg/generated.
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"path"
	"regexp"
	"strings"
	"text/template"

	"golang.org/x/mod/module"

	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/plural"
)

// Where things go in a project, relative to its root.
const (
	ProjectFile    = "PROJECT"
	MainFile       = "cmd/main.go"
	APIDir         = "api"
	GeneratedDir   = "pkg/generated"
	ControllersDir = "internal/controller"
	CRDDir         = "config/crd"
	RBACDir        = "config/rbac"
	SamplesDir     = "config/samples"
	DefaultDir     = "config/default"
	// WebhookDir is where ctrlgen writes the webhook configurations and
	// their Service (--webhook-dir); WebhooksDir is where it writes a
	// package per +ctrlgen:webhook kind: next to ControllersDir, as
	// ctrlgen places it (it has no flag for it).
	WebhookDir  = "config/webhook"
	WebhooksDir = "internal/webhooks"
)

// Layout names this package's layout in PROJECT, so that a later ctrlgen
// with another layout can tell.
const Layout = "go.ctrlgen.io/v1"

// The insertion points create api adds lines before. They are plain
// comments, not markers (no "+"), and cmd/main.go is no API package, so
// ctrlgen's marker reader never sees them.
const (
	importsPoint  = "// ctrlgen:scaffold:imports"
	registerPoint = "// ctrlgen:scaffold:register"
	crdsPoint     = "# ctrlgen:scaffold:crds"
	samplesPoint  = "# ctrlgen:scaffold:samples"
	// create webhook's: in cmd/main.go after the manager m exists, in
	// config/default's resources and patches, in config/crd's patches and
	// before where its configurations go.
	webhooksPoint          = "// ctrlgen:scaffold:webhooks"
	resourcesPoint         = "# ctrlgen:scaffold:resources"
	patchesPoint           = "# ctrlgen:scaffold:patches"
	crdPatchesPoint        = "# ctrlgen:scaffold:crdpatches"
	crdConfigurationsPoint = "# ctrlgen:scaffold:crdconfigurations"
)

// File is a file for Write: Path is relative to the project root, with
// slashes. Update is set for an existing file that the change edits
// (cmd/main.go, PROJECT, a kustomization); any other file is new and must
// not exist.
type File struct {
	Path    string
	Content []byte
	Update  bool
	// Change says what an update changes, for the command's report, when
	// the file is the user's: "+ctrlgen:webhook:defaulting".
	Change string
}

// CtrlgenModule is ctrlgen's module; the runtime's modules are
// CtrlgenModule/runtime and CtrlgenModule/runtime/manager.
const CtrlgenModule = "github.com/ctrlgen/ctrlgen"

// InitOptions are ctrlgen init's.
type InitOptions struct {
	Domain      string // e.g. my.domain; API groups are <group>.<domain>
	Repo        string // the module path, e.g. my.domain/guestbook
	ProjectName string // e.g. guestbook: the namespace <name>-system, the name prefix <name>-
	// CtrlgenVersion is the version of ctrlgen and of its runtime modules
	// that go.mod requires.
	CtrlgenVersion string
	// GoVersion is the Go release, "1.26": go.mod's go line is its first
	// patch release, 1.26.0, which ctrlgen's modules require; the
	// Dockerfile's golang image is its latest.
	GoVersion string
}

// Project is the PROJECT file: what create api reads back.
type Project struct {
	Layout      string     `yaml:"layout"`
	Domain      string     `yaml:"domain"`
	Repo        string     `yaml:"repo"`
	ProjectName string     `yaml:"projectName"`
	Resources   []Resource `yaml:"resources,omitempty"`
}

// Resource is a kind that create api added.
type Resource struct {
	Group      string `yaml:"group"` // without the domain
	Version    string `yaml:"version"`
	Kind       string `yaml:"kind"`
	Plural     string `yaml:"plural"` // the resource name, lower case
	Namespaced bool   `yaml:"namespaced"`
	Controller bool   `yaml:"controller"`
	Path       string `yaml:"path"` // the API package's import path
	// Webhooks are what create webhook asked for.
	Webhooks *Webhooks `yaml:"webhooks,omitempty"`
}

// Webhooks are a kind's webhooks, as kubebuilder's PROJECT has them.
type Webhooks struct {
	Defaulting bool `yaml:"defaulting,omitempty"`
	Validation bool `yaml:"validation,omitempty"`
	Conversion bool `yaml:"conversion,omitempty"`
}

var (
	versionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	kindRE    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,62}$`)
	goLineRE  = regexp.MustCompile(`^1\.[0-9]+$`)
	// Kubernetes' names (k8s.io/apimachinery/pkg/util/validation), which
	// ctrlgen does not link.
	dnsLabelRE     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	dns1035LabelRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	dnsSubdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$`)
)

// isDNSSubdomain is Kubernetes' IsDNS1123Subdomain.
func isDNSSubdomain(s string) bool { return len(s) <= 253 && dnsSubdomainRE.MatchString(s) }

const (
	dnsLabelRule     = "lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 long"
	dnsSubdomainRule = "DNS labels (" + dnsLabelRule + ") joined by '.', at most 253 long"
)

func (o InitOptions) validate() error {
	var errs []string
	if o.Domain == "" {
		errs = append(errs, "--domain is required (API groups are <group>.<domain>), e.g. --domain my.domain")
	} else if !isDNSSubdomain(o.Domain) {
		errs = append(errs, fmt.Sprintf("--domain %q is not a DNS subdomain: %s", o.Domain, dnsSubdomainRule))
	}
	if o.Repo == "" {
		errs = append(errs, "--repo is required: the Go module path, e.g. --repo my.domain/guestbook")
	} else if err := module.CheckPath(o.Repo); err != nil {
		errs = append(errs, fmt.Sprintf("--repo: %v", err))
	}
	if !dnsLabelRE.MatchString(o.ProjectName) {
		errs = append(errs, fmt.Sprintf("project name %q is not a DNS label (%s): it names the namespace %s-system; give --project-name", o.ProjectName, dnsLabelRule, o.ProjectName))
	}
	if err := CheckCtrlgenVersion(o.CtrlgenVersion); err != nil {
		errs = append(errs, err.Error())
	}
	if !goLineRE.MatchString(o.GoVersion) {
		errs = append(errs, fmt.Sprintf("Go version %q is not <major>.<minor>, e.g. 1.26", o.GoVersion))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// CheckCtrlgenVersion says whether v can be required as ctrlgen's module
// version: a semantic version (a release or pseudo-version) without
// build metadata ("+dirty", which Go stamps on a binary built from a
// modified checkout, is none).
func CheckCtrlgenVersion(v string) error {
	if err := module.Check(CtrlgenModule, v); err != nil || strings.Contains(v, "+") {
		return fmt.Errorf("ctrlgen version %q is not a module version go.mod can require, e.g. v0.1.0", v)
	}
	return nil
}

// Init returns the files of a new project.
func Init(o InitOptions) ([]File, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := Project{Layout: Layout, Domain: o.Domain, Repo: o.Repo, ProjectName: o.ProjectName}
	data := struct {
		InitOptions
		LeaderElectionID string
		Generate         string
	}{o, o.ProjectName + "." + o.Domain, generateLine()}
	files, err := renderTree("templates/init", data)
	if err != nil {
		return nil, err
	}
	project, err := marshalProject(p)
	if err != nil {
		return nil, err
	}
	return append(files, File{Path: ProjectFile, Content: project}), nil
}

// generateLine is cmd/main.go's go:generate line. go generate runs it in
// cmd, so the paths go up one.
func generateLine() string {
	return "//go:generate go tool ctrlgen --output-dir ../" + GeneratedDir +
		" --controllers-dir ../" + ControllersDir +
		" --crd-dir ../" + CRDDir + " --rbac-dir ../" + RBACDir + " ../" + APIDir + "/..."
}

//go:embed all:templates
var templates embed.FS

// renderTree renders every template under dir to a file at the same path
// below dir, less ".tmpl"; a name starting with "_" stands for one
// starting with ".": a template called .gitignore would be this
// repository's. Go files are gofmt'ed.
func renderTree(dir string, data any) ([]File, error) {
	var files []File
	err := walkTemplates(dir, func(name string) error {
		content, err := render(name, data)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(name, dir+"/"), ".tmpl")
		if base := path.Base(rel); strings.HasPrefix(base, "_") {
			rel = path.Join(path.Dir(rel), "."+base[1:])
		}
		files = append(files, File{Path: rel, Content: content})
		return nil
	})
	return files, err
}

func walkTemplates(dir string, visit func(name string) error) error {
	entries, err := templates.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := dir + "/" + e.Name()
		if e.IsDir() {
			err = walkTemplates(name, visit)
		} else {
			err = visit(name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// render executes the template at name (in templates); a Go file's
// output is gofmt'ed.
func render(name string, data any) ([]byte, error) {
	src, err := templates.ReadFile(name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(path.Base(name)).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return nil, err
	}
	if strings.HasSuffix(name, ".go.tmpl") {
		formatted, err := format.Source(out.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return formatted, nil
	}
	return out.Bytes(), nil
}

// apiData is what the create api templates get: a resource and the names
// derived from it.
type apiData struct {
	Resource
	Domain         string
	Repo           string
	ProjectName    string
	QualifiedGroup string // webapp.my.domain
	KindLower      string // guestbook
	PluralGoName   string // Guestbooks, the typed client's method
	PluralLower    string // guestbooks, a variable for the typed client
	GroupVersionGo string // WebappV1, the clientset's method
	APIAlias       string // webappv1, the API package's import name
	ControllerPkg  string // the controller package's import path
	ClientsetPkg   string // the generated clientset's import path
	CRDFile        string // the CRD's file name in config/crd
	SampleFile     string // the sample's file name in config/samples
}

func newAPIData(p *Project, r Resource) apiData {
	group := r.Group + "." + p.Domain
	var groupGo strings.Builder
	for _, word := range strings.Split(r.Group, "-") {
		groupGo.WriteString(goname.UpperFirst(word))
	}
	kindLower := strings.ToLower(r.Kind)
	pluralGo := goname.UpperFirst(plural.Of(r.Kind, plural.DefaultExceptions))
	return apiData{
		Resource:       r,
		Domain:         p.Domain,
		Repo:           p.Repo,
		ProjectName:    p.ProjectName,
		QualifiedGroup: group,
		KindLower:      kindLower,
		PluralGoName:   pluralGo,
		PluralLower:    strings.ToLower(pluralGo),
		GroupVersionGo: groupGo.String() + goname.UpperFirst(r.Version),
		APIAlias:       strings.ReplaceAll(r.Group, "-", "") + r.Version,
		ControllerPkg:  p.Repo + "/" + ControllersDir + "/" + kindLower,
		ClientsetPkg:   p.Repo + "/" + GeneratedDir + "/clientset/versioned",
		CRDFile:        group + "_" + r.Plural + ".yaml",
		SampleFile:     r.Group + "_" + r.Version + "_" + kindLower + ".yaml",
	}
}

// apiDir is the API package's directory.
func (r Resource) apiDir() string { return path.Join(APIDir, r.Group, r.Version) }

// controllerDir is the controller package's directory, where ctrlgen
// writes it (--controllers-dir/<lower-case kind>).
func (r Resource) controllerDir() string {
	return path.Join(ControllersDir, strings.ToLower(r.Kind))
}

// String is the resource as kubebuilder prints one: webapp/v1, Kind=Guestbook.
func (r Resource) String() string { return r.Group + "/" + r.Version + ", Kind=" + r.Kind }
