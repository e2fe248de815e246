package ctrlgen

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

func TestParseArgs(t *testing.T) {
	cfg, err := ParseArgs([]string{"./apis/...", "--output-dir", "gen", "--verify", "k8s.io/api/apps/v1",
		"--generators=deepcopy,register", "--plural-exceptions", "Endpoints:Endpoints,Octopus:Octopodes"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Patterns:         []string{"./apis/...", "k8s.io/api/apps/v1"},
		OutputDir:        "gen",
		Verify:           true,
		Generators:       []string{"deepcopy", "register"},
		PluralExceptions: map[string]string{"Endpoints": "Endpoints", "Octopus": "Octopodes"},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v\nwant %+v", cfg, want)
	}
	cfg, err = ParseArgs([]string{"--versioned-clientset-package", "k8s.io/client-go/kubernetes", "--single-directory", "--output-dir", "gen", "k8s.io/api/..."}, io.Discard)
	want = Config{Patterns: []string{"k8s.io/api/..."}, OutputDir: "gen", VersionedClientsetPkg: "k8s.io/client-go/kubernetes", SingleDirectory: true}
	if err != nil || !reflect.DeepEqual(cfg, want) {
		t.Errorf("informer-gen's flags: got %+v, %v\nwant %+v", cfg, err, want)
	}
	if cfg, err := ParseArgs([]string{"--clientset-name", ".", "--versioned-name", "clients", "--output-dir", "gen", "./a"}, io.Discard); err != nil || cfg.ClientsetName != "." || cfg.VersionedName != "clients" {
		t.Errorf("kube_codegen.sh's clientset flags: %+v, %v", cfg, err)
	}
	if cfg, err := ParseArgs([]string{"--crd-dir", "config/crd/bases", "--output-dir", "gen", "./apis/..."}, io.Discard); err != nil || cfg.CRDDir != "config/crd/bases" {
		t.Errorf("--crd-dir: %+v, %v", cfg, err)
	}
	if cfg, err := ParseArgs([]string{"--with-applyconfig=false", "./a"}, io.Discard); err != nil || !cfg.NoApplyConfig {
		t.Errorf("--with-applyconfig=false: %+v, %v", cfg, err)
	}
	if cfg, err := ParseArgs([]string{"--apply-configuration-package", "example.com/ac", "./a"}, io.Discard); err != nil || cfg.ApplyConfigurationPkg != "example.com/ac" || cfg.NoApplyConfig {
		t.Errorf("--apply-configuration-package: %+v, %v", cfg, err)
	}
	if _, err := ParseArgs([]string{"--with-applyconfig=false", "--apply-configuration-package", "example.com/ac", "./a"}, io.Discard); err == nil {
		t.Error("--with-applyconfig=false with --apply-configuration-package: no error")
	}
	// As applyconfiguration-gen's: CSV of <package>.<Type>:<package>; given
	// empty, an empty map (the automatic k8s.io/api mapping off), and not
	// given, nil (on).
	if cfg, err := ParseArgs([]string{"--external-applyconfigurations", "k8s.io/api/core/v1.PodSpec:k8s.io/client-go/applyconfigurations/core/v1,example.com/x/v1.T:example.com/ac/x/v1", "./a"}, io.Discard); err != nil ||
		!reflect.DeepEqual(cfg.ExternalApplyConfigurations, map[model.TypeRef]string{
			{Pkg: "k8s.io/api/core/v1", Name: "PodSpec"}: "k8s.io/client-go/applyconfigurations/core/v1",
			{Pkg: "example.com/x/v1", Name: "T"}:         "example.com/ac/x/v1",
		}) {
		t.Errorf("--external-applyconfigurations: %+v, %v", cfg.ExternalApplyConfigurations, err)
	}
	if cfg, err := ParseArgs([]string{"--external-applyconfigurations=", "./a"}, io.Discard); err != nil || cfg.ExternalApplyConfigurations == nil || len(cfg.ExternalApplyConfigurations) != 0 {
		t.Errorf(`--external-applyconfigurations="": %#v, %v; want an empty map`, cfg.ExternalApplyConfigurations, err)
	}
	if cfg, err := ParseArgs([]string{"./a"}, io.Discard); err != nil || cfg.ExternalApplyConfigurations != nil {
		t.Errorf("no --external-applyconfigurations: %#v, %v; want nil", cfg.ExternalApplyConfigurations, err)
	}
	for _, bad := range []string{"k8s.io/api/core/v1.PodSpec", "PodSpec:x", "k8s.io/api/core/v1.:x", "a.B:c:d",
		"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta:k8s.io/client-go/applyconfigurations/meta/v1", "a.B:c,a.B:d"} {
		if _, err := ParseArgs([]string{"--external-applyconfigurations", bad, "./a"}, io.Discard); err == nil {
			t.Errorf("--external-applyconfigurations %s: no error", bad)
		}
	}
	if cfg, err := ParseArgs([]string{"--rbac-namespaces", "b, a,b", "./a"}, io.Discard); err != nil || strings.Join(cfg.RBACNamespaces, ",") != "a,b" {
		t.Errorf("--rbac-namespaces: %q, %v; want a,b", cfg.RBACNamespaces, err)
	}
	if _, err := ParseArgs([]string{"--rbac-namespaces", "A_b", "./a"}, io.Discard); err == nil {
		t.Error("--rbac-namespaces A_b: no error")
	}
	if cfg, err := ParseArgs([]string{"--markers"}, io.Discard); err != nil || !cfg.ListMarkers {
		t.Errorf("--markers: %+v, %v", cfg, err)
	}
	// As client-gen's flag, an empty --plural-exceptions (kube_codegen.sh
	// always passes one) replaces the default exceptions; none keeps them.
	if cfg, err := ParseArgs([]string{"--plural-exceptions", "", "./a"}, io.Discard); err != nil || cfg.PluralExceptions == nil || len(cfg.PluralExceptions) != 0 {
		t.Errorf(`--plural-exceptions "": %#v, %v; want an empty map`, cfg.PluralExceptions, err)
	}
	if cfg, err := ParseArgs([]string{"./a"}, io.Discard); err != nil || cfg.PluralExceptions != nil {
		t.Errorf("no --plural-exceptions: %#v, %v; want nil", cfg.PluralExceptions, err)
	}
	for _, args := range [][]string{{"--plural-exceptions", "Octopus"}, {"--no-such-flag"}} {
		if _, err := ParseArgs(args, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestOutputPackage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/op\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, pkg, wantModule, wantPkg string }{
		{filepath.Join(dir, "pkg/generated"), "", "example.com/op", "example.com/op/pkg/generated"},
		{dir, "", "example.com/op", "example.com/op"},
		{filepath.Join(dir, "x"), "example.com/op/x", "example.com/op", "example.com/op/x"},
	} {
		module, pkg, err := outputPackage(tc.out, tc.pkg)
		if err != nil || module != tc.wantModule || pkg != tc.wantPkg {
			t.Errorf("outputPackage(%s, %q) = %q, %q, %v", tc.out, tc.pkg, module, pkg, err)
		}
	}
	if _, _, err := outputPackage(filepath.Join(dir, "x"), "example.com/elsewhere"); err == nil || !strings.Contains(err.Error(), "puts --output-dir") {
		t.Errorf("an --output-pkg the go.mod contradicts: %v", err)
	}
	if _, _, err := outputPackage("/", ""); err == nil {
		t.Error("no go.mod above / but no error")
	}
}

func TestRunListsMarkers(t *testing.T) {
	var out strings.Builder
	if err := Run(Config{ListMarkers: true, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"+genclient:nonNamespaced  (types)\n    the type is cluster-scoped\n",
		"+ctrlgen:controller:statusApply  (types)\n    write status by server-side apply",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
}

func TestControllersPackage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/op\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir() // no go.mod above it
	for _, tc := range []struct{ flag, out, outPkg, wantDir, wantPkg string }{
		// The default: beside the output directory.
		{"", filepath.Join(dir, "pkg/generated"), "example.com/op/pkg/generated", filepath.Join(dir, "pkg/controllers"), "example.com/op/pkg/controllers"},
		// Inside it when it is the module's root.
		{"", dir, "example.com/op", filepath.Join(dir, "controllers"), "example.com/op/controllers"},
		// Given, inside the output directory: follows --output-pkg.
		{filepath.Join(other, "gen/ctrl"), filepath.Join(other, "gen"), "example.com/elsewhere", filepath.Join(other, "gen/ctrl"), "example.com/elsewhere/ctrl"},
		// Given, elsewhere: from the go.mod.
		{filepath.Join(dir, "internal/ctrl"), filepath.Join(dir, "gen"), "example.com/op/gen", filepath.Join(dir, "internal/ctrl"), "example.com/op/internal/ctrl"},
		// Unknown.
		{filepath.Join(other, "ctrl"), filepath.Join(other, "gen"), "example.com/x", filepath.Join(other, "ctrl"), ""},
	} {
		gotDir, gotPkg := controllersPackage(tc.flag, tc.out, tc.outPkg)
		if gotDir != tc.wantDir || gotPkg != tc.wantPkg {
			t.Errorf("controllersPackage(%q, %q, %q) = %q, %q; want %q, %q", tc.flag, tc.out, tc.outPkg, gotDir, gotPkg, tc.wantDir, tc.wantPkg)
		}
	}
}
