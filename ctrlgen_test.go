package ctrlgen_test

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/builder"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// kubeAPIModule is a module that requires k8s.io/api, the input of the
// every-group benchmark.
func kubeAPIModule(tb testing.TB) string {
	dir := tb.TempDir()
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		tb.Fatal(err)
	}
	mod := "module example.com/kubeapi\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/api v0.37.2\n\tk8s.io/apimachinery v0.37.2\n\tk8s.io/client-go v0.37.2\n)\n"
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkKubeAPI generates clients for every group and version of
// k8s.io/api into an empty directory, without writing: the work of a
// first run but the disk.
func BenchmarkKubeAPI(b *testing.B) {
	dir := kubeAPIModule(b)
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"k8s.io/api/..."}, OutputDir: "generated", Stderr: io.Discard}
	for b.Loop() {
		changes, err := ctrlgen.Plan(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(changes.Files)), "files")
	}
}

// BenchmarkOneGroupVersion generates one group/version with two kinds,
// then measures a run that has nothing to change: the loop a developer
// sits in.
func BenchmarkOneGroupVersion(b *testing.B) {
	dir := testmod.New(b, "generators/testdata/verbs/in", "example.com/bench")
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: io.Discard}
	if err := ctrlgen.Run(cfg); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		changes, err := ctrlgen.Plan(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if !changes.Empty() {
			b.Fatal("second run changes files")
		}
	}
}

// TestShippedTreeOptions: the go:generate line of the tree of k8s.io/api
// informers and listers the runtime ships (runtime/kube/doc.go) has the options
// the controller wiring assumes of it (builder.ShippedOptions).
func TestShippedTreeOptions(t *testing.T) {
	data, err := os.ReadFile("runtime/kube/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = `//go:generate sh -c "cd ../.. && go run ./cmd/ctrlgen `
	var line string
	for l := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			line = rest
		}
	}
	if line == "" {
		t.Fatalf("runtime/kube/doc.go has no line %q", prefix)
	}
	cfg, err := ctrlgen.ParseArgs(strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), `"`)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	opts := builder.ShippedOptions()
	if cfg.VersionedClientsetPkg != opts.VersionedClientsetPkg || cfg.SingleDirectory != opts.SingleDirectory ||
		cfg.PluralExceptions != nil || cfg.PrefersProtobuf || cfg.OutputPkg != "" || cfg.OutputDir != "runtime/kube" ||
		path.Join(opts.Module, "kube") != opts.OutputPkg || !slices.Equal(cfg.Patterns, []string{"k8s.io/api/..."}) {
		t.Errorf("runtime/kube/doc.go generates with %+v\nbut builder.ShippedOptions() are %+v", cfg, opts)
	}
}

// TestVersionedClientsetIsNotGenerated: --versioned-clientset-package
// names the clientset to use, so asking for the clientset generator too
// is an error rather than a flag quietly ignored.
func TestVersionedClientsetIsNotGenerated(t *testing.T) {
	_, err := ctrlgen.Plan(ctrlgen.Config{Dir: t.TempDir(), Patterns: []string{"./apis/..."}, OutputDir: "generated",
		Generators: []string{"clientset", "informer"}, VersionedClientsetPkg: "k8s.io/client-go/kubernetes"})
	if err == nil || !strings.Contains(err.Error(), "leave it out of --generators") {
		t.Errorf("error %v", err)
	}
}

// TestClientsetPlacement: --clientset-name and --versioned-name take a
// directory below --output-dir and a package name, and may not put the
// clientset in or around another generator's tree, whose stale-file
// removal would then reach into it (golden clientsetname generates with
// --clientset-name .).
func TestClientsetPlacement(t *testing.T) {
	dir := testmod.New(t, filepath.Join(testmod.RepoRoot(), "generators/testdata/nostatus/in"), "example.com/user")
	for _, tc := range []struct {
		clientset, versioned, want string
	}{
		{"../clientset", "", `--clientset-name "../clientset": want a directory below --output-dir`},
		{"/abs", "", `--clientset-name "/abs": want a directory below --output-dir`},
		{"a//b", "", `--clientset-name "a//b"`},
		{"", "my-clients", `--versioned-name "my-clients": want a Go package name`},
		{"", "main", `--versioned-name "main"`},
		{"", "_", `--versioned-name "_"`},
		{"pkg/vendor", "", `--clientset-name "pkg/vendor"`},
		{"testdata/x", "", `--clientset-name "testdata/x"`},
		{"_clients", "", `--clientset-name "_clients"`},
		{"my clients", "", `--clientset-name "my clients" --versioned-name "": malformed import path`},
		{".", "listers", "the clientset would be at example.com/user/generated/listers, which overlaps example.com/user/generated/listers"},
		{"informers/externalversions", "", "overlaps example.com/user/generated/informers/externalversions"},
		{"applyconfiguration/x", "", "overlaps example.com/user/generated/applyconfiguration"},
		{"../apis/config", "", `--clientset-name "../apis/config"`},
	} {
		cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: io.Discard,
			ClientsetName: tc.clientset, VersionedName: tc.versioned}
		if _, err := ctrlgen.Plan(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--clientset-name %q --versioned-name %q: error %v\nwant it to contain %q", tc.clientset, tc.versioned, err, tc.want)
		}
	}
	// An API package, its zz_generated files ctrlgen's: the clientset's
	// stale-file removal would reach them.
	if _, err := ctrlgen.Plan(ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: ".", Stderr: io.Discard,
		ClientsetName: "apis/config", VersionedName: "v1"}); err == nil || !strings.Contains(err.Error(), "overlaps example.com/user/apis/config/v1") {
		t.Errorf("clientset in an API package: error %v", err)
	}
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: io.Discard,
		ClientsetName: "client", VersionedName: "typed"}
	changes, err := ctrlgen.Plan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "generated/client/typed/clientset.go")
	found := false
	for _, f := range changes.Files {
		found = found || f.Path == want
		if rel, _ := filepath.Rel(dir, f.Path); strings.HasPrefix(rel, filepath.Join("generated", "clientset")) {
			t.Errorf("%s written outside the clientset's place", rel)
		}
	}
	if !found {
		t.Errorf("no %s", want)
	}
	if _, err := ctrlgen.Plan(ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated",
		Generators: []string{"informer"}, VersionedClientsetPkg: "k8s.io/client-go/kubernetes", ClientsetName: "."}); err == nil || !strings.Contains(err.Error(), "it generates none") {
		t.Errorf("--clientset-name with --versioned-clientset-package: error %v", err)
	}
}

// TestApplyConfigurationFlagsConflict: a generator the flags turn off or
// hand to another package is an error when asked for by name.
func TestApplyConfigurationFlagsConflict(t *testing.T) {
	for _, cfg := range []ctrlgen.Config{
		{ApplyConfigurationPkg: "example.com/ac"},
		{NoApplyConfig: true},
	} {
		cfg.Dir, cfg.Patterns, cfg.OutputDir = t.TempDir(), []string{"./apis/..."}, "generated"
		cfg.Generators = []string{"applyconfiguration", "clientset"}
		if _, err := ctrlgen.Plan(cfg); err == nil || !strings.Contains(err.Error(), "leave it out of --generators") {
			t.Errorf("%+v: error %v", cfg, err)
		}
	}
}

// TestClientsetNeedsApplyConfigurations: a run that generates the
// clientset but not the apply configurations its Apply methods take, and
// is not told where others are (generate-groups.sh client,lister,informer
// translated), is refused with both ways out, instead of writing clients
// that do not compile; either way out then runs.
func TestClientsetNeedsApplyConfigurations(t *testing.T) {
	dir := testmod.New(t, filepath.Join(testmod.RepoRoot(), "generators/testdata/clientlisterinformer/in"), "example.com/user")
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: io.Discard,
		Generators: []string{"clientset", "lister", "informer"}}
	_, err := ctrlgen.Plan(cfg)
	for _, want := range []string{"Add applyconfiguration to --generators", "pass --with-applyconfig=false"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want it to say %q", err, want)
		}
	}
	for _, fix := range []func(*ctrlgen.Config){
		func(c *ctrlgen.Config) { c.Generators = append(c.Generators, "applyconfiguration") },
		func(c *ctrlgen.Config) { c.NoApplyConfig = true },
		func(c *ctrlgen.Config) { c.ApplyConfigurationPkg = "example.com/user/ac" },
	} {
		c := cfg
		c.Generators = slices.Clone(cfg.Generators)
		fix(&c)
		if _, err := ctrlgen.Plan(c); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestExternalApplyConfigurationsNeedGenerated: the mapping says where
// generated apply configurations find others'; without any generated,
// giving it is an error, not a flag quietly ignored.
func TestExternalApplyConfigurationsNeedGenerated(t *testing.T) {
	for _, cfg := range []ctrlgen.Config{{ApplyConfigurationPkg: "example.com/ac"}, {NoApplyConfig: true}} {
		cfg.Dir, cfg.Patterns, cfg.OutputDir = t.TempDir(), []string{"./apis/..."}, "generated"
		cfg.ExternalApplyConfigurations = map[model.TypeRef]string{}
		if _, err := ctrlgen.Plan(cfg); err == nil || !strings.Contains(err.Error(), "--external-applyconfigurations") {
			t.Errorf("%+v: error %v", cfg, err)
		}
	}
}

// TestApplyConfigurationChoices: by default the apply configurations are
// generated and the clients take them; --apply-configuration-package
// points the clients and the fake at another's and generates none;
// --with-applyconfig=false leaves Apply out altogether.
func TestApplyConfigurationChoices(t *testing.T) {
	dir := testmod.New(t, filepath.Join(testmod.RepoRoot(), "generators/testdata/nostatus/in"), "example.com/user")
	plan := func(cfg ctrlgen.Config) map[string]string {
		t.Helper()
		cfg.Dir, cfg.Patterns, cfg.OutputDir, cfg.Stderr = dir, []string{"./apis/..."}, "generated", io.Discard
		changes, err := ctrlgen.Plan(cfg)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range changes.Files {
			rel, _ := filepath.Rel(dir, f.Path)
			files[filepath.ToSlash(rel)] = string(f.Content)
		}
		return files
	}
	const client = "generated/clientset/versioned/typed/config/v1/setting.go"
	const fake = "generated/clientset/versioned/fake/clientset_generated.go"
	const ac = "generated/applyconfiguration/config/v1/setting.go"

	files := plan(ctrlgen.Config{})
	if !strings.Contains(files[client], `Apply(ctx context.Context, setting *applyconfigurationconfigv1.SettingApplyConfiguration`) ||
		!strings.Contains(files[client], `"example.com/user/generated/applyconfiguration/config/v1"`) || files[ac] == "" {
		t.Errorf("default: the client takes the generated apply configurations:\n%s", files[client])
	}
	if !strings.Contains(files[fake], "NewFieldManagedTracker") {
		t.Errorf("default: NewClientset tracks managed fields:\n%s", files[fake])
	}

	files = plan(ctrlgen.Config{ApplyConfigurationPkg: "example.com/elsewhere/ac"})
	if !strings.Contains(files[client], `"example.com/elsewhere/ac/config/v1"`) || !strings.Contains(files[fake], `"example.com/elsewhere/ac"`) {
		t.Errorf("--apply-configuration-package: the client and the fake take the package given:\n%s\n%s", files[client], files[fake])
	}
	for name := range files {
		if strings.HasPrefix(name, "generated/applyconfiguration/") {
			t.Errorf("--apply-configuration-package: %s generated", name)
		}
	}

	files = plan(ctrlgen.Config{NoApplyConfig: true})
	if strings.Contains(files[client], "Apply") || strings.Contains(files[fake], "NewFieldManagedTracker") {
		t.Errorf("--with-applyconfig=false: Apply or a field-managed fake:\n%s\n%s", files[client], files[fake])
	}
	for name := range files {
		if strings.HasPrefix(name, "generated/applyconfiguration/") {
			t.Errorf("--with-applyconfig=false: %s generated", name)
		}
	}
}

// TestRunTellsWhatItDid: a run ends with a summary of what it wrote, names
// each file it wrote for the user to edit, and names each file it removes
// (a typo in +genclient removes a kind's clients and its controller's
// wiring, and says so, with the near miss).
func TestRunTellsWhatItDid(t *testing.T) {
	dir := testmod.New(t, "generators/testdata/controller/in", "example.com/controller")
	var stderr strings.Builder
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: &stderr}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	first := stderr.String()
	for _, want := range []string{"ctrlgen: wrote controllers/backup/reconcile.go for you to edit\n", " unchanged, 0 removed\n"} {
		if !strings.Contains(first, want) {
			t.Errorf("first run said:\n%s\nwant %q in it", first, want)
		}
	}

	stderr.Reset()
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "ctrlgen: 0 files written, ") || !strings.HasSuffix(got, " unchanged, 0 removed\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("a run with nothing to do said:\n%s", got)
	}

	stderr.Reset()
	testmod.Replace(t, filepath.Join(dir, "apis/ops/v1/types.go"), "// +genclient\n// +genclient:noStatus\n", "// +genclinet\n")
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	got := stderr.String()
	for _, want := range []string{
		"apis/ops/v1/types.go:87: warning: unknown marker +genclinet; did you mean +genclient?",
		"ctrlgen: removed generated/clientset/versioned/typed/ops/v1/restore.go, which this run no longer generates\n",
		"ctrlgen: removed controllers/restore/zz_generated.controller.go, which this run no longer generates\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("after a typo in +genclient the run said:\n%s\nwant %q in it", got, want)
		}
	}

	stderr.Reset()
	cfg.Quiet = true
	testmod.Replace(t, filepath.Join(dir, "apis/ops/v1/types.go"), "// +genclinet\n", "// +genclient\n// +genclient:noStatus\n")
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); strings.Contains(got, "files written") {
		t.Errorf("--quiet printed a summary:\n%s", got)
	}
}

// TestOutputPkgMustMatchTheModule: an --output-pkg the go.mod contradicts
// would write imports that do not compile; the run refuses it, writing
// nothing.
func TestOutputPkgMustMatchTheModule(t *testing.T) {
	dir := testmod.New(t, "generators/testdata/verbs/in", "example.com/verbs")
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", OutputPkg: "example.com/other/generated", Stderr: io.Discard}
	err := ctrlgen.Run(cfg)
	if err == nil || !strings.Contains(err.Error(), "--output-pkg example.com/other/generated: the go.mod of module example.com/verbs puts --output-dir") || !strings.Contains(err.Error(), "at example.com/verbs/generated") {
		t.Fatalf("err = %v", err)
	}
	if testmod.Exists(filepath.Join(dir, "generated")) {
		t.Error("the refused run wrote files")
	}
	cfg.OutputPkg = "example.com/verbs/generated"
	if err := ctrlgen.Run(cfg); err != nil {
		t.Errorf("the matching --output-pkg: %v", err)
	}
}
