package modproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReleaseGoModSetsSiblingVersions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "go.mod")
	writeFile(t, file, `module example.com/a

go 1.26.0

require (
	example.com/b v0.0.0-00010101000000-000000000000
	k8s.io/api v0.37.2
)
`)
	got, err := releaseGoMod(file, "v1.2.3", map[string]bool{"example.com/a": true, "example.com/b": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"example.com/b v1.2.3", "k8s.io/api v0.37.2"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, got)
		}
	}
}

func TestReleaseGoModRefusesReplace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "go.mod")
	writeFile(t, file, `module example.com/a

go 1.26.0

require example.com/b v0.1.0

replace example.com/b => ../b
`)
	_, err := releaseGoMod(file, "v1.2.3", map[string]bool{"example.com/b": true})
	if err == nil || !strings.Contains(err.Error(), file+":7: replace example.com/b") || !strings.Contains(err.Error(), "go.work") {
		t.Fatalf("got %v, want an error naming %s:7, the replaced module and go.work", err, file)
	}
}

// The repository's published modules carry no replace directives.
func TestPublishedModulesHaveNoReplace(t *testing.T) {
	root := repoRoot(t)
	for _, d := range Published {
		if _, err := releaseGoMod(filepath.Join(root, d, "go.mod"), "v1.2.3", nil); err != nil {
			t.Error(err)
		}
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
