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
	"github.com/ctrlgen/ctrlgen/builder"
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
