package modproxy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A user reaches ctrlgen only through a module proxy. This test packs the
// work tree as one (at a pseudo-version named after its content, so the
// module cache never hands back other files under it) and, in empty
// directories with no replace and no go.work, uses ctrlgen as README.md
// says: go run at a version, a tool line, the runtime modules required
// at the version of the ctrlgen module.
func TestInstallFromProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("packs the repository and builds ctrlgen from the module proxy")
	}
	p := newProxy(t)

	t.Run("go run at a version", func(t *testing.T) {
		out := p.goCmd(t, t.TempDir(), "run", "github.com/ctrlgen/ctrlgen/cmd/ctrlgen@"+p.Version, "--help")
		if !strings.Contains(out, "-output-dir") {
			t.Fatalf("ctrlgen --help did not list its flags:\n%s", out)
		}
	})

	t.Run("tool line", func(t *testing.T) {
		dir := t.TempDir()
		p.goCmd(t, dir, "mod", "init", "example.com/tooluser")
		p.goCmd(t, dir, "get", "-tool", "github.com/ctrlgen/ctrlgen/cmd/ctrlgen@"+p.Version)
		// go mod tidy keeps a tool's module: a go:generate line that
		// runs `go tool ctrlgen` survives it.
		p.goCmd(t, dir, "mod", "tidy")
		gomod := readFile(t, filepath.Join(dir, "go.mod"))
		for _, want := range []string{"tool github.com/ctrlgen/ctrlgen/cmd/ctrlgen", "github.com/ctrlgen/ctrlgen " + p.Version} {
			if !strings.Contains(gomod, want) {
				t.Errorf("go.mod lacks %q:\n%s", want, gomod)
			}
		}
		if out := p.goCmd(t, dir, "tool", "ctrlgen", "--help"); !strings.Contains(out, "-output-dir") {
			t.Fatalf("go tool ctrlgen --help did not list its flags:\n%s", out)
		}
	})

	t.Run("runtime modules required", func(t *testing.T) {
		dir := t.TempDir()
		p.goCmd(t, dir, "mod", "init", "example.com/operator")
		writeFile(t, filepath.Join(dir, "main.go"), `package main

import (
	"fmt"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
	"github.com/ctrlgen/ctrlgen/testenv"
)

func main() {
	fmt.Println(cache.ObjectName{}, manager.DefaultOptions().LeaderElectionID, testenv.Options{})
}
`)
		// The runtime modules come at the ctrlgen module's own version.
		p.goCmd(t, dir, "get", "github.com/ctrlgen/ctrlgen@"+p.Version)
		p.goCmd(t, dir, "mod", "tidy")
		gomod := readFile(t, filepath.Join(dir, "go.mod"))
		for _, m := range []string{"github.com/ctrlgen/ctrlgen", "github.com/ctrlgen/ctrlgen/runtime", "github.com/ctrlgen/ctrlgen/runtime/manager"} {
			if !strings.Contains(gomod, m+" "+p.Version) {
				t.Errorf("go.mod does not require %s %s:\n%s", m, p.Version, gomod)
			}
		}
		// Building them is TestQuickStart's (internal/scaffold): the same
		// minutes of compiling the runtime at a new version, once.
		p.goCmd(t, dir, "list", "-deps", "./...")
	})
}

// proxy is the work tree packed as a module proxy.
type proxy struct{ *Local }

func newProxy(t *testing.T) *proxy {
	t.Helper()
	start := time.Now()
	l, err := PackLocal(repoRoot(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("packed %v at %s in %v", Published, l.Version, time.Since(start).Round(time.Millisecond))
	return &proxy{l}
}

// goCmd runs the go command in dir through the proxy and returns its
// output.
func (p *proxy) goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, p.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out.Bytes())
	}
	return out.String()
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
