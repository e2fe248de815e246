// Package testmod makes throwaway Go modules for tests: a copy of a tree,
// with a go.mod that requires what ctrlgen requires and replaces ctrlgen
// and its runtime modules with this checkout, so that it resolves and
// builds from the module cache alone.
package testmod

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// RepoRoot is the directory of ctrlgen's go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// New returns a temporary module called path holding a copy of src (when
// not empty). Each of requires is a "<module> <version>" line to add.
func New(t testing.TB, src, path string, requires ...string) string {
	t.Helper()
	dir := t.TempDir()
	if src != "" {
		Copy(t, src, dir, nil)
	}
	root := RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	mod.WriteString("module " + path + "\n\ngo " + repo.Go.Version + "\n\nrequire (\n\tgithub.com/ctrlgen/ctrlgen v0.0.0\n")
	for _, r := range repo.Require {
		mod.WriteString("\t" + r.Mod.Path + " " + r.Mod.Version + "\n")
	}
	for _, r := range requires {
		mod.WriteString("\t" + r + "\n")
	}
	mod.WriteString(")\n")
	replaces, err := Replaces(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replaces {
		mod.WriteString("\nreplace " + r + "\n")
	}
	Write(t, filepath.Join(dir, "go.mod"), []byte(mod.String()))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	Write(t, filepath.Join(dir, "go.sum"), sum)
	return dir
}

// Replaces returns, as "<module> => <directory>" lines for a go.mod, the
// replacements of the workspace file work (the repository's go.work), for
// every version and with absolute directories: a module outside the
// repository then builds ctrlgen and its runtime modules from this
// checkout.
func Replaces(work string) ([]string, error) {
	data, err := os.ReadFile(work)
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, r := range wf.Replace {
		dir := r.New.Path
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(work), dir)
		}
		lines = append(lines, r.Old.Path+" => "+filepath.Clean(dir))
	}
	return lines, nil
}

// Download fetches, through the module proxy, what the module at dir needs
// and the module cache lacks. What ctrlgen requires is there once its
// tests build, but a module only a test case requires (and what it
// requires) may not be on a fresh machine, and Go then runs offline.
func Download(t testing.TB, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in %s: %v\n%s", dir, err, out)
	}
}

// Copy copies the files under src to dst; keep, when not nil, says which
// (by path relative to src).
func Copy(t testing.TB, src, dst string, keep func(rel string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if keep != nil && !keep(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		Write(t, filepath.Join(dst, rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Write writes a file, making its directory.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Go runs the go command in dir, offline, and returns its combined output.
func Go(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Read returns a file's content, failing t if it cannot be read.
func Read(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Replace edits a file in place, replacing the first old with new; old
// must be there.
func Replace(t testing.TB, path, old, new string) {
	t.Helper()
	s := Read(t, path)
	if !strings.Contains(s, old) {
		t.Fatalf("%s has no %q", path, old)
	}
	Write(t, path, []byte(strings.Replace(s, old, new, 1)))
}
