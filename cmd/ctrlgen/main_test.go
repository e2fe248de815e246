package main_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// userModule is a module with one API package, as a user would have, with
// ctrlgen as a tool dependency.
func userModule(t *testing.T) string {
	dir := testmod.New(t, filepath.Join(testmod.RepoRoot(), "generators/testdata/errors/in"), "example.com/user")
	f, err := os.OpenFile(filepath.Join(dir, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\ntool github.com/ctrlgen/ctrlgen/cmd/ctrlgen\n"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustGo(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := testmod.Go(t, dir, args...)
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func exists(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// TestInvocations runs ctrlgen the three ways users run it: go tool,
// go:generate with go run, and an installed binary.
func TestInvocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctrlgen in a temporary module")
	}
	dir := userModule(t)
	deepcopy := filepath.Join(dir, "apis/shop/v1/zz_generated.deepcopy.go")
	lister := filepath.Join(dir, "generated/listers/shop/v1/order.go")

	t.Run("go tool", func(t *testing.T) {
		mustGo(t, dir, "tool", "ctrlgen", "--output-dir", "generated", "./apis/...")
		exists(t, deepcopy)
		exists(t, lister)
		mustGo(t, dir, "tool", "ctrlgen", "--verify", "--output-dir", "generated", "./apis/...")
	})

	t.Run("go generate", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, "generated")); err != nil {
			t.Fatal(err)
		}
		testmod.Write(t, filepath.Join(dir, "apis/shop/v1/generate.go"), []byte(
			"package v1\n\n//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --output-dir ../../../generated .\n"))
		mustGo(t, dir, "generate", "./...")
		exists(t, lister)
		mustGo(t, dir, "build", "./...")
	})

	t.Run("installed binary", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "ctrlgen")
		mustGo(t, dir, "build", "-o", bin, "github.com/ctrlgen/ctrlgen/cmd/ctrlgen")
		run := func(args ...string) (string, int) {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return string(out), exit.ExitCode()
			}
			if err != nil {
				t.Fatal(err)
			}
			return string(out), 0
		}
		if out, code := run("--verify", "--output-dir", "generated", "./apis/..."); code != 0 {
			t.Errorf("--verify on a fresh tree: exit %d\n%s", code, out)
		}
		if err := os.Remove(lister); err != nil {
			t.Fatal(err)
		}
		if out, code := run("--verify", "--output-dir", "generated", "./apis/..."); code != 1 || !strings.Contains(out, "new: generated/listers/shop/v1/order.go") {
			t.Errorf("--verify with a missing file: exit %d\n%s", code, out)
		}
		if out, code := run("--generators", "deepcopy,lsiter", "--output-dir", "generated", "./apis/..."); code != 1 || !strings.Contains(out, `unknown generator "lsiter"`) {
			t.Errorf("unknown generator: exit %d\n%s", code, out)
		}
		if out, code := run("./apis/...", "--output-dir", "generated"); code != 0 {
			t.Errorf("flags after packages: exit %d\n%s", code, out)
		}
		exists(t, lister)
	})
}
