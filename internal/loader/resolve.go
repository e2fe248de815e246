package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// A resolver finds packages the way `go list -find` does in module mode,
// without starting it: the main module's go.mod names the version of
// every module a package of the build comes from (Go 1.17's pruned module
// graphs), and the module cache holds it. `go list` spends a tenth of a
// second loading and checking the module graph; this spends a `go env`.
//
// It answers only when it is sure to give go list's answer, and reports
// false otherwise (a workspace, vendoring, build flags, a module not in
// the cache, a pattern it does not know, a package go list would report
// an error for, …), so that go list is asked instead.
type resolver struct {
	ctx      build.Context
	goroot   string
	main     modDir
	requires map[string]string // module path → version
	replaces []*modfile.Replace
	modcache string
}

// modDir is a module and its directory.
type modDir struct {
	path, dir string
	main      bool
}

// goEnv is what `go env` says about the go command's configuration.
type goEnv struct {
	GOROOT, GOMODCACHE, GOFLAGS, GOWORK, GOOS, GOARCH, CGO_ENABLED, GOVERSION, GOMOD string
}

// newResolver returns nil when packages in dir must be found by go list.
func newResolver(dir string) (*resolver, error) {
	cmd := exec.Command("go", "env", "-json", "GOROOT", "GOMODCACHE", "GOFLAGS", "GOWORK", "GOOS", "GOARCH", "CGO_ENABLED", "GOVERSION", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, nil // go list will say what is wrong
	}
	var env goEnv
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	if env.GOWORK != "" && env.GOWORK != "off" || env.GOMOD == "" || env.GOMOD == os.DevNull || !plainFlags(env.GOFLAGS) {
		return nil, nil
	}
	data, err := os.ReadFile(env.GOMOD)
	if err != nil {
		return nil, nil
	}
	mf, err := modfile.Parse(env.GOMOD, data, nil)
	if err != nil || mf.Module == nil || mf.Go == nil || semver.Compare("v"+mf.Go.Version, "v1.17") < 0 || len(mf.Ignore) > 0 {
		return nil, nil
	}
	mainDir := filepath.Dir(env.GOMOD)
	if !strings.Contains(env.GOFLAGS, "-mod=") {
		if fi, err := os.Stat(filepath.Join(mainDir, "vendor")); err == nil && fi.IsDir() {
			return nil, nil // vendor mode
		}
	}
	r := &resolver{
		ctx:      build.Default,
		goroot:   env.GOROOT,
		main:     modDir{path: mf.Module.Mod.Path, dir: mainDir, main: true},
		requires: map[string]string{},
		replaces: mf.Replace,
		modcache: env.GOMODCACHE,
	}
	r.ctx.GOROOT, r.ctx.GOOS, r.ctx.GOARCH = env.GOROOT, env.GOOS, env.GOARCH
	r.ctx.CgoEnabled = env.CGO_ENABLED == "1"
	r.ctx.ReleaseTags = releaseTags(env.GOVERSION)
	if r.ctx.ReleaseTags == nil {
		return nil, nil
	}
	for _, req := range mf.Require {
		r.requires[req.Mod.Path] = req.Mod.Version
	}
	if len(mf.Exclude) > 0 || !r.tidy() {
		return nil, nil
	}
	return r, nil
}

// tidy reports whether go.mod names, for every module it requires, at
// least the version the module graph asks for, as go mod tidy leaves it:
// only then are its versions the ones the go command selects. An untidy
// go.mod (k8s.io/api v0.35.3 required, a dependency asking for v0.37.2)
// fails go list under -mod=readonly and is raised by it under -mod=mod,
// whose version this would not see. The graph is the go command's pruned
// one (Go 1.17): the requirements of each required module, and beyond
// them only through go.mod files older than go 1.17, which are not
// pruned. A go.mod not in the module cache is go list's to fetch.
func (r *resolver) tidy() bool {
	seen := map[module.Version]bool{}
	var visit func(m module.Version) bool
	visit = func(m module.Version) bool {
		if seen[m] {
			return true
		}
		seen[m] = true
		data, ok := r.goMod(m.Path, m.Version)
		if !ok {
			return false
		}
		mf, err := modfile.ParseLax("go.mod", data, nil)
		if err != nil {
			return false
		}
		unpruned := mf.Go == nil || semver.Compare("v"+mf.Go.Version, "v1.17") < 0
		for _, req := range mf.Require {
			if have, ok := r.requires[req.Mod.Path]; ok && semver.Compare(have, req.Mod.Version) < 0 {
				return false
			}
			if unpruned && !visit(req.Mod) {
				return false
			}
		}
		return true
	}
	for modPath, version := range r.requires {
		if !visit(module.Version{Path: modPath, Version: version}) {
			return false
		}
	}
	return true
}

// goMod is the go.mod of a required module: its replacement directory's,
// or the one the module cache's download directory keeps for the
// version. A replacement directory without one fails every go command,
// so it is go list's to report.
func (r *resolver) goMod(modPath, version string) ([]byte, bool) {
	target := module.Version{Path: modPath, Version: version}
	if rep := r.replacement(modPath, version); rep != nil {
		if rep.New.Version == "" {
			data, err := os.ReadFile(filepath.Join(r.replacedDir(rep), "go.mod"))
			return data, err == nil
		}
		target = rep.New
	}
	escPath, err1 := module.EscapePath(target.Path)
	escVersion, err2 := module.EscapeVersion(target.Version)
	if err1 != nil || err2 != nil || r.modcache == "" {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(r.modcache, "cache", "download", escPath, "@v", escVersion+".mod"))
	return data, err == nil
}

// replacement is the go.mod replace directive that applies to a module
// version, or nil.
func (r *resolver) replacement(modPath, version string) *modfile.Replace {
	var rep *modfile.Replace
	for _, rp := range r.replaces {
		if rp.Old.Path == modPath && (rp.Old.Version == version || rp.Old.Version == "" && rep == nil) {
			rep = rp
		}
	}
	return rep
}

// replacedDir is the directory of a replacement by a directory.
func (r *resolver) replacedDir(rep *modfile.Replace) string {
	dir := rep.New.Path
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.main.dir, dir)
	}
	return filepath.Clean(dir)
}

// plainFlags reports whether GOFLAGS leaves which files and modules a
// package has as without it.
func plainFlags(goflags string) bool {
	for _, f := range strings.Fields(goflags) {
		f = "-" + strings.TrimLeft(f, "-")
		name, _, _ := strings.Cut(f, "=")
		switch {
		case f == "-mod=mod", f == "-mod=readonly":
		case name == "-buildvcs", name == "-trimpath", name == "-modcacherw", name == "-p":
		default:
			return false
		}
	}
	return true
}

// releaseTags are the go1.N tags of a Go version such as "go1.26.8".
func releaseTags(version string) []string {
	minor, ok := strings.CutPrefix(version, "go1.")
	if !ok {
		return nil
	}
	minor, _, _ = strings.Cut(minor, ".")
	n, err := strconv.Atoi(strings.TrimRightFunc(minor, func(r rune) bool { return r < '0' || r > '9' }))
	if err != nil {
		return nil
	}
	tags := make([]string, n)
	for i := range n {
		tags[i] = "go1." + strconv.Itoa(i+1)
	}
	return tags
}

// pattern resolves a command-line pattern: a package (import path or
// directory) or a tree of them ("./apis/...", "k8s.io/api/...").
func (r *resolver) pattern(pat string) ([]*listedPackage, bool) {
	tree := false
	if rest, ok := strings.CutSuffix(pat, "/..."); ok {
		pat, tree = rest, true
	} else if pat == "..." {
		return nil, false
	}
	if strings.Contains(pat, "...") || slices.Contains([]string{"all", "std", "cmd", "tool", "work"}, pat) {
		return nil, false
	}
	var m modDir
	var importPath, dir string
	if build.IsLocalImport(pat) || filepath.IsAbs(pat) {
		dir = pat
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(r.main.dir, "."+string(filepath.Separator), dir)
		}
		// Only directories of the main module: go list names others by
		// the module cache's layout, which this does not undo.
		rel, err := filepath.Rel(r.main.dir, filepath.Clean(dir))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, false
		}
		m, importPath, dir = r.main, path.Join(r.main.path, filepath.ToSlash(rel)), filepath.Clean(dir)
		if !r.within(m, dir) {
			return nil, false
		}
	} else {
		var ok bool
		if m, dir, ok = r.provider(pat, tree); !ok {
			return nil, false
		}
		importPath = pat
	}
	if !tree {
		p, ok := r.importDir(m, importPath, dir)
		if !ok || p == nil {
			return nil, false
		}
		return []*listedPackage{p}, true
	}
	return r.walk(m, importPath, dir)
}

// walk lists the packages in the tree at dir, as go list's matching of
// "dir/...": not in directories whose name starts with "." or "_", nor
// in testdata or nested modules; false for a tree with a vendor
// directory or symbolic links.
func (r *resolver) walk(m modDir, importPath, root string) ([]*listedPackage, bool) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			if d.Type()&fs.ModeSymlink != 0 {
				return errors.New("symbolic link") // go list warns about some
			}
			return nil
		}
		if p != root {
			elem := d.Name()
			if strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") || elem == "testdata" {
				return filepath.SkipDir
			}
			if elem == "vendor" {
				return errors.New("vendor directory") // go list's rules for it vary
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return nil, false
	}
	pkgs := make([]*listedPackage, len(dirs))
	oks := make([]bool, len(dirs))
	var wg sync.WaitGroup
	for i, d := range dirs {
		wg.Go(func() {
			rel, _ := filepath.Rel(root, d)
			pkgs[i], oks[i] = r.importDir(m, path.Join(importPath, filepath.ToSlash(rel)), d)
		})
	}
	wg.Wait()
	var out []*listedPackage
	for i, p := range pkgs {
		if !oks[i] {
			return nil, false
		}
		if p != nil {
			out = append(out, p)
		}
	}
	return out, len(out) > 0
}

// importPath resolves one import path, for the packages the inputs import.
func (r *resolver) importPath(p string) (*listedPackage, bool) {
	m, dir, ok := r.provider(p, false)
	if !ok {
		return nil, false
	}
	lp, ok := r.importDir(m, p, dir)
	return lp, ok && lp != nil
}

// provider is the module that provides the package p (with tree, every
// package below p) and p's directory in it: the one module of the build
// whose path is a prefix of p and that has a directory for it, or the
// standard library.
func (r *resolver) provider(p string, tree bool) (modDir, string, bool) {
	if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") && !within(p, r.main.path) {
		if r.goroot == "" || tree {
			return modDir{}, "", false
		}
		return modDir{}, filepath.Join(r.goroot, "src", filepath.FromSlash(p)), true
	}
	var found modDir
	var foundDir string
	candidates := 0
	consider := func(modPath string, dir func() (string, bool)) bool {
		if tree && strings.HasPrefix(modPath, p+"/") {
			return false // a module inside the tree: its packages match too
		}
		if !within(p, modPath) {
			return true
		}
		root, ok := dir()
		if !ok {
			return false
		}
		d := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, modPath), "/")))
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			candidates++
			found, foundDir = modDir{path: modPath, dir: root, main: modPath == r.main.path && root == r.main.dir}, d
		}
		return true
	}
	if !consider(r.main.path, func() (string, bool) { return r.main.dir, true }) {
		return modDir{}, "", false
	}
	for modPath, version := range r.requires {
		if !consider(modPath, func() (string, bool) { return r.moduleDir(modPath, version) }) {
			return modDir{}, "", false
		}
	}
	if candidates != 1 || !r.within(found, foundDir) {
		return modDir{}, "", false
	}
	return found, foundDir, true
}

// within reports whether import path p is mod or below it.
func within(p, mod string) bool {
	return p == mod || strings.HasPrefix(p, mod+"/")
}

// within reports whether dir belongs to m, not to a module nested in it.
func (r *resolver) within(m modDir, dir string) bool {
	for d := dir; d != m.dir; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return false
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
	return true
}

// moduleDir is the directory of a required module: its replacement's, or
// its place in the module cache when it has been downloaded.
func (r *resolver) moduleDir(modPath, version string) (string, bool) {
	target := module.Version{Path: modPath, Version: version}
	if rep := r.replacement(modPath, version); rep != nil {
		if rep.New.Version == "" {
			return r.replacedDir(rep), true
		}
		target = rep.New
	}
	escPath, err1 := module.EscapePath(target.Path)
	escVersion, err2 := module.EscapeVersion(target.Version)
	if err1 != nil || err2 != nil || r.modcache == "" {
		return "", false
	}
	dir := filepath.Join(r.modcache, escPath+"@"+escVersion)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false // not downloaded: go list fetches it
	}
	return dir, true
}

// importDir reads the package in dir: nil, true when the directory holds
// no Go file (go list matches no package there); false when go list
// would report an error or something this does not mirror (cgo without
// cgo, files a build constraint leaves out of every build here, several
// package clauses, ...). The files are read once,
// here, and kept for the parser.
func (r *resolver) importDir(m modDir, importPath, dir string) (*listedPackage, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	lp := &listedPackage{Path: importPath, src: map[string][]byte{}}
	tests, excluded := false, false
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue
		}
		if !e.Type().IsRegular() {
			return nil, false
		}
		if strings.HasSuffix(name, "_test.go") {
			tests = true
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, false
		}
		ctx := r.ctx
		ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
		if ok, err := ctx.MatchFile(dir, name); err != nil {
			return nil, false
		} else if !ok {
			excluded = true
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
		if err != nil || f.Name.Name == "documentation" || lp.Name != "" && f.Name.Name != lp.Name ||
			!r.ctx.CgoEnabled && bytes.Contains(src, []byte(`"C"`)) {
			return nil, false
		}
		lp.Name = f.Name.Name
		lp.GoFiles = append(lp.GoFiles, path)
		lp.src[path] = src
	}
	switch {
	case len(lp.GoFiles) > 0:
	case excluded:
		return nil, false
	case tests:
		// A package of tests alone: named by them, as go/build names it.
		bp, err := r.ctx.ImportDir(dir, 0)
		if err != nil || len(bp.GoFiles)+len(bp.CgoFiles) > 0 {
			return nil, false
		}
		lp.Name = bp.Name
	default:
		return nil, true
	}
	if m.path != "" {
		lp.Module = &listedModule{Path: m.path, Main: m.main}
	}
	return lp, true
}
