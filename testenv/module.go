package testenv

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/atomicfile"
)

// The control plane's Go module, embedded so that it is built from the
// module cache alone, outside any ctrlgen checkout. Its go.mod and go.sum
// are stored as .txt (a directory with a go.mod is another module, which
// cannot be embedded), and its Go files carry ignoreLine so that the main
// module neither compiles them nor tidies their requirements into its own.
//
//go:embed controlplane/go.mod.txt controlplane/go.sum.txt controlplane/*.go
var controlplaneFS embed.FS

const ignoreLine = "//go:build ignore\n\n"

// moduleFile is a file of the control plane module as it is written out.
type moduleFile struct {
	name string
	data []byte
}

// controlplaneModule returns the embedded control plane module's files.
func controlplaneModule() ([]moduleFile, error) {
	entries, err := fs.ReadDir(controlplaneFS, "controlplane")
	if err != nil {
		return nil, err
	}
	var files []moduleFile
	for _, e := range entries {
		data, err := controlplaneFS.ReadFile(path.Join("controlplane", e.Name()))
		if err != nil {
			return nil, err
		}
		name := e.Name()
		if strings.HasSuffix(name, ".go") {
			var ok bool
			if data, ok = bytes.CutPrefix(data, []byte(ignoreLine)); !ok {
				return nil, fmt.Errorf("testenv: embedded controlplane/%s does not start with %q", name, ignoreLine)
			}
		}
		files = append(files, moduleFile{strings.TrimSuffix(name, ".txt"), data})
	}
	return files, nil
}

// moduleKey names a version of the module: its Kubernetes version and a
// hash of its files, e.g. v1.37.0-0123456789ab.
func moduleKey(files []moduleFile) (string, error) {
	h := sha256.New()
	var version string
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.data))
		h.Write(f.data)
		if f.name == "go.mod" {
			v, err := kubernetesVersion(f.data)
			if err != nil {
				return "", err
			}
			version = "v" + strings.Join(v[:], ".")
		}
	}
	if version == "" {
		return "", fmt.Errorf("testenv: the embedded control plane module has no go.mod")
	}
	return version + "-" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// writeModule writes files into dir, each only if missing or different,
// each by an atomic rename.
func writeModule(dir string, files []moduleFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFileIfChanged(filepath.Join(dir, f.name), f.data); err != nil {
			return fmt.Errorf("testenv: writing the control plane module: %w", err)
		}
	}
	return nil
}

func writeFileIfChanged(name string, data []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return atomicfile.Write(name, data, 0o644)
}
