package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The module written out is the source in controlplane/, file for file,
// without the ignore line, and its key follows its content.
func TestControlplaneModule(t *testing.T) {
	files, err := controlplaneModule()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeModule(dir, files); err != nil {
		t.Fatal(err)
	}

	src, err := os.ReadDir("controlplane")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range src {
		data, err := os.ReadFile(filepath.Join("controlplane", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(e.Name(), ".txt")
		if strings.HasSuffix(name, ".go") {
			data = bytes.TrimPrefix(data, []byte(ignoreLine))
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from controlplane/%s", name, e.Name())
		}
		if bytes.Contains(got, []byte("//go:build")) {
			t.Errorf("%s still has a build constraint", name)
		}
		want = append(want, name)
	}
	written, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range written {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("module files: got %v, want %v", got, want)
	}

	// A changed file is written again.
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeModule(dir, files); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !bytes.HasPrefix(data, []byte("module github.com/ctrlgen/ctrlgen/controlplane\n")) {
		t.Errorf("go.mod not restored: %.40q", data)
	}

	key, err := moduleKey(files)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+-[0-9a-f]{12}$`).MatchString(key) {
		t.Errorf("key %q: want v<kubernetes version>-<12 hex digits>", key)
	}
	for i := range files {
		changed := slices.Clone(files)
		changed[i].data = append(slices.Clip(files[i].data), '\n')
		if k, err := moduleKey(changed); err != nil || k == key {
			t.Errorf("a changed %s: key %q (%v), want other than %q", files[i].name, k, err, key)
		}
	}
}

func TestBuildPaths(t *testing.T) {
	t.Setenv(BinaryEnvVar, "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	dir, bin, err := buildPaths("v1.2.3-abc")
	if runtime.GOOS == "linux" && (err != nil || dir != "/cache/ctrlgen/controlplane/v1.2.3-abc" || bin != "/cache/ctrlgen/controlplane/v1.2.3-abc/bin/ctrlplane") {
		t.Errorf("with XDG_CACHE_HOME: %q, %q, %v", dir, bin, err)
	}

	t.Setenv(BinaryEnvVar, "/opt/ctrlplane")
	dir, bin, err = buildPaths("v1.2.3-abc")
	if err != nil || dir != "/opt/ctrlplane.src/v1.2.3-abc" || bin != "/opt/ctrlplane" {
		t.Errorf("with %s: %q, %q, %v", BinaryEnvVar, dir, bin, err)
	}

	if runtime.GOOS != "linux" {
		return
	}
	t.Setenv(BinaryEnvVar, "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	_, _, err = buildPaths("v1.2.3-abc")
	if err == nil || !strings.Contains(err.Error(), "set XDG_CACHE_HOME or HOME, or set "+BinaryEnvVar) {
		t.Errorf("without a user cache directory: %v, want an error naming XDG_CACHE_HOME, HOME and %s", err, BinaryEnvVar)
	}
}

// BuildBinary works in a user cache directory of its own (not the one of
// the other tests, nor the repository). With the build cache warm, as after
// TestEnv, that is a link step: 20 to 30s on two cores.
func TestBuildBinaryUserCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the control plane; skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("sets the user cache directory by XDG_CACHE_HOME, which os.UserCacheDir honours on Linux")
	}
	// The go command's own cache defaults to the user cache directory too:
	// keep it where it is.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(BinaryEnvVar, "")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	bin, err := BuildBinary(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("BuildBinary in a new user cache directory: %v", time.Since(start).Round(time.Millisecond))
	if !strings.HasPrefix(bin, filepath.Join(cache, "ctrlgen", "controlplane")+string(filepath.Separator)) {
		t.Errorf("binary %s, want it under %s", bin, cache)
	}
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("k8s.io/kubernetes v")) {
		t.Errorf("%s version: %v\n%s", bin, err, out)
	}
}
