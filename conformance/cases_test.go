package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// caseNamePattern is what a case name looks like: an identifier that
// names a subtest and a row of the table without quoting.
var caseNamePattern = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// TestCasesWellFormed checks every case has a unique name, a run function,
// and Cases returns a fresh slice each time (a caller may change its copy).
func TestCasesWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if !caseNamePattern.MatchString(c.Name) {
			t.Errorf("case name %q does not match %s", c.Name, caseNamePattern)
		}
		if seen[c.Name] {
			t.Errorf("case %s is registered twice", c.Name)
		}
		seen[c.Name] = true
		if c.Run == nil {
			t.Errorf("case %s has no Run", c.Name)
		}
	}
	a := Cases()
	a[0].Name = "Changed"
	if b := Cases(); b[0].Name == "Changed" {
		t.Error("Cases() returned a slice a previous caller changed")
	}
}

// TestCasesRegistered reads the package's source: each *_cases.go file
// declares one table function named after the file, Cases calls every
// table, and every case function (runXxx(ctx, t, target)) is a row of some
// table. A case written but not registered would otherwise never run, and
// since run functions are unexported, nothing else would notice.
func TestCasesRegistered(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	tables := map[string]*ast.FuncDecl{} // table function name → declaration
	var runs []string                    // case functions, in source order
	var cases *ast.FuncDecl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		fileTables := 0
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			switch {
			case fd.Name.Name == "Cases":
				cases = fd
			case isTableFunc(fd):
				tables[fd.Name.Name] = fd
				fileTables++
				if want := tableFuncName(name); fd.Name.Name != want {
					t.Errorf("%s: table function %s, want it named %s", name, fd.Name.Name, want)
				}
			case isCaseFunc(fd):
				runs = append(runs, fd.Name.Name)
			}
		}
		if strings.HasSuffix(name, "_cases.go") && fileTables != 1 {
			t.Errorf("%s declares %d table functions, want 1 (%s)", name, fileTables, tableFuncName(name))
		}
	}
	if cases == nil {
		t.Fatal("no func Cases")
	}
	called := identsIn(cases)
	for name := range tables {
		if !called[name] {
			t.Errorf("Cases does not call %s: its cases never run", name)
		}
	}
	registered := map[string]bool{}
	for _, fd := range tables {
		for id := range identsIn(fd) {
			registered[id] = true
		}
	}
	for _, r := range runs {
		if !registered[r] {
			t.Errorf("%s is in no table: the case never runs", r)
		}
	}
}

// tableFuncName is the table function a *_cases.go file declares:
// list_paging_cases.go → listPagingCases.
func tableFuncName(file string) string {
	parts := strings.Split(strings.TrimSuffix(file, "_cases.go"), "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "") + "Cases"
}

// isTableFunc reports whether fd is func xxxCases() []Case.
func isTableFunc(fd *ast.FuncDecl) bool {
	if !strings.HasSuffix(fd.Name.Name, "Cases") || fd.Type.Params.NumFields() != 0 || fd.Type.Results.NumFields() != 1 {
		return false
	}
	arr, ok := fd.Type.Results.List[0].Type.(*ast.ArrayType)
	if !ok {
		return false
	}
	elt, ok := arr.Elt.(*ast.Ident)
	return ok && elt.Name == "Case"
}

// isCaseFunc reports whether fd is a case's run function:
// runXxx(ctx context.Context, t *testing.T, target Target), no results.
func isCaseFunc(fd *ast.FuncDecl) bool {
	n := fd.Name.Name
	if !strings.HasPrefix(n, "run") || len(n) < 4 || !strings.ContainsAny(n[3:4], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false
	}
	if fd.Type.Results.NumFields() != 0 {
		return false
	}
	var types []string
	for _, p := range fd.Type.Params.List {
		for range max(len(p.Names), 1) {
			types = append(types, typeString(p.Type))
		}
	}
	return slices.Equal(types, []string{"context.Context", "*testing.T", "Target"})
}

// typeString renders the parameter types isCaseFunc compares.
func typeString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return typeString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + typeString(e.X)
	}
	return ""
}

// identsIn is the set of identifiers used in fd's body.
func identsIn(fd *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out[id.Name] = true
		}
		return true
	})
	return out
}
