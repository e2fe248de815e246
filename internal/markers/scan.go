package markers

import (
	"go/ast"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// File holds one Go file's marker lines by what they belong to.
//
// Attachment follows gengo (k8s.io/gengo/v2/parser), which every
// code-generator tool reads markers through. A type's markers are its
// "CommentLines", the comment block whose last line is the line just above
// the type's name, and its "SecondClosestCommentLines", the block whose
// last line is two lines above the first line of CommentLines (or, when
// there is none, two lines above the type): that is, one block separated by
// a single blank line. A field's markers are the block just above it.
// Package markers are every comment of doc.go (as gengo reads them) and,
// in any file, the comments before the package clause (as controller-tools
// reads kubebuilder's groupversion_info.go).
type File struct {
	Package []Line
	Types   []TypeLines
	Fields  []FieldLines
	// Detached are comment blocks with markers that belong to nothing.
	Detached []Detached
}

// TypeLines are the marker lines of one type declaration, the
// second-closest block first, as gengo concatenates them.
type TypeLines struct {
	Spec  *ast.TypeSpec
	Lines []Line
}

// FieldLines are the marker lines of one struct field.
type FieldLines struct {
	Field *ast.Field
	Lines []Line
}

// Detached is a comment block with markers that no declaration reads.
type Detached struct {
	Lines []Line
	// Next is the type declared right after the block, if the next
	// declaration is a type; Gap is the number of lines between them.
	Next *ast.TypeSpec
	Gap  int
}

// Scan returns the marker lines of f. docFile says whether f is the
// package's doc.go.
func Scan(fset *token.FileSet, f *ast.File, docFile bool) *File {
	s := newCommentScanner(fset, f)
	s.index(f)
	out := &File{}
	for _, g := range s.packageGroups(f, docFile) {
		out.Package = append(out.Package, s.lines(g)...)
		s.used[g] = true
	}
	var items []item
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			items = append(items, item{line: s.line(d.Pos())})
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			items = append(items, item{line: s.line(ts.Name.Pos()), spec: ts})
			out.Types = append(out.Types, TypeLines{Spec: ts, Lines: s.typeLines(ts.Name.Pos())})
			ast.Inspect(ts.Type, func(n ast.Node) bool {
				if field, ok := n.(*ast.Field); ok {
					items = append(items, item{line: s.line(field.Pos())})
					// go/parser gives a field the block that ends on the
					// line above it only when the field starts its line:
					// in `type B struct{ X }` the block above belongs to
					// B alone. gengo gives it to both; field markers only
					// feed warnings here, so B's are not checked twice.
					if g := field.Doc; g != nil {
						s.used[g] = true
						out.Fields = append(out.Fields, FieldLines{Field: field, Lines: s.lines(g)})
					}
				}
				return true
			})
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].line < items[j].line })
	for _, g := range f.Comments {
		if s.used[g] {
			continue
		}
		if lines := s.lines(g); len(lines) > 0 {
			out.Detached = append(out.Detached, s.detached(g, lines, items))
		}
	}
	return out
}

type scanner struct {
	fset  *token.FileSet
	file  *token.File
	byEnd map[int]*ast.CommentGroup // comment blocks by their last line
	used  map[*ast.CommentGroup]bool
}

// item is a declaration or field start, to find what follows a block.
type item struct {
	line int
	spec *ast.TypeSpec
}

func newCommentScanner(fset *token.FileSet, f *ast.File) scanner {
	return scanner{fset: fset, file: fset.File(f.Pos()), used: map[*ast.CommentGroup]bool{}}
}

// index records f's comment blocks by their last line.
func (s *scanner) index(f *ast.File) {
	s.byEnd = make(map[int]*ast.CommentGroup, len(f.Comments))
	for _, g := range f.Comments {
		s.byEnd[s.line(g.End())] = g
	}
}

// packageGroups are the comment blocks package markers are read from:
// every block of doc.go, elsewhere those above the package clause.
func (s *scanner) packageGroups(f *ast.File, docFile bool) []*ast.CommentGroup {
	if docFile {
		return f.Comments
	}
	pkgLine := s.line(f.Package)
	end := 0
	for end < len(f.Comments) && s.line(f.Comments[end].End()) < pkgLine {
		end++
	}
	return f.Comments[:end]
}

func (s *scanner) line(p token.Pos) int { return s.file.Line(p) }

func (s *scanner) typeLines(name token.Pos) []Line {
	closest := s.byEnd[s.line(name)-1]
	var second *ast.CommentGroup
	if closest != nil {
		second = s.byEnd[s.line(closest.List[0].Slash)-2]
	} else {
		second = s.byEnd[s.line(name)-2]
	}
	var out []Line
	for _, g := range []*ast.CommentGroup{second, closest} {
		if g != nil {
			s.used[g] = true
			out = append(out, s.lines(g)...)
		}
	}
	return out
}

func (s *scanner) detached(g *ast.CommentGroup, lines []Line, items []item) Detached {
	end := s.line(g.End())
	i := sort.Search(len(items), func(i int) bool { return items[i].line > end })
	d := Detached{Lines: lines}
	if i < len(items) && items[i].spec != nil {
		d.Next, d.Gap = items[i].spec, items[i].line-end-1
	}
	return d
}

func (s *scanner) lines(g *ast.CommentGroup) []Line { return GroupLines(s.fset, g) }

// GroupLines returns the marker lines of a comment block: those that
// start with "+" once the comment markers and surrounding spaces are
// removed. A struct field's markers are those of its doc comment.
func GroupLines(fset *token.FileSet, g *ast.CommentGroup) []Line {
	if g == nil {
		return nil
	}
	var out []Line
	for _, c := range g.List {
		text, isLine := strings.CutPrefix(c.Text, "//")
		if isLine {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(text), "+"); ok {
				out = append(out, Line{Text: rest, Pos: fset.Position(c.Slash)})
			}
			continue
		}
		if !strings.Contains(text, "+") {
			continue
		}
		pos := fset.Position(c.Slash)
		text = strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		for i, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if rest, ok := strings.CutPrefix(l, "+"); ok {
				p := pos
				p.Line += i
				out = append(out, Line{Text: rest, Pos: p})
			}
		}
	}
	return out
}

// Lines returns every marker line of the file, wherever it is, in source
// order.
func (f *File) Lines() []Line {
	var out []Line
	out = append(out, f.Package...)
	for _, t := range f.Types {
		out = append(out, t.Lines...)
	}
	for _, fl := range f.Fields {
		out = append(out, fl.Lines...)
	}
	for _, d := range f.Detached {
		out = append(out, d.Lines...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Offset < out[j].Pos.Offset })
	// In doc.go a type's comments are package comments too.
	return slices.CompactFunc(out, func(a, b Line) bool { return a.Pos == b.Pos })
}

// Lazy finds the marker lines of a file's declarations as Scan does, each
// when asked for, for readers that need a few types of a large file.
type Lazy struct {
	s       scanner // its comment index is built on the first Type
	f       *ast.File
	docFile bool
}

// NewLazy returns a Lazy for f; docFile says whether f is the package's
// doc.go.
func NewLazy(fset *token.FileSet, f *ast.File, docFile bool) *Lazy {
	return &Lazy{s: newCommentScanner(fset, f), f: f, docFile: docFile}
}

// Package returns the file's package marker lines, Scan's File.Package.
func (l *Lazy) Package() []Line {
	var out []Line
	for _, g := range l.s.packageGroups(l.f, l.docFile) {
		out = append(out, l.s.lines(g)...)
	}
	return out
}

// Type returns the marker lines of a type declared in the file.
func (l *Lazy) Type(ts *ast.TypeSpec) []Line {
	if l.s.byEnd == nil {
		l.s.index(l.f)
	}
	return l.s.typeLines(ts.Name.Pos())
}
