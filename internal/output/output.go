// Package output compares generated files with what is on disk and
// applies the difference: it writes only files whose bytes differ and
// removes stale files ctrlgen generated before, only where ctrlgen writes.
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/ctrlgen/ctrlgen/internal/atomicfile"
	"github.com/ctrlgen/ctrlgen/internal/genfile"
)

// File is a generated file, formatted.
type File struct {
	Path    string // absolute
	Content []byte
	// Once files are written for the user to edit: created when missing,
	// never overwritten nor removed.
	Once bool
}

// Scope is where a run may write.
type Scope struct {
	// OutputDir holds the generated packages; any file below it may be
	// written, and stale generated ones removed.
	OutputDir string
	// TypeDirs are the writable API packages' directories, where only
	// zz_generated.*.go files are written and removed, and Once files
	// written when missing.
	TypeDirs []string
	// PackageDirs hold a package per controller or webhook kind (the
	// controllers and webhooks directories): any file below them may be
	// written (Once files only when missing), and stale zz_generated.*.go
	// files of their packages are removed.
	PackageDirs []string
	// ManifestDirs hold generated manifests (CRDs, RBAC): any file
	// directly in one may be written, and stale ones that start with
	// genfile.YAMLHeader removed.
	ManifestDirs []string
	// Owns, when set, limits the removal of generated files the run no
	// longer produces to those it owns: where the generators that ran
	// write.
	Owns func(path string) bool
}

// Change is one file a plan writes.
type Change struct {
	File
	// Old is the current content; nil for a new file.
	Old []byte
}

// Plan is what applying a run's files changes.
type Plan struct {
	Writes  []Change
	Removes []string
	// Unchanged counts the files already up to date.
	Unchanged int
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Writes) == 0 && len(p.Removes) == 0 }

// Compute compares files with the disk and lists the generated files in
// scope that the run no longer produces. It fails, before anything is
// written, on a file outside the scope, a path produced twice, or a
// hand-written file in the way.
func Compute(files []File, scope Scope) (*Plan, error) {
	p := &Plan{}
	produced := map[string]bool{}
	var errs []error
	for _, f := range files {
		if err := scope.allows(f); err != nil {
			errs = append(errs, err)
			continue
		}
		if produced[f.Path] {
			errs = append(errs, fmt.Errorf("%s is generated twice", f.Path))
			continue
		}
		produced[f.Path] = true
		old, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			p.Writes = append(p.Writes, Change{File: f})
		case err != nil:
			errs = append(errs, err)
		case bytes.Equal(old, f.Content), f.Once:
			p.Unchanged++
		case !genfile.Generated(old) && !genfile.OursManifest(old):
			errs = append(errs, fmt.Errorf("%s exists and is not a generated file; not overwriting it", f.Path))
		default:
			p.Writes = append(p.Writes, Change{File: f, Old: old})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	stale, err := scope.stale(produced)
	if err != nil {
		return nil, err
	}
	p.Removes = stale
	return p, nil
}

func (s Scope) allows(f File) error {
	path := f.Path
	if within(s.OutputDir, path) || s.inManifestDir(path) || slices.ContainsFunc(s.PackageDirs, func(d string) bool { return d != "" && within(d, path) }) {
		return nil
	}
	dir, base := filepath.Split(path)
	if isTypeFile(base) || f.Once && strings.HasSuffix(base, ".go") {
		for _, d := range s.TypeDirs {
			if filepath.Clean(dir) == filepath.Clean(d) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s is outside the output directory %s", path, s.OutputDir)
}

func (s Scope) inManifestDir(path string) bool {
	return slices.ContainsFunc(s.ManifestDirs, func(dir string) bool { return dir != "" && filepath.Dir(path) == filepath.Clean(dir) })
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

func isTypeFile(base string) bool {
	return strings.HasPrefix(base, "zz_generated.") && strings.HasSuffix(base, ".go")
}

// stale returns ctrlgen's generated files in scope that the run did not
// produce: Go files starting with genfile.Header.
func (s Scope) stale(produced map[string]bool) ([]string, error) {
	var out []string
	check := func(path string) error {
		if produced[path] || !strings.HasSuffix(path, ".go") || s.Owns != nil && !s.Owns(path) {
			return nil
		}
		ours, err := genfile.FileIsOurs(path, genfile.Header)
		if ours {
			out = append(out, path)
		}
		return err
	}
	err := filepath.WalkDir(s.OutputDir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && path == s.OutputDir:
			return filepath.SkipAll
		case err != nil:
			return err
		case d.IsDir():
			return nil
		}
		return check(path)
	})
	if err != nil {
		return nil, err
	}
	globs := make([]string, 0, len(s.TypeDirs)+1)
	for _, dir := range s.TypeDirs {
		globs = append(globs, filepath.Join(dir, "zz_generated.*.go"))
	}
	for _, dir := range s.PackageDirs {
		if dir != "" && !within(s.OutputDir, dir) {
			globs = append(globs, filepath.Join(dir, "zz_generated.*.go"), filepath.Join(dir, "*", "zz_generated.*.go"))
		}
	}
	for _, glob := range globs {
		matches, err := filepath.Glob(glob)
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if err := check(m); err != nil {
				return nil, err
			}
		}
	}
	for _, dir := range s.ManifestDirs {
		if dir == "" {
			continue
		}
		matches, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if produced[m] || s.Owns != nil && !s.Owns(m) {
				continue
			}
			ours, err := genfile.FileIsOurs(m, genfile.YAMLHeader)
			if err != nil {
				return nil, err
			}
			if ours {
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// Apply writes and removes what the plan says. Each file is written to a
// temporary file and renamed into place. Directories below outputDir that
// removals leave empty are removed too.
func (p *Plan) Apply(outputDir string) error {
	for _, c := range p.Writes {
		if err := writeFile(c.Path, c.Content); err != nil {
			return err
		}
	}
	for _, path := range p.Removes {
		if err := os.Remove(path); err != nil {
			return err
		}
		for dir := filepath.Dir(path); within(outputDir, dir); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break // not empty
			}
		}
	}
	return nil
}

func writeFile(path string, content []byte) error {
	return atomicfile.Write(path, content, 0o644)
}

// Announce tells what an applied plan did: each file written for the user
// to edit and each file removed, by name, and unless quiet a summary line
// of the counts.
func (p *Plan) Announce(w io.Writer, rel func(string) string, quiet bool) {
	for _, c := range p.Writes {
		if c.Once {
			fmt.Fprintf(w, "ctrlgen: wrote %s for you to edit\n", rel(c.Path))
		}
	}
	for _, path := range p.Removes {
		fmt.Fprintf(w, "ctrlgen: removed %s, which this run no longer generates\n", rel(path))
	}
	if !quiet {
		fmt.Fprintf(w, "ctrlgen: %s written, %d unchanged, %d removed\n", files(len(p.Writes)), p.Unchanged, len(p.Removes))
	}
}

func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// Report writes what the plan would change: a unified diff for each
// changed file, and the names of new and removed files. rel shortens
// paths for display.
func (p *Plan) Report(w io.Writer, rel func(string) string) error {
	for _, c := range p.Writes {
		if c.Old == nil {
			fmt.Fprintf(w, "new: %s\n", rel(c.Path))
			continue
		}
		if err := Diff(w, rel(c.Path), c.Old, c.Content); err != nil {
			return err
		}
	}
	for _, path := range p.Removes {
		fmt.Fprintf(w, "stale: %s\n", rel(path))
	}
	return nil
}

// Diff writes a unified diff from a to b.
func Diff(w io.Writer, name string, a, b []byte) error {
	return difflib.WriteUnifiedDiff(w, difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(a)),
		B:        difflib.SplitLines(string(b)),
		FromFile: "a/" + name,
		ToFile:   "b/" + name,
		Context:  3,
	})
}
