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
// control-plane binary is built (default: in the user cache directory; see
// BuildBinary).
const BinaryEnvVar = "CTRLGEN_CONTROLPLANE_BIN"

// buildMu serializes builds within this process; lockFile (a file lock)
// serializes them across processes, e.g. test packages run in parallel.
var buildMu sync.Mutex

// BuildBinary builds the multi-call control-plane binary (etcd,
// kube-apiserver, kube-controller-manager) and returns its path.
//
// The control plane's Go module is embedded in this package. BuildBinary
// writes it to <user cache dir>/ctrlgen/controlplane/<key>, where the key
// is its Kubernetes version and a hash of its files (e.g.
// ~/.cache/ctrlgen/controlplane/v1.37.0-0123456789ab on Linux), and builds
// it there with the go command, from the module proxy like any module,
// into bin/ctrlplane. If $CTRLGEN_CONTROLPLANE_BIN is set, the binary is
// built there instead, and the module is written to <that path>.src/<key>.
//
// It always runs `go build`, holding a file lock next to the binary: Go's
// build cache and its up-to-date check on the output file make that a quick
// no-op (a few seconds) when nothing changed. The first build compiles the
// whole k8s.io/kubernetes dependency tree: about 30 CPU-minutes. A new
// directory (another key, another user cache) whose packages are in the
// build cache takes a link step, some seconds.
//
// logf, if not nil, receives progress messages (e.g. that a build is running).
func BuildBinary(ctx context.Context, logf func(format string, args ...any)) (string, error) {
	return buildBinary(ctx, logf, "")
}

// ModuleDir writes the control plane's Go module where BuildBinary builds
// it, unless it is there already, and returns its directory: to run, e.g.,
// go vet there. With the environment BuildBinary builds with
// (CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off) the go command reuses
// that build's compiled packages.
func ModuleDir(ctx context.Context) (string, error) {
	m, err := lockModule(ctx)
	if err != nil {
		return "", err
	}
	m.unlock()
	return m.dir, nil
}

// buildBinary is BuildBinary; if snapshot is not empty, it also links (or
// copies) the binary there while still holding the build lock.
func buildBinary(ctx context.Context, logf func(format string, args ...any), snapshot string) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	m, err := lockModule(ctx)
	if err != nil {
		return "", err
	}
	defer m.unlock()

	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", m.bin, "-ldflags", m.ldflags, ".")
	cmd.Dir = m.dir
	// Fixed settings, so every caller (tests, make, the testenv command) hits
	// the same build cache entries: a static binary like upstream's release
	// builds; no VCS stamping; the module on its own, outside any go.work.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	slow := time.AfterFunc(5*time.Second, func() {
		logf("testenv: building %s (the first build compiles Kubernetes: about 30 CPU-minutes)", m.bin)
	})
	err = cmd.Run()
	slow.Stop()
	if err != nil {
		return "", fmt.Errorf("testenv: building the control plane (go build in %s): %w\n%s", m.dir, err, out.Bytes())
	}
	if d := time.Since(start); d > 5*time.Second {
		logf("testenv: built %s in %v", m.bin, d.Round(time.Second))
	}
	if snapshot != "" {
		if err := snapshotBinary(m.bin, snapshot); err != nil {
			return "", fmt.Errorf("testenv: copying the control-plane binary: %w", err)
		}
	}
	return m.bin, nil
}

// module is the control plane module written out, under the build lock.
type module struct {
	dir     string // the module
	bin     string // the binary built from it
	ldflags string
	unlock  func()
}

// lockModule takes the build lock of the module's binary and writes the
// module; the caller must call unlock.
func lockModule(ctx context.Context) (*module, error) {
	files, err := controlplaneModule()
	if err != nil {
		return nil, err
	}
	key, err := moduleKey(files)
	if err != nil {
		return nil, err
	}
	m := &module{}
	if m.dir, m.bin, err = buildPaths(key); err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.name == "go.mod" {
			if m.ldflags, err = versionLDFlags(f.data); err != nil {
				return nil, err
			}
		}
	}

	buildMu.Lock()
	if err := os.MkdirAll(filepath.Dir(m.bin), 0o755); err != nil {
		buildMu.Unlock()
		return nil, err
	}
	unlock, err := lockFile(ctx, m.bin+".lock")
	if err != nil {
		buildMu.Unlock()
		return nil, fmt.Errorf("testenv: locking %s.lock: %w", m.bin, err)
	}
	m.unlock = func() { unlock(); buildMu.Unlock() }
	if err := writeModule(m.dir, files); err != nil {
		m.unlock()
		return nil, err
	}
	return m, nil
}

// buildPaths returns the directory the module with this key is written to
// and the binary built from it; see BuildBinary.
func buildPaths(key string) (dir, bin string, err error) {
	if bin := os.Getenv(BinaryEnvVar); bin != "" {
		bin, err := filepath.Abs(bin)
		if err != nil {
			return "", "", err
		}
		return filepath.Join(bin+".src", key), bin, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", fmt.Errorf("testenv: no user cache directory to build the control plane in (%v): set XDG_CACHE_HOME or HOME, or set %s to the path of the binary to build, or Options.Binary to a built one", err, BinaryEnvVar)
	}
	dir = filepath.Join(cache, "ctrlgen", "controlplane", key)
	return dir, filepath.Join(dir, "bin", "ctrlplane"), nil
}

var kubernetesVersionRE = regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes\s+v(\d+)\.(\d+)\.(\d+)\S*`)

// kubernetesVersion returns the major, minor and patch version of the
// k8s.io/kubernetes requirement in the go.mod file gomod.
func kubernetesVersion(gomod []byte) ([3]string, error) {
	m := kubernetesVersionRE.FindSubmatch(gomod)
	if m == nil {
		return [3]string{}, fmt.Errorf("testenv: no k8s.io/kubernetes requirement in the control plane's go.mod")
	}
	return [3]string{string(m[1]), string(m[2]), string(m[3])}, nil
}

// versionLDFlags stamps the binary like upstream release builds do, so that
// /version reports the real Kubernetes version instead of v0.0.0-master.
// -s -w drop the symbol table and DWARF: a smaller binary and a faster link.
func versionLDFlags(gomod []byte) (string, error) {
	v, err := kubernetesVersion(gomod)
	if err != nil {
		return "", err
	}
	const pkg = "k8s.io/component-base/version"
	return strings.Join([]string{
		"-s", "-w",
		"-X", pkg + ".gitVersion=v" + strings.Join(v[:], "."),
		"-X", pkg + ".gitMajor=" + v[0],
		"-X", pkg + ".gitMinor=" + v[1],
		"-X", pkg + ".gitTreeState=clean",
	}, " "), nil
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
