package main

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// documentedPackages are the packages whose go doc must read as a guide:
// a package doc, and a doc comment on every exported name.
var documentedPackages = []string{"engine", "typed", "persist", "persist/postgres", "tui", "graphs"}

// TestDocs_EveryExportedNameIsDocumented fails on an exported constant,
// variable, type, function, method, struct field or interface method of a
// documented package that has no doc comment (a field's or a grouped
// constant's trailing comment counts; so does a group's doc for its
// members).
func TestDocs_EveryExportedNameIsDocumented(t *testing.T) {
	for _, dir := range documentedPackages {
		for _, miss := range undocumented(t, dir) {
			t.Errorf("%s: %s has no doc comment", dir, miss)
		}
	}
}

func undocumented(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		d := doc.New(p, "github.com/superstep/superstep/"+dir, 0)
		if strings.TrimSpace(d.Doc) == "" {
			out = append(out, "the package")
		}
		out = append(out, undocumentedValues(d.Consts)...)
		out = append(out, undocumentedValues(d.Vars)...)
		out = append(out, undocumentedFuncs("", d.Funcs)...)
		for _, typ := range d.Types {
			if typ.Doc == "" {
				out = append(out, "type "+typ.Name)
			}
			out = append(out, undocumentedValues(typ.Consts)...)
			out = append(out, undocumentedValues(typ.Vars)...)
			out = append(out, undocumentedFuncs("", typ.Funcs)...)
			out = append(out, undocumentedFuncs(typ.Name+".", typ.Methods)...)
			out = append(out, undocumentedMembers(typ)...)
		}
	}
	return out
}

func undocumentedFuncs(prefix string, fns []*doc.Func) []string {
	var out []string
	for _, f := range fns {
		if f.Doc == "" {
			out = append(out, "func "+prefix+f.Name)
		}
	}
	return out
}

// undocumentedValues checks a const or var group: its doc covers every
// name in it; otherwise each spec needs its own doc or line comment.
func undocumentedValues(vals []*doc.Value) []string {
	var out []string
	for _, v := range vals {
		if v.Doc != "" {
			continue
		}
		for _, spec := range v.Decl.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Doc != nil || vs.Comment != nil {
				continue
			}
			for _, n := range vs.Names {
				if n.IsExported() {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

// undocumentedMembers lists the exported fields of a struct type and the
// methods of an interface type that have neither a doc nor a line comment.
func undocumentedMembers(typ *doc.Type) []string {
	var out []string
	for _, spec := range typ.Decl.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typ.Name {
			continue
		}
		var list *ast.FieldList
		switch x := ts.Type.(type) {
		case *ast.StructType:
			list = x.Fields
		case *ast.InterfaceType:
			list = x.Methods
		}
		if list == nil {
			continue
		}
		for _, f := range list.List {
			if f.Doc != nil || f.Comment != nil {
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					out = append(out, typ.Name+"."+n.Name)
				}
			}
		}
	}
	return out
}
