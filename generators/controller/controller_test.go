package controller_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// module returns a generated copy of the golden case's input and the
// config that generated it.
func module(t *testing.T) (string, ctrlgen.Config) {
	t.Helper()
	dir := testmod.New(t, "../testdata/controller/in", "example.com/controller")
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: &bytes.Buffer{}}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// verify runs ctrlgen --verify and reports whether it found the tree
// up to date.
func verify(t *testing.T, cfg ctrlgen.Config) (bool, string) {
	t.Helper()
	var out bytes.Buffer
	cfg.Verify, cfg.Stdout = true, &out
	err := ctrlgen.Run(cfg)
	if err != nil && !errors.Is(err, ctrlgen.ErrStale) {
		t.Fatal(err)
	}
	return err == nil, out.String()
}

func TestFirstRunWritesWiringAndUserFile(t *testing.T) {
	dir, _ := module(t)
	backup := filepath.Join(dir, "controllers/backup")
	wiring, user := testmod.Read(t, filepath.Join(backup, "zz_generated.controller.go")), testmod.Read(t, filepath.Join(backup, "reconcile.go"))
	if !strings.HasPrefix(wiring, gen.Header+"\n") {
		t.Errorf("the wiring has no generated header:\n%s", wiring)
	}
	if strings.Contains(user, "DO NOT EDIT") || !strings.Contains(user, "func (c *Controller) Reconcile(") || !strings.Contains(user, "func (c *Controller) Finalize(") {
		t.Errorf("user file:\n%s", user)
	}
	// The schedule package had its own Reconcile: no reconcile.go there.
	if testmod.Exists(filepath.Join(dir, "controllers/schedule/reconcile.go")) {
		t.Error("reconcile.go written next to a hand-written Reconcile")
	}
	for _, s := range []string{user, wiring} {
		if strings.Contains(s, "TODO") {
			t.Errorf("TODO in generated code:\n%s", s)
		}
	}
}

func TestUserEditsSurviveRegeneration(t *testing.T) {
	dir, cfg := module(t)
	backup := filepath.Join(dir, "controllers/backup")
	userPath, wiringPath := filepath.Join(backup, "reconcile.go"), filepath.Join(backup, "zz_generated.controller.go")
	testmod.Replace(t, userPath, `"Reconciling Backup"`, `"Backing up", "source", obj.Spec.Source`)
	testmod.Replace(t, userPath, "return nil\n}", "return nil // the backups stay\n}\n\nfunc helper() int { return 42 }")
	edited := testmod.Read(t, userPath)
	wiring := testmod.Read(t, wiringPath)

	// A second run changes nothing, and --verify agrees.
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if got := testmod.Read(t, userPath); got != edited {
		t.Fatalf("regeneration changed the user's file:\n%s", got)
	}
	if ok, report := verify(t, cfg); !ok {
		t.Fatalf("--verify finds an edited user file stale:\n%s", report)
	}

	// A deleted wiring file comes back, the user's file stays as it is.
	os.Remove(wiringPath)
	if ok, report := verify(t, cfg); ok || !strings.Contains(report, "new: controllers/backup/zz_generated.controller.go") {
		t.Errorf("--verify after removing the wiring: up to date %v\n%s", ok, report)
	}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Read(t, wiringPath) != wiring || testmod.Read(t, userPath) != edited {
		t.Error("the wiring was not restored as it was, or the user's file changed")
	}

	// Defining Deleted makes the wiring stale; the next run wires it.
	testmod.Write(t, filepath.Join(backup, "deleted.go"), []byte(`package backup

import (
	"context"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

func (c *Controller) Deleted(ctx context.Context, key cache.ObjectName) error { return nil }
`))
	if ok, report := verify(t, cfg); ok || !strings.Contains(report, "+\t\tDeleted:   c.Deleted,") {
		t.Errorf("--verify after adding Deleted: up to date %v\n%s", ok, report)
	}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Read(t, userPath) != edited {
		t.Error("wiring Deleted changed the user's file")
	}

	// Reconcile moved to another file and reconcile.go removed: it is not
	// written again, which would declare Reconcile twice.
	testmod.Write(t, filepath.Join(backup, "moved.go"), []byte(edited))
	os.Remove(userPath)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(userPath) {
		t.Error("reconcile.go came back although moved.go declares Reconcile")
	}
	if out, err := testmod.Go(t, dir, "vet", "./controllers/..."); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}
}

func TestControllerMarkerRemovedRemovesOnlyTheWiring(t *testing.T) {
	dir, cfg := module(t)
	testmod.Replace(t, filepath.Join(dir, "apis/ops/v1/types.go"), "// +ctrlgen:controller\n// +ctrlgen:controller:owns=ops.example.com/v1.Restore\n", "")
	if ok, report := verify(t, cfg); ok || !strings.Contains(report, "stale: controllers/restore/zz_generated.controller.go") {
		t.Errorf("--verify: up to date %v\n%s", ok, report)
	}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(filepath.Join(dir, "controllers/restore/zz_generated.controller.go")) {
		t.Error("the wiring of a kind without +ctrlgen:controller is still there")
	}
	if !testmod.Exists(filepath.Join(dir, "controllers/restore/reconcile.go")) {
		t.Error("the user's file was removed")
	}
}

// TestOnlyTheControllerGeneratorRemovesStaleWiring: a run of other
// generators leaves a stale wiring to the controller generator.
func TestOnlyTheControllerGeneratorRemovesStaleWiring(t *testing.T) {
	dir, cfg := module(t)
	testmod.Replace(t, filepath.Join(dir, "apis/ops/v1/types.go"), "// +ctrlgen:controller\n// +ctrlgen:controller:owns=ops.example.com/v1.Restore\n", "")
	wiring := filepath.Join(dir, "controllers/restore/zz_generated.controller.go")
	cfg.Generators = []string{"clientset", "lister", "informer"}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if !testmod.Exists(wiring) {
		t.Error("a run without the controller generator removed a controller's wiring")
	}
	cfg.Generators = []string{"controller"}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(wiring) {
		t.Error("the controller generator left the stale wiring")
	}
	if !testmod.Exists(filepath.Join(dir, "controllers/restore/reconcile.go")) {
		t.Error("the user's file was removed")
	}
}

// TestOwnedBuiltinKind: a built-in kind the run does not generate is
// watched through the informers the ctrlgen module ships; one the run
// generates, through the run's own. A kind or version k8s.io/api does not
// have is an error at the marker.
func TestOwnedBuiltinKind(t *testing.T) {
	dir, cfg := module(t)
	wiring := filepath.Join(dir, "controllers/backup/zz_generated.controller.go")
	if w := testmod.Read(t, wiring); !strings.Contains(w, "configMapInformer := kubeFactory.Core().V1().ConfigMaps()") ||
		!strings.Contains(w, `listerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1"`) {
		t.Errorf("the wiring of a built-in owned kind:\n%s", w)
	}
	if testmod.Exists(filepath.Join(dir, "generated/listers/core")) {
		t.Error("core/v1 listers were generated into the project")
	}

	// With k8s.io/api/core/v1 among the packages, the project's own.
	own := cfg
	own.Patterns = []string{"./apis/...", "k8s.io/api/core/v1"}
	if err := ctrlgen.Run(own); err != nil {
		t.Fatal(err)
	}
	if w := testmod.Read(t, wiring); !strings.Contains(w, "configMapInformer := factory.Core().V1().ConfigMaps()") ||
		strings.Contains(w, "kubeFactory") || strings.Contains(w, "kubeClient") {
		t.Errorf("the wiring of an owned kind the project generates:\n%s", w)
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Errorf("go build: %v\n%s", err, out)
	}

	types := filepath.Join(dir, "apis/ops/v1/types.go")
	for _, tc := range []struct{ owns, want string }{
		{"core/v1.NoSuchKind", "apis/ops/v1/types.go:12: error: +ctrlgen:controller:owns=core/v1.NoSuchKind: k8s.io/api/core/v1 declares no +genclient kind NoSuchKind"},
		{"apps/v9.Deployment", "apis/ops/v1/types.go:12: error: +ctrlgen:controller:owns=apps/v9.Deployment: "},
		{"authentication.k8s.io/v1.TokenReview", "apis/ops/v1/types.go:12: error: +ctrlgen:controller:owns=authentication.k8s.io/v1.TokenReview: TokenReview has no informer"},
		{"other.example.com/v1.Thing", `apis/ops/v1/types.go:12: error: +ctrlgen:controller:owns=other.example.com/v1.Thing: Thing is not among the packages ctrlgen reads; add the package that declares group "other.example.com" version v1 to ctrlgen's packages`},
	} {
		t.Run(tc.owns, func(t *testing.T) {
			src := testmod.Read(t, types)
			defer testmod.Write(t, types, []byte(src))
			testmod.Replace(t, types, "owns=core/v1.ConfigMap", "owns="+tc.owns)
			err := ctrlgen.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestControllersDirFlag(t *testing.T) {
	dir := testmod.New(t, "../testdata/controller/in", "example.com/controller")
	os.RemoveAll(filepath.Join(dir, "controllers"))
	cfg, err := ctrlgen.ParseArgs([]string{"--output-dir", "pkg/generated", "--controllers-dir", "internal/ctrl", "./apis/..."}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir, cfg.Stderr = dir, &bytes.Buffer{}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	wiring := testmod.Read(t, filepath.Join(dir, "internal/ctrl/backup/zz_generated.controller.go"))
	if !strings.Contains(wiring, `"example.com/controller/pkg/generated/clientset/versioned"`) {
		t.Errorf("wiring imports:\n%s", wiring)
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Errorf("go build: %v\n%s", err, out)
	}
}
