package ctrlgen

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

// ParseArgs reads a command line: flags and packages, in any order.
func ParseArgs(args []string, stderr io.Writer) (Config, error) {
	var cfg Config
	fs := flag.NewFlagSet("ctrlgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ctrlgen [flags] PACKAGE...   (e.g. ./pkg/apis/...)")
		fmt.Fprintln(stderr, "       ctrlgen init | create api | create webhook [flags]   (a new project; see ctrlgen init --help)")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.OutputDir, "output-dir", "", "directory generated packages go under (required)")
	fs.StringVar(&cfg.OutputPkg, "output-pkg", "", "import path of --output-dir (default: derived from the enclosing go.mod)")
	fs.StringVar(&cfg.ControllersDir, "controllers-dir", "", "directory of the controller packages, one per +ctrlgen:controller kind: DIR/<lower-case kind>, holding zz_generated.controller.go (rewritten every run) and reconcile.go (written once, yours to edit) (default: \"controllers\" next to --output-dir, e.g. pkg/generated → pkg/controllers; inside --output-dir when that is the module root)")
	fs.StringVar(&cfg.CRDDir, "crd-dir", "", "directory the crd generator writes CustomResourceDefinitions to, <dir>/<group>_<plural>.yaml, as kubebuilder's config/crd; setting it turns the crd generator on when --generators is not given (with --generators crd, the default is \""+DefaultCRDDir+"\", relative to the working directory)")
	fs.StringVar(&cfg.RBACDir, "rbac-dir", "", "directory the rbac generator writes the manager's RBAC manifests to, as kubebuilder's config/rbac: its ClusterRole, derived from the controllers and the +kubebuilder:rbac markers, its ServiceAccount, bindings, leader election and metrics roles, and a kustomization.yaml; setting it turns the rbac generator on when --generators is not given (with --generators rbac, the default is \""+DefaultRBACDir+"\", relative to the working directory)")
	rbacNamespaces := fs.String("rbac-namespaces", "", "comma-separated namespaces the manager is limited to (its --namespaces): the rbac generator puts the rules it derives for namespaced resources into a Role manager-role and RoleBinding in each, instead of the ClusterRole, which keeps those of cluster-scoped resources (default: every namespace, the ClusterRole)")
	fs.StringVar(&cfg.WebhookDir, "webhook-dir", "", "directory the webhook generator writes kubebuilder's config/webhook to: manifests.yaml (the MutatingWebhookConfiguration and ValidatingWebhookConfiguration of the +kubebuilder:webhook markers, as controller-gen writes them), the Service in front of the manager's webhook server and a kustomization; setting it turns the webhook generator on when --generators is not given (with --generators webhook, the default is \""+DefaultWebhookDir+"\", relative to the working directory)")
	fs.StringVar(&cfg.BoilerplateFile, "boilerplate", "", "file whose text goes on every generated file, after the generated-code line")
	generators := fs.String("generators", "", "comma-separated generators to run (default: all); stale files are removed only for these")
	fs.BoolVar(&cfg.Verify, "verify", false, "change nothing; print what is stale and exit 1 if anything is")
	fs.BoolVar(&cfg.Quiet, "quiet", false, "print no summary of what the run wrote (files it removes and files written for you to edit are still named)")
	plurals := fs.String("plural-exceptions", "", "comma-separated Kind:plural overrides, e.g. Endpoints:Endpoints")
	fs.BoolVar(&cfg.PrefersProtobuf, "prefers-protobuf", false, "typed clients of every input send and accept protobuf first, as client-gen's --prefers-protobuf; clients of k8s.io/api, k8s.io/apiextensions-apiserver, k8s.io/kube-aggregator and k8s.io/metrics types always do. Custom resources are served as JSON only: do not set it for them")
	jsonDecoders := fs.Bool("json-decoders", true, "give each typed client of a custom resource (a client that speaks JSON) a reflection-free JSON decoder of its kinds, generated into zz_generated.jsondecode.go next to it and used for list responses and watch events; =false for client-gen's clients exactly, which decode with apimachinery's serializer")
	fs.StringVar(&cfg.VersionedClientsetPkg, "versioned-clientset-package", "", "as informer-gen's: import path of an existing clientset the informers and controllers use, e.g. k8s.io/client-go/kubernetes; no clientset is generated (leave clientset out of --generators)")
	fs.StringVar(&cfg.ClientsetName, "clientset-name", "", "as kube_codegen.sh gen_client's: the clientset's directory under --output-dir (default \"clientset\"); \".\" puts it right under --output-dir, as client-gen --output-dir <output-dir> --clientset-name versioned does")
	fs.StringVar(&cfg.VersionedName, "versioned-name", "", "as kube_codegen.sh gen_client's: the name of the clientset's package, in --clientset-name's directory (default \"versioned\")")
	fs.BoolVar(&cfg.SingleDirectory, "single-directory", false, "as informer-gen's: write the informers to <output-dir>/informers, without the externalversions directory, as k8s.io/client-go/informers")
	withApplyConfig := fs.Bool("with-applyconfig", true, "generate apply configurations under <output-dir>/applyconfiguration and give the typed clients Apply and ApplyStatus, as kube_codegen.sh --with-applyconfig; =false for neither")
	externals := fs.String("external-applyconfigurations", "", "as applyconfiguration-gen's: comma-separated <type package>.<Type>:<apply configuration package> entries, the only types besides meta/v1's (always client-go's) whose apply configurations are elsewhere, e.g. k8s.io/api/core/v1.PodSpec:k8s.io/client-go/applyconfigurations/core/v1. Without it, every k8s.io/api type uses client-go's, and k8s.io/api inputs get none generated; given, even empty, k8s.io/api inputs get theirs like any input")
	fs.StringVar(&cfg.ApplyConfigurationPkg, "apply-configuration-package", "", "as client-gen's: import path of apply configurations generated elsewhere; the typed clients' Apply methods take them and none are generated (leave applyconfiguration out of --generators)")
	fs.BoolVar(&cfg.ListMarkers, "markers", false, "list the markers ctrlgen reads, and exit")
	fs.BoolVar(&cfg.StrictMarkers, "strict-markers", false, "fail on the marker warnings code-generator and controller-gen pass over in silence: an unknown +kubebuilder: or +genclient marker, a near miss of a known marker in any namespace (+genclinet, +groupname), a marker where it has no effect; for CI (an unknown +ctrlgen: marker always fails)")
	// Flags may follow packages: parse, take the package, parse the rest.
	for {
		if err := fs.Parse(args); err != nil {
			return cfg, err
		}
		if fs.NArg() == 0 {
			break
		}
		cfg.Patterns = append(cfg.Patterns, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *rbacNamespaces != "" {
		for _, ns := range strings.Split(*rbacNamespaces, ",") {
			ns = strings.TrimSpace(ns)
			if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
				return cfg, fmt.Errorf("--rbac-namespaces: %q is not a namespace name: %s", ns, strings.Join(msgs, "; "))
			}
			cfg.RBACNamespaces = append(cfg.RBACNamespaces, ns)
		}
		slices.Sort(cfg.RBACNamespaces)
		cfg.RBACNamespaces = slices.Compact(cfg.RBACNamespaces)
	}
	cfg.NoApplyConfig = !*withApplyConfig
	cfg.NoJSONDecoders = !*jsonDecoders
	if cfg.NoApplyConfig && cfg.ApplyConfigurationPkg != "" {
		return cfg, fmt.Errorf("--with-applyconfig=false and --apply-configuration-package %s: the typed clients either have Apply or not", cfg.ApplyConfigurationPkg)
	}
	if isSet(fs, "external-applyconfigurations") {
		var err error
		if cfg.ExternalApplyConfigurations, err = parseExternalApplyConfigurations(*externals); err != nil {
			return cfg, fmt.Errorf("--external-applyconfigurations: %w", err)
		}
	}
	if *generators != "" {
		cfg.Generators = strings.Split(*generators, ",")
	}
	if isSet(fs, "plural-exceptions") {
		cfg.PluralExceptions = map[string]string{}
	}
	if *plurals != "" {
		for _, e := range strings.Split(*plurals, ",") {
			kind, p, ok := strings.Cut(e, ":")
			if !ok || kind == "" || p == "" {
				return cfg, fmt.Errorf("--plural-exceptions: %q is not Kind:plural", e)
			}
			cfg.PluralExceptions[kind] = p
		}
	}
	return cfg, nil
}

// parseExternalApplyConfigurations reads applyconfiguration-gen's
// --external-applyconfigurations: comma-separated (CSV)
// <package>.<Type>:<apply configuration package> entries, the package and
// type split at the last dot. The meta/v1 types client-go has apply
// configurations for are always mapped, and may not be named again.
func parseExternalApplyConfigurations(value string) (map[model.TypeRef]string, error) {
	out := map[model.TypeRef]string{}
	if value == "" {
		return out, nil
	}
	entries, err := csv.NewReader(strings.NewReader(value)).Read()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		typ, pkg, ok := strings.Cut(e, ":")
		dot := strings.LastIndex(typ, ".")
		if !ok || strings.Contains(pkg, ":") || pkg == "" || dot <= 0 || dot == len(typ)-1 {
			return nil, fmt.Errorf("%q is not <package>.<Type>:<apply configuration package>, e.g. k8s.io/api/core/v1.PodSpec:k8s.io/client-go/applyconfigurations/core/v1", e)
		}
		ref := model.TypeRef{Pkg: typ[:dot], Name: typ[dot+1:]}
		if _, dup := out[ref]; dup || model.MetaApplyConfigurations[ref] != "" {
			return nil, fmt.Errorf("%s.%s is named twice (meta/v1's %s is always client-go's)", ref.Pkg, ref.Name, ref.Name)
		}
		out[ref] = pkg
	}
	return out, nil
}

// isSet reports whether the flag called name was given, even empty.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
