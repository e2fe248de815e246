// Package gen holds the in-memory generated file: generators write a body
// and ask for import qualifiers; the file assembles its header, package
// clause and import block and formats itself. Nothing here touches disk.
package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctrlgen/ctrlgen/internal/genfile"
)

// Header is the first line of every Go file ctrlgen writes (see genfile).
const Header = genfile.Header

// File is one generated Go file.
type File struct {
	// Path is where the file goes on disk.
	Path string
	// PkgName is the package clause; ImportPath the package's own path, so
	// that references to it need no import.
	PkgName    string
	ImportPath string
	// Generated is false for files written once for the user to edit: they
	// carry no DO NOT EDIT header and are never overwritten.
	Generated bool
	// Doc is the package comment, written just above the package clause.
	Doc string

	// Text, when set, is the whole content of a file that is not Go, such
	// as a manifest: Content returns it as it is.
	Text []byte

	// Formatted says the body is written as gofmt writes it, so that
	// Content, the costliest step of a large run, formats only the
	// header and imports: P indents lines by their braces, and the
	// writer formats what needs alignment itself (FormatDecl). Tests
	// check that gofmt would change nothing.
	Formatted bool

	body    bytes.Buffer
	depth   int               // of P's indentation, in a Formatted file
	aliases map[string]string // import path → alias
	taken   map[string]string // alias → import path
}

// YAMLHeader is the first line of every manifest ctrlgen writes (see
// genfile).
const YAMLHeader = genfile.YAMLHeader

// NewText returns a generated file that is not Go, with its whole content.
func NewText(filePath string, content []byte) *File {
	return &File{Path: filePath, Generated: true, Text: content}
}

// NewFile returns an empty generated file.
func NewFile(filePath, pkgName, importPath string) *File {
	return &File{
		Path:       filePath,
		PkgName:    pkgName,
		ImportPath: importPath,
		Generated:  true,
		aliases:    map[string]string{},
		taken:      map[string]string{},
	}
}

// Write appends to the body.
func (f *File) Write(p []byte) (int, error) { return f.body.Write(p) }

// P appends its arguments and a newline to the body. In a Formatted
// file the line is indented a tab per open brace: a line ending in "{"
// opens one, a line starting with "}" closes one.
func (f *File) P(args ...any) {
	if !f.Formatted {
		for _, a := range args {
			fmt.Fprint(&f.body, a)
		}
		f.body.WriteByte('\n')
		return
	}
	var line strings.Builder
	for _, a := range args {
		fmt.Fprint(&line, a)
	}
	text := line.String()
	if strings.HasPrefix(text, "}") {
		f.depth--
	}
	if text != "" {
		for range f.depth {
			f.body.WriteByte('\t')
		}
		f.body.WriteString(text)
	}
	f.body.WriteByte('\n')
	if strings.HasSuffix(text, "{") {
		f.depth++
	}
}

// FormatDecl returns top-level declarations as gofmt writes them.
func FormatDecl(decl []byte) ([]byte, error) {
	const pkg = "package p\n\n"
	out, err := format.Source(append([]byte(pkg), decl...))
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, numbered(decl))
	}
	return out[len(pkg):], nil
}

// Import records an import of importPath and returns the qualifier to use
// for it ("" for the file's own package). The alias is the path's last
// element made a valid identifier; a collision gets a numeric suffix.
func (f *File) Import(importPath string) string {
	return f.ImportAs(importPath, "")
}

// ImportAs is Import with a preferred alias.
func (f *File) ImportAs(importPath, preferred string) string {
	if importPath == f.ImportPath {
		return ""
	}
	if a, ok := f.aliases[importPath]; ok {
		return a
	}
	base := preferred
	if base == "" {
		base = DefaultAlias(importPath)
	}
	alias := base
	for i := 2; ; i++ {
		if _, used := f.taken[alias]; !used && alias != f.PkgName && !predeclared[alias] {
			break
		}
		alias = base + strconv.Itoa(i)
	}
	f.aliases[importPath] = alias
	f.taken[alias] = importPath
	return alias
}

// Ident returns the qualified identifier name from importPath.
func (f *File) Ident(importPath, name string) string {
	if q := f.Import(importPath); q != "" {
		return q + "." + name
	}
	return name
}

// Content returns the complete, gofmt'd file. header is the optional
// boilerplate, placed after the generated-code line.
func (f *File) Content(boilerplate string) ([]byte, error) {
	if f.Text != nil {
		return f.Text, nil
	}
	var b bytes.Buffer
	if f.Generated {
		b.WriteString(Header + "\n\n")
	}
	if bp := strings.TrimSpace(boilerplate); bp != "" {
		b.WriteString(bp + "\n\n")
	}
	for _, line := range strings.Split(strings.TrimSpace(f.Doc), "\n") {
		if line != "" {
			b.WriteString("// " + line + "\n")
		}
	}
	fmt.Fprintf(&b, "package %s\n\n", f.PkgName)
	if len(f.aliases) > 0 {
		paths := make([]string, 0, len(f.aliases))
		for p := range f.aliases {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		b.WriteString("import (\n")
		for _, std := range []bool{true, false} {
			n := 0
			for _, p := range paths {
				if isStd(p) != std {
					continue
				}
				n++
				if a := f.aliases[p]; a == path.Base(p) {
					fmt.Fprintf(&b, "\t%q\n", p)
				} else {
					fmt.Fprintf(&b, "\t%s %q\n", a, p)
				}
			}
			if std && n > 0 {
				b.WriteString("\n")
			}
		}
		b.WriteString(")\n\n")
	}
	if f.Formatted {
		head, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", f.Path, err, numbered(b.Bytes()))
		}
		if f.body.Len() == 0 {
			return head, nil
		}
		return append(append(head, '\n'), f.body.Bytes()...), nil
	}
	b.Write(f.body.Bytes())
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", f.Path, err, numbered(b.Bytes()))
	}
	return out, nil
}

// DefaultAlias turns an import path into the alias client-gen would use for
// it when nothing else is asked: the last element, lower-cased, with
// anything but letters and digits removed.
func DefaultAlias(importPath string) string {
	base := path.Base(importPath)
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = "pkg" + s
	}
	return s
}

func isStd(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, line)
	}
	return b.String()
}

var predeclared = map[string]bool{
	"bool": true, "byte": true, "error": true, "string": true, "int": true, "len": true,
	"cap": true, "new": true, "make": true, "append": true, "copy": true, "nil": true,
	"true": true, "false": true, "any": true, "close": true, "delete": true, "panic": true,
}
