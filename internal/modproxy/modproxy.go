// Package modproxy packs the repository's modules as a Go module proxy
// serves them, into a directory that GOPROXY=file://DIR reads: what a
// release publishes, without publishing it.
//
// The modules require each other at a placeholder version that only the
// repository's go.work resolves; packing sets those requirements to the
// version being packed, as a release does before tagging, and refuses a
// go.mod with replace directives, which the go command refuses in a
// module a user requires or runs at a version.
package modproxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// Published lists the repository's modules a user requires or runs, by
// directory relative to the repository root.
var Published = []string{".", "runtime", "runtime/manager"}

// Pack writes the modules in Published, found under root, at version into
// the proxy directory dir, and returns their paths. The files packed are
// those git tracks or would track (untracked files that .gitignore does
// not exclude), as they are in the work tree.
func Pack(root, version, dir string) ([]string, error) {
	files, err := workTreeFiles(root)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{} // directory → module path
	for _, d := range Published {
		data, err := os.ReadFile(filepath.Join(root, d, "go.mod"))
		if err != nil {
			return nil, err
		}
		paths[d] = modfile.ModulePath(data)
	}
	siblings := map[string]bool{}
	for _, p := range paths {
		siblings[p] = true
	}
	var packed []string
	for _, d := range Published {
		m := module.Version{Path: paths[d], Version: version}
		gomod, err := releaseGoMod(filepath.Join(root, d, "go.mod"), version, siblings)
		if err != nil {
			return nil, err
		}
		if err := writeModule(dir, m, gomod, moduleFiles(root, d, files, gomod)); err != nil {
			return nil, fmt.Errorf("packing %s: %w", m.Path, err)
		}
		packed = append(packed, m.Path)
	}
	return packed, nil
}

// A Local is the work tree packed into a module proxy directory, and the
// environment under which the go command uses it.
type Local struct {
	Dir, Version string
	// Env is os.Environ with GOPROXY reading Dir first (then the
	// configured proxy, for everything else), no checksum database for
	// ctrlgen's modules, and no workspace.
	Env []string
}

// PackLocal packs the modules under root into dir at a pseudo-version
// named after their files' content: the module cache never hands back
// other content under it, and two packings of the same work tree (two
// tests, or a rerun) share the module cache's copy and the build cache's
// compiled packages.
func PackLocal(root, dir string) (*Local, error) {
	sum, err := contentHash(root)
	if err != nil {
		return nil, err
	}
	version := "v0.0.0-20000101000000-" + sum[:12]
	if _, err := Pack(root, version, dir); err != nil {
		return nil, err
	}
	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOPROXY: %w", err)
	}
	return &Local{Dir: dir, Version: version, Env: append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(dir)+","+strings.TrimSpace(string(upstream)),
		"GONOSUMDB=github.com/ctrlgen",
		"GOWORK=off",
	)}, nil
}

// contentHash hashes the names and contents of the work tree's files
// (more than the published modules hold: any change gives a new version).
func contentHash(root string) (string, error) {
	files, err := workTreeFiles(root)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// releaseGoMod returns the go.mod at file with the requirements on
// siblings set to version.
func releaseGoMod(file, version string, siblings map[string]bool) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	mf, err := modfile.Parse(file, data, nil)
	if err != nil {
		return nil, err
	}
	if len(mf.Replace) > 0 {
		r := mf.Replace[0]
		return nil, fmt.Errorf("%s:%d: replace %s: the go command refuses `go run`/`go install` of a module with replace directives; put development replacements in go.work", file, r.Syntax.Start.Line, r.Old.Path)
	}
	for _, r := range mf.Require {
		if siblings[r.Mod.Path] {
			if err := mf.AddRequire(r.Mod.Path, version); err != nil {
				return nil, err
			}
		}
	}
	return mf.Format()
}

// workTreeFiles lists the files under root that git tracks or would
// track, slash-separated and relative to root.
func workTreeFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// moduleFiles returns the files of the module in directory d (relative to
// root) with gomod in place of its go.mod. zip.Create leaves out the files
// of modules in subdirectories.
func moduleFiles(root, d string, all []string, gomod []byte) []zip.File {
	prefix := ""
	if d != "." {
		prefix = d + "/"
	}
	var files []zip.File
	for _, f := range all {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		if rel == "go.mod" {
			files = append(files, dataFile{name: rel, data: gomod})
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f))
		if _, err := os.Lstat(p); err != nil {
			continue // deleted in the work tree, not yet in git
		}
		files = append(files, diskFile{name: rel, path: p})
	}
	return files
}

// writeModule writes m's .info, .mod, .zip and list entry into the proxy
// directory dir.
func writeModule(dir string, m module.Version, gomod []byte, files []zip.File) error {
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var z bytes.Buffer
	if err := zip.Create(&z, m, files); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		m.Version + ".zip":  z.Bytes(),
		m.Version + ".mod":  gomod,
		m.Version + ".info": info,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	// A proxy answers @latest from .../@latest when its list holds no
	// release version, as it does not for a pseudo-version.
	if err := os.WriteFile(filepath.Join(filepath.Dir(vdir), "@latest"), info, 0o644); err != nil {
		return err
	}
	list, err := os.OpenFile(filepath.Join(vdir, "list"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(list, m.Version); err != nil {
		list.Close()
		return err
	}
	return list.Close()
}

type diskFile struct{ name, path string }

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.path) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

type dataFile struct {
	name string
	data []byte
}

func (f dataFile) Path() string                 { return f.name }
func (f dataFile) Lstat() (fs.FileInfo, error)  { return dataInfo{f}, nil }
func (f dataFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type dataInfo struct{ f dataFile }

func (i dataInfo) Name() string       { return path.Base(i.f.name) }
func (i dataInfo) Size() int64        { return int64(len(i.f.data)) }
func (i dataInfo) Mode() fs.FileMode  { return 0o644 }
func (i dataInfo) ModTime() time.Time { return time.Time{} }
func (i dataInfo) IsDir() bool        { return false }
func (i dataInfo) Sys() any           { return nil }
