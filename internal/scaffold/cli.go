package scaffold

import (
	"errors"
	"flag"
	"fmt"
	"go/version"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// IsCommand reports whether a command line (without the program name)
// is one of Main's rather than a generator run.
func IsCommand(args []string) bool {
	return len(args) > 0 && (args[0] == "init" || args[0] == "create")
}

// Main runs "init ...", "create api ..." or "create webhook ..." in dir. It returns
// flag.ErrHelp after printing a subcommand's help.
func Main(args []string, dir string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "init":
		return runInit(args[1:], dir, stdout, stderr)
	case len(args) > 1 && args[0] == "create" && args[1] == "api":
		return runCreateAPI(args[2:], dir, stdout, stderr)
	case len(args) > 1 && args[0] == "create" && args[1] == "webhook":
		return runCreateWebhook(args[2:], dir, stdout, stderr)
	case len(args) > 1 && args[0] == "create" && (args[1] == "-h" || args[1] == "-help" || args[1] == "--help"):
		fmt.Fprintln(stderr, createUsage+"\n"+createWebhookUsage)
		return flag.ErrHelp
	case len(args) > 0 && args[0] == "create":
		return fmt.Errorf("%s\n%s", createUsage, createWebhookUsage)
	}
	return fmt.Errorf("unknown command %q", strings.Join(args, " "))
}

const (
	createUsage        = "usage: ctrlgen create api --group GROUP --version VERSION --kind KIND [flags]"
	createWebhookUsage = "       ctrlgen create webhook --group GROUP --version VERSION --kind KIND [--defaulting] [--programmatic-validation] [--conversion]"
)

func runInit(args []string, dir string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ctrlgen init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: ctrlgen init --domain DOMAIN --repo MODULE [flags]

Writes a new project in the current directory, in kubebuilder v4's layout:
go.mod (requiring this ctrlgen and its runtime, with ctrlgen as a tool),
cmd/main.go, config/{crd,manager,default,samples}, Makefile, Dockerfile,
PROJECT; then runs go mod tidy. Nothing is overwritten. Then:
ctrlgen create api.

`)
		fs.PrintDefaults()
	}
	var o InitOptions
	fs.StringVar(&o.Domain, "domain", "", "domain of the API groups: each is <group>.<domain> (required)")
	fs.StringVar(&o.Repo, "repo", "", "module path of the project, e.g. my.domain/guestbook (required)")
	fs.StringVar(&o.ProjectName, "project-name", "", "project name: namespace <name>-system and name prefix <name>- in config/default (default: the directory's name)")
	fs.StringVar(&o.CtrlgenVersion, "ctrlgen-version", "", "for ctrlgen's own development: the ctrlgen version go.mod requires, when this ctrlgen was built from a checkout and has none (default: this ctrlgen's module version)")
	skipTidy := fs.Bool("skip-tidy", false, "do not run go mod tidy after writing the files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("init takes no arguments, only flags; got %q", fs.Args())
	}
	if o.ProjectName == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		o.ProjectName = strings.ToLower(filepath.Base(abs))
	}
	if o.CtrlgenVersion == "" {
		v, err := ownVersion()
		if err != nil {
			return err
		}
		o.CtrlgenVersion = v
	}
	o.GoVersion = strings.TrimPrefix(version.Lang(runtime.Version()), "go")
	files, err := Init(o)
	if err != nil {
		return err
	}
	if err := Write(dir, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote a project for %s, requiring ctrlgen %s.\n", o.Repo, o.CtrlgenVersion)
	if !*skipTidy {
		fmt.Fprintln(stdout, "Running go mod tidy")
		cmd := exec.Command("go", "mod", "tidy")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stdout, stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go mod tidy: %w; the files are written: fix what it says and run go mod tidy again", err)
		}
	}
	fmt.Fprintln(stdout, "Next: go tool ctrlgen create api --group GROUP --version v1 --kind KIND")
	return nil
}

// ownVersion is the module version of this ctrlgen binary: v0.1.0 when
// built by go run/install/tool from a released module; none when built
// from a checkout.
func ownVersion() (string, error) {
	info, ok := debug.ReadBuildInfo()
	v := ""
	if ok {
		v = info.Main.Version
	}
	if v == "" || v == "(devel)" {
		return "", errors.New("this ctrlgen was built from a checkout and has no module version for go.mod to require; run a released one (go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen@VERSION init ...), or give --ctrlgen-version")
	}
	if err := CheckCtrlgenVersion(v); err != nil {
		return "", fmt.Errorf("this ctrlgen's own version: %w; give --ctrlgen-version", err)
	}
	return v, nil
}

func runCreateAPI(args []string, dir string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ctrlgen create api", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, createUsage+`

Adds a kind to the project in the current directory (PROJECT tells its
domain and module): its types in api/<group>/<version>, a sample in
config/samples and, with --controller, the +ctrlgen:controller marker, the
controller's registration in cmd/main.go and its test, which starts a local
control plane. The next make generate writes the controller package,
internal/controller/<kind>: zz_generated.controller.go and, once,
reconcile.go, yours to edit. Nothing is overwritten.

`)
		fs.PrintDefaults()
	}
	var o APIOptions
	fs.StringVar(&o.Group, "group", "", "API group, without the domain: the group is <group>.<domain> (required)")
	fs.StringVar(&o.Version, "version", "", "API version, e.g. v1, v1alpha1 (required)")
	fs.StringVar(&o.Kind, "kind", "", "kind, CamelCase, e.g. Guestbook (required)")
	fs.StringVar(&o.Plural, "plural", "", "resource name (default: the kind's plural, lower case)")
	namespaced := fs.Bool("namespaced", true, "whether the kind is namespaced (false: cluster-scoped)")
	fs.BoolVar(&o.Resource, "resource", true, "write the API types (false: add a controller to a kind of the project)")
	fs.BoolVar(&o.Controller, "controller", true, "give the kind a controller")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("create api takes no arguments, only flags; got %q", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "namespaced" {
			o.Namespaced = namespaced
		}
	})
	files, err := CreateAPI(os.DirFS(dir), o)
	if err != nil {
		return err
	}
	if err := Write(dir, files); err != nil {
		return err
	}
	report(stdout, files)
	if o.Controller {
		fmt.Fprintf(stdout, "Next: make generate (ctrlgen writes %s: zz_generated.controller.go, and reconcile.go for you to edit), then make test\n",
			filepath.ToSlash(filepath.Join(ControllersDir, strings.ToLower(o.Kind))))
	} else {
		fmt.Fprintln(stdout, "Next: make generate")
	}
	return nil
}

// report prints what files are: each written or updated, with what an
// update of a file of the user's changes.
func report(stdout io.Writer, files []File) {
	for _, f := range files {
		verb := "wrote"
		if f.Update {
			verb = "updated"
		}
		if f.Change != "" {
			fmt.Fprintf(stdout, "%s %s: %s\n", verb, f.Path, f.Change)
		} else {
			fmt.Fprintln(stdout, verb, f.Path)
		}
	}
}

func runCreateWebhook(args []string, dir string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ctrlgen create webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: "+strings.TrimSpace(createWebhookUsage)+`

Gives a kind of the project in the current directory (it must be in
PROJECT: ctrlgen create api adds it) webhooks, as kubebuilder's create
webhook. It changes, and reports, one line each of what is yours:
  - the marker +ctrlgen:webhook:<defaulting,validation,conversion> on the
    kind's type in api/<group>/<version>/<kind>_types.go, merged into the
    one there if there is one; for --conversion also
    +kubebuilder:storageversion, when no version of the kind has it: the
    version given is then the hub the others convert through;
  - cmd/main.go: --webhook-dir ../config/webhook on the go:generate line,
    and <kind>webhook.Register(m) (webhooks.RegisterConversion(m) for
    --conversion) with its import;
  - config/default: ../webhook in its resources, and patches giving the
    manager its webhook port and the prefixed names of its webhook Service
    and certificates' Secret (new files manager_webhook_patch.yaml and
    webhook_service_patch.yaml);
  - for --conversion, config/crd/kustomization.yaml: the CRD's conversion
    patch, and kustomizeconfig.yaml (new);
  - PROJECT.
The next make generate writes internal/webhooks/<kind>: webhook.go, once,
yours to edit (Default, ValidateCreate, ...), and zz_generated.webhook.go;
internal/webhooks/zz_generated.conversion.go; config/webhook. Nothing is
overwritten, and run again it adds nothing twice.

`)
		fs.PrintDefaults()
	}
	var o WebhookOptions
	fs.StringVar(&o.Group, "group", "", "API group of the kind, without the domain (required)")
	fs.StringVar(&o.Version, "version", "", "API version of the kind, e.g. v1 (required); with --conversion and no storage version yet, the hub")
	fs.StringVar(&o.Kind, "kind", "", "the kind, e.g. Guestbook (required)")
	fs.BoolVar(&o.Defaulting, "defaulting", false, "a mutating webhook: Default(ctx, obj)")
	fs.BoolVar(&o.Validation, "programmatic-validation", false, "a validating webhook: ValidateCreate, ValidateUpdate, ValidateDelete")
	fs.BoolVar(&o.Conversion, "conversion", false, "the CRD's conversion webhook, between the kind's versions through the storage version; needs a second version (create api) and --defaulting or --programmatic-validation on some kind of the project")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("create webhook takes no arguments, only flags; got %q", fs.Args())
	}
	files, err := CreateWebhook(os.DirFS(dir), o)
	if err != nil {
		return err
	}
	if err := Write(dir, files); err != nil {
		return err
	}
	report(stdout, files)
	fmt.Fprintf(stdout, "Next: make generate (ctrlgen writes %s/%s: webhook.go, once, for you to edit, and zz_generated.webhook.go; and %s), then make test\n",
		WebhooksDir, strings.ToLower(o.Kind), WebhookDir)
	return nil
}
