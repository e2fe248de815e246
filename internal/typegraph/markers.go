package typegraph

import (
	"fmt"
	"go/ast"

	"github.com/ctrlgen/ctrlgen/internal/markers"
)

// The markers of a declaration are collected once, whoever asks first:
// the builder, which reports their problems for the input packages, or
// the CRD schemas, which read those of every package they reach.

// collected is a marker set, collected once, and its problems.
type collected struct {
	set   markers.Set
	diags []markers.Diagnostic
}

// TypeMarkers returns the markers of the declaration of the named type n
// (an alias's own, not those of the type it names), and their problems.
// scanned is the declaration's marker lines when the caller has read
// them (markers.Scan), nil to read them here.
func (g *Graph) TypeMarkers(n Name, scanned *markers.TypeLines) (markers.Set, []markers.Diagnostic, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, err := g.index(n.Pkg, false)
	if err != nil {
		return markers.Set{}, nil, err
	}
	d := p.types[n.Name]
	if d == nil {
		return markers.Set{}, nil, fmt.Errorf("type %s not found", n)
	}
	if d.markers == nil {
		var lines []markers.Line
		if scanned != nil && scanned.Spec == d.spec {
			lines = scanned.Lines
		} else {
			lines = d.scope.markerLines().Type(d.spec)
		}
		set, diags := markers.All.Collect(lines, markers.TargetType)
		d.markers = &collected{set, diags}
	}
	return d.markers.set, d.markers.diags, nil
}

// FieldMarkers returns the markers of a struct field, given its doc
// comment (Member.Doc), and their problems. lines are the comment's
// marker lines when the caller has read them (markers.Scan), nil to read
// them here.
func (g *Graph) FieldMarkers(doc *ast.CommentGroup, lines []markers.Line) (markers.Set, []markers.Diagnostic) {
	if doc == nil {
		return markers.Set{}, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.fieldMarkers[doc]
	if c == nil {
		if lines == nil {
			lines = markers.GroupLines(g.fset, doc)
		}
		set, diags := markers.All.Collect(lines, markers.TargetField)
		c = &collected{set, diags}
		g.fieldMarkers[doc] = c
	}
	return c.set, c.diags
}

// PackageMarkers returns the package markers of the package at path, from
// every file that can have them (see markers.Scan), and their problems.
func (g *Graph) PackageMarkers(path string) (markers.Set, []markers.Diagnostic, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, err := g.index(path, false)
	if err != nil {
		return markers.Set{}, nil, err
	}
	if p.markers == nil {
		var lines []markers.Line
		for _, s := range p.scopes {
			lines = append(lines, s.markerLines().Package()...)
		}
		set, diags := markers.All.Collect(lines, markers.TargetPackage)
		p.markers = &collected{set, diags}
	}
	return p.markers.set, p.markers.diags, nil
}

func (s *fileScope) markerLines() *markers.Lazy {
	if s.lines == nil {
		s.lines = markers.NewLazy(s.g.fset, s.file.Syntax, s.file.IsDoc())
	}
	return s.lines
}
