package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// BinaryEnvVar names the environment variable that overrides where the
// control-plane binary is built (default: <repo>/.cache/bin/ctrlplane).
const BinaryEnvVar = "CTRLGEN_CONTROLPLANE_BIN"

// buildMu serializes builds within this process; buildLock (a file lock)
// serializes them across processes, e.g. test packages run in parallel.
var buildMu sync.Mutex

// BuildBinary builds the multi-call control-plane binary (etcd,
// kube-apiserver, kube-controller-manager) from the controlplane module and
// returns its path. The path is $CTRLGEN_CONTROLPLANE_BIN if set, else
// <repo>/.cache/bin/ctrlplane.
//
// It always runs `go build`, holding a file lock next to the binary: Go's
// build cache and its up-to-date check on the output file make that a quick
// no-op (a second or two) when nothing changed, and a rebuild when the
// controlplane module or the toolchain did. The first build compiles the
// whole k8s.io/kubernetes dependency tree and takes several minutes.
//
// logf, if not nil, receives progress messages (e.g. that a build is running).
func BuildBinary(ctx context.Context, logf func(format string, args ...any)) (string, error) {
	return buildBinary(ctx, logf, "")
}

// buildBinary is BuildBinary; if snapshot is not empty, it also links (or
// copies) the binary there while still holding the build lock.
func buildBinary(ctx context.Context, logf func(format string, args ...any), snapshot string) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	srcDir, err := controlplaneDir()
	if err != nil {
		return "", err
	}
	bin := os.Getenv(BinaryEnvVar)
	if bin == "" {
		bin = filepath.Join(filepath.Dir(srcDir), ".cache", "bin", "ctrlplane")
	}
	bin, err = filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	ldflags, err := versionLDFlags(filepath.Join(srcDir, "go.mod"))
	if err != nil {
		return "", err
	}

	buildMu.Lock()
	defer buildMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(ctx, bin+".lock")
	if err != nil {
		return "", fmt.Errorf("testenv: locking %s.lock: %w", bin, err)
	}
	defer unlock()

	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "-ldflags", ldflags, "./cmd/ctrlplane")
	cmd.Dir = srcDir
	// Fixed settings, so every caller (tests, make, the testenv command) hits
	// the same build cache entries: a static binary like upstream's release
	// builds; no VCS stamping (it would relink whenever the work tree
	// changes); the controlplane module on its own, outside any go.work.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	slow := time.AfterFunc(5*time.Second, func() {
		logf("testenv: building %s (the first build takes several minutes)", bin)
	})
	err = cmd.Run()
	slow.Stop()
	if err != nil {
		return "", fmt.Errorf("testenv: building the control plane (go build in %s): %w\n%s", srcDir, err, out.Bytes())
	}
	if d := time.Since(start); d > 5*time.Second {
		logf("testenv: built %s in %v", bin, d.Round(time.Second))
	}
	if snapshot != "" {
		if err := snapshotBinary(bin, snapshot); err != nil {
			return "", fmt.Errorf("testenv: copying the control-plane binary: %w", err)
		}
	}
	return bin, nil
}

// controlplaneDir finds the controlplane module: next to this source file's
// package (repo/testenv → repo/controlplane), else relative to the main
// module of the current directory.
func controlplaneDir() (string, error) {
	var tried []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		d := filepath.Join(filepath.Dir(filepath.Dir(file)), "controlplane")
		if isFile(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		tried = append(tried, d)
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if gomod := strings.TrimSpace(string(out)); err == nil && gomod != "" && gomod != os.DevNull {
		d := filepath.Join(filepath.Dir(gomod), "controlplane")
		if isFile(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		tried = append(tried, d)
	}
	return "", fmt.Errorf("testenv: cannot find the controlplane module (tried %s); set Options.Binary to a prebuilt ctrlplane binary", strings.Join(tried, ", "))
}

var kubernetesVersionRE = regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes\s+v(\d+)\.(\d+)\.(\d+)\S*`)

// versionLDFlags stamps the binary like upstream release builds do, so that
// /version reports the real Kubernetes version instead of v0.0.0-master.
// -s -w drop the symbol table and DWARF: a smaller binary and a faster link.
func versionLDFlags(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	m := kubernetesVersionRE.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("testenv: no k8s.io/kubernetes requirement in %s", gomod)
	}
	major, minor, patch := string(m[1]), string(m[2]), string(m[3])
	const pkg = "k8s.io/component-base/version"
	return strings.Join([]string{
		"-s", "-w",
		"-X", pkg + ".gitVersion=v" + major + "." + minor + "." + patch,
		"-X", pkg + ".gitMajor=" + major,
		"-X", pkg + ".gitMinor=" + minor,
		"-X", pkg + ".gitTreeState=clean",
	}, " "), nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// snapshotBinary gives this environment its own immutable copy of the binary
// (a hard link, or a copy across file systems), so that a concurrent rebuild,
// which replaces the file, can't hand us a half-written executable when we
// restart a component later.
func snapshotBinary(bin, dst string) error {
	if err := os.Link(bin, dst); err == nil {
		return nil
	}
	src, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

var errUnsupported = errors.New("testenv: not supported on " + runtime.GOOS)
