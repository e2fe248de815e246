// Package loader finds and parses Go packages without type-checking them.
//
// One `go list -find` (golang.org/x/tools/go/packages with NeedName,
// NeedFiles and NeedModule) resolves the input patterns; go/parser then
// reads only the files that can hold markers or type declarations.
// Packages the inputs import are listed and parsed only when a deep-copy
// generator needs one of their types (Program.Lookup), so read-only inputs
// such as k8s.io/api never cost more than a parse of their own types.
package loader

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// Package is one parsed package.
type Package struct {
	Path string // import path
	Name string // package clause
	Dir  string
	// Module is the module path, "" for the standard library.
	Module string
	// ReadOnly packages are outside the main module(s): nothing is ever
	// written next to them.
	ReadOnly bool
	// Protobuf says the package has go-to-protobuf's generated.pb.go, so
	// its types can be sent and read as protobuf.
	Protobuf bool
	// Files are the parsed files, sorted by name. In a writable input
	// package, that is every file but those ctrlgen generates there.
	// Elsewhere generated files that declare no types are not read, but
	// for those with DeepCopy methods, read once the package is looked up
	// for its types.
	Files []*File

	deferred []string // generated files with DeepCopy methods, not yet read
}

// File is one parsed Go file.
type File struct {
	Path   string // absolute
	Syntax *ast.File
}

// IsDoc reports whether the file is the package's doc.go, which
// code-generator reads package markers from.
func (f *File) IsDoc() bool { return filepath.Base(f.Path) == "doc.go" }

// Program is the loaded input packages and, on demand, what they import.
type Program struct {
	Fset  *token.FileSet
	Roots []*Package

	outputs func(pkgDir, file string, src []byte) bool

	dir    string
	mu     sync.Mutex
	listed map[string]*packages.Package
	parsed map[string]*Package
}

// Config says what to load.
type Config struct {
	// Dir is where patterns are resolved; "" is the current directory.
	Dir      string
	Patterns []string
	// Output reports whether a file in a writable input package is one
	// ctrlgen writes (and so must not be read as input). src is the file.
	Output func(pkgDir, name string, src []byte) bool
}

const listMode = packages.NeedName | packages.NeedFiles | packages.NeedModule

// Load lists and parses the packages matching cfg.Patterns.
func Load(cfg Config) (*Program, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	p := &Program{
		Fset:    token.NewFileSet(),
		outputs: cfg.Output,
		dir:     dir,
		listed:  map[string]*packages.Package{},
		parsed:  map[string]*Package{},
	}
	if p.outputs == nil {
		p.outputs = func(string, string, []byte) bool { return false }
	}
	listed, err := p.list(cfg.Patterns)
	if err != nil {
		return nil, err
	}
	if len(listed) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(cfg.Patterns, " "))
	}
	var errs []error
	for _, lp := range listed {
		for _, e := range lp.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", lp.PkgPath, e.Msg))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if p.Roots, err = p.parse(listed, true); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Program) list(paths []string) ([]*packages.Package, error) {
	listed, err := packages.Load(&packages.Config{Mode: listMode, Dir: p.dir}, paths...)
	if err != nil {
		return nil, err
	}
	sort.Slice(listed, func(i, j int) bool { return listed[i].PkgPath < listed[j].PkgPath })
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, lp := range listed {
		p.listed[lp.PkgPath] = lp
	}
	return listed, nil
}

// Prefetch lists the packages not yet known among paths in one go, so that
// later Lookups of them need no `go list` of their own.
func (p *Program) Prefetch(paths []string) error {
	var missing []string
	p.mu.Lock()
	for _, path := range paths {
		if _, ok := p.listed[path]; !ok && path != "C" && path != "unsafe" {
			missing = append(missing, path)
		}
	}
	p.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	_, err := p.list(missing)
	return err
}

// Lookup returns the parsed package with the given import path, listing
// and parsing it first if needed.
func (p *Program) Lookup(path string) (*Package, error) {
	p.mu.Lock()
	pkg, ok := p.parsed[path]
	p.mu.Unlock()
	if ok {
		return pkg, p.complete(pkg)
	}
	if err := p.Prefetch([]string{path}); err != nil {
		return nil, err
	}
	p.mu.Lock()
	lp := p.listed[path]
	p.mu.Unlock()
	if lp == nil {
		return nil, fmt.Errorf("package %s not found", path)
	}
	if len(lp.Errors) > 0 {
		return nil, fmt.Errorf("package %s: %s", path, lp.Errors[0].Msg)
	}
	pkgs, err := p.parse([]*packages.Package{lp}, false)
	if err != nil {
		return nil, err
	}
	return pkgs[0], p.complete(pkgs[0])
}

// complete reads the files an input package was parsed without.
func (p *Program) complete(pkg *Package) error {
	p.mu.Lock()
	deferred := pkg.deferred
	pkg.deferred = nil
	p.mu.Unlock()
	for _, path := range deferred {
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := p.parseSource(path, src)
		if err != nil {
			return err
		}
		pkg.Files = append(pkg.Files, f)
	}
	if len(deferred) > 0 {
		sort.Slice(pkg.Files, func(i, j int) bool { return pkg.Files[i].Path < pkg.Files[j].Path })
	}
	return nil
}

// parse reads the files of listed packages, in parallel. roots says
// whether these are input packages, whose own outputs are left out.
func (p *Program) parse(listed []*packages.Package, roots bool) ([]*Package, error) {
	type job struct {
		pkg  *Package
		i    int
		path string
	}
	var jobs []job
	out := make([]*Package, len(listed))
	for n, lp := range listed {
		pkg := &Package{Path: lp.PkgPath, Name: lp.Name, ReadOnly: true}
		if len(lp.GoFiles) > 0 {
			pkg.Dir = filepath.Dir(lp.GoFiles[0])
		}
		if lp.Module != nil {
			pkg.Module = lp.Module.Path
			pkg.ReadOnly = !lp.Module.Main
		}
		files := append([]string(nil), lp.GoFiles...)
		sort.Strings(files)
		for _, f := range files {
			pkg.Protobuf = pkg.Protobuf || filepath.Base(f) == "generated.pb.go"
		}
		pkg.Files = make([]*File, len(files))
		for i, f := range files {
			jobs = append(jobs, job{pkg, i, f})
		}
		out[n] = pkg
	}
	errs := make([]error, len(jobs))
	deferred := make([]bool, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				j.pkg.Files[j.i], deferred[i], errs[i] = p.parseFile(j.pkg, j.path, roots)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		if deferred[i] {
			j.pkg.deferred = append(j.pkg.deferred, j.path)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pkg := range out {
		kept := pkg.Files[:0]
		for _, f := range pkg.Files {
			if f != nil {
				kept = append(kept, f)
			}
		}
		pkg.Files = kept
		p.parsed[pkg.Path] = pkg
	}
	return out, nil
}

// parseFile parses one file, or returns nil when the file cannot matter
// (yet): deferred is set for a generated file of an input package that
// only DeepCopy lookups need.
func (p *Program) parseFile(pkg *Package, path string, root bool) (f *File, deferred bool, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	writable := root && !pkg.ReadOnly
	if writable && p.outputs(pkg.Dir, filepath.Base(path), src) {
		return nil, false, nil
	}
	if !writable && IsGenerated(src) && !declaresTypes(src) {
		if !bytes.Contains(src, []byte("DeepCopy")) {
			return nil, false, nil
		}
		if root {
			return nil, true, nil
		}
	}
	f, err = p.parseSource(path, src)
	return f, false, err
}

func (p *Program) parseSource(path string, src []byte) (*File, error) {
	f, err := parser.ParseFile(p.Fset, p.display(path), src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	return &File{Path: path, Syntax: f}, nil
}

// display is the file name used in positions: relative to the working
// directory when below it.
func (p *Program) display(path string) string {
	if rel, err := filepath.Rel(p.dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// IsGenerated reports whether src carries Go's generated-code comment,
// "// Code generated ... DO NOT EDIT.", before its package clause.
func IsGenerated(src []byte) bool {
	for len(src) > 0 {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		line = bytes.TrimSpace(line)
		if bytes.HasPrefix(line, []byte("package ")) {
			return false
		}
		if bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT.")) {
			return true
		}
		src = rest
	}
	return false
}

// declaresTypes reports whether any line of src starts with "type", the
// only way (in gofmt'd source) to declare a package-level type.
func declaresTypes(src []byte) bool {
	for len(src) > 0 {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("type")) {
			return true
		}
		src = rest
	}
	return false
}
