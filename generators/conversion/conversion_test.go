package conversion_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

const userFile = "apis/shop/v2/widget_conversion.go"

// module returns a copy of the golden case's input without the user's
// conversion functions, and the config that generates it.
func module(t *testing.T) (string, ctrlgen.Config) {
	t.Helper()
	dir := testmod.New(t, "../testdata/conversion/in", "example.com/conversion")
	if err := os.Remove(filepath.Join(dir, userFile)); err != nil {
		t.Fatal(err)
	}
	return dir, ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", CRDDir: "config/crd", Stderr: &bytes.Buffer{}}
}

// TestUserFileIsWrittenOnceAndDoesNotCompileUntilWritten: the functions
// for what differs are declared without bodies, so that the build names
// each one; the file is never written again once it is the user's.
func TestUserFileIsWrittenOnceAndDoesNotCompileUntilWritten(t *testing.T) {
	dir, cfg := module(t)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	user := testmod.Read(t, filepath.Join(dir, userFile))
	for _, sig := range []string{
		"func convertWidgetSpecToV1(in *WidgetSpec, out *shopv1.WidgetSpec) error\n",
		"func convertWidgetSpecFromV1(in *shopv1.WidgetSpec, out *WidgetSpec) error\n",
		"func convertLimitsToV1(in *Limits, out *shopv1.Limits) error\n",
		"func convertLimitsFromV1(in *shopv1.Limits, out *Limits) error\n",
		"//   - Timeout: int64 here, string in v1\n",
		"//   - Burst: only v1's Limits has it\n",
	} {
		if !strings.Contains(user, sig) {
			t.Errorf("the user file lacks %q:\n%s", sig, user)
		}
	}
	if strings.Contains(user, "DO NOT EDIT") || strings.Contains(user, "convertPart") || strings.Contains(user, "convertWidgetStatus") {
		t.Errorf("the user file is marked generated or has functions for types that do not differ:\n%s", user)
	}
	out, err := testmod.Go(t, dir, "build", "./apis/...")
	if err == nil || strings.Count(out, "widget_conversion.go") != 4 || strings.Count(out, "missing function body") != 4 {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	written := testmod.Read(t, filepath.Join("..", "testdata", "conversion", "in", userFile))
	testmod.Write(t, filepath.Join(dir, userFile), []byte(written))
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Read(t, filepath.Join(dir, userFile)) != written {
		t.Error("a run changed the user's file")
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Fatalf("go build with the functions written: %v\n%s", err, out)
	}

	// The functions moved to another file: the user file is not written
	// next to them.
	if err := os.Rename(filepath.Join(dir, userFile), filepath.Join(dir, "apis/shop/v2/mine.go")); err != nil {
		t.Fatal(err)
	}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(filepath.Join(dir, userFile)) {
		t.Error("the user file was written again next to the user's functions")
	}
}

// TestMarkerRemovedRemovesOnlyTheGenerated: without the marker, the
// generated conversions and the endpoint go; the user's functions and the
// CRD patch, written once, stay.
func TestMarkerRemovedRemovesOnlyTheGenerated(t *testing.T) {
	dir, cfg := module(t)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	generated := []string{"apis/shop/v1/zz_generated.conversion.go", "apis/shop/v2/zz_generated.conversion.go", "webhooks/zz_generated.conversion.go"}
	for _, f := range generated {
		if !testmod.Exists(filepath.Join(dir, f)) {
			t.Fatalf("%s not generated", f)
		}
	}
	testmod.Replace(t, filepath.Join(dir, "apis/shop/v1/types.go"), "// +ctrlgen:webhook:conversion\n", "")
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	for _, f := range generated {
		if testmod.Exists(filepath.Join(dir, f)) {
			t.Errorf("%s is still there", f)
		}
	}
	for _, f := range []string{userFile, "config/crd/patches/webhook_in_widgets.yaml"} {
		if !testmod.Exists(filepath.Join(dir, f)) {
			t.Errorf("%s, written once, was removed", f)
		}
	}
}

// TestKubebuildersPatchIsKept: a kubebuilder project's own
// patches/webhook_in_<plural>.yaml is neither overwritten nor in the way.
func TestKubebuildersPatchIsKept(t *testing.T) {
	dir, cfg := module(t)
	patch := filepath.Join(dir, "config/crd/patches/webhook_in_widgets.yaml")
	own := []byte("# kubebuilder's, edited\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.shop.example.com\n")
	testmod.Write(t, patch, own)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if got := testmod.Read(t, patch); got != string(own) {
		t.Errorf("the project's patch was rewritten:\n%s", got)
	}
}

func TestMarkerErrors(t *testing.T) {
	for _, tc := range []struct{ name, old, new, says string }{
		{"hand-written Hub", "// WidgetSpec is what v2", "func (*Widget) Hub() {}\n\n// WidgetSpec is what v2", "apis/shop/v1/types.go:11: error: +ctrlgen:webhook:conversion on shop.example.com/v1.Widget: shop.example.com/v1.Widget has Hub; remove those methods to have them generated"},
		{"no storage version", "// +kubebuilder:storageversion\n", "", "apis/shop/v1/types.go:10: error: +ctrlgen:webhook:conversion on shop.example.com/v1.Widget: mark exactly one version's Widget +kubebuilder:storageversion, the hub the others convert through (0 are)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, cfg := module(t)
			testmod.Replace(t, filepath.Join(dir, "apis/shop/v1/types.go"), tc.old, tc.new)
			err := ctrlgen.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error = %v, want %q", err, tc.says)
			}
			if testmod.Exists(filepath.Join(dir, userFile)) || testmod.Exists(filepath.Join(dir, "generated")) {
				t.Error("a failed run wrote files")
			}
		})
	}
}

// TestIdenticalVersionsNeedNoUserFile: two versions with the same types,
// as `ctrlgen create api` writes a second one, convert by generated code
// alone; no user file is written (it would hold only an unused import)
// and the module builds.
func TestIdenticalVersionsNeedNoUserFile(t *testing.T) {
	dir, cfg := module(t)
	for _, f := range []string{"apis/shop/v2/roundtrip_test.go"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	v1 := testmod.Read(t, filepath.Join(dir, "apis/shop/v1/types.go"))
	v2 := strings.Replace(strings.Replace(v1, "package v1\n", "package v2\n", 1), "// +kubebuilder:storageversion\n", "", 1)
	testmod.Write(t, filepath.Join(dir, "apis/shop/v2/types.go"), []byte(v2))
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(filepath.Join(dir, userFile)) {
		t.Errorf("a user file was written for versions that do not differ:\n%s", testmod.Read(t, filepath.Join(dir, userFile)))
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}
