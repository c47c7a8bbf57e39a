package main

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goTestLine is a result line of go test -v ("--- PASS: TestX/sub (0.01s)").
var goTestLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)

// goTestPrefix names plain Go tests among a suite's specs.
const goTestPrefix = "go test "

// addGoTests adds the plain Go tests of a suite's -test.v output in
// logPath (some packages test envtest with testing.T rather than ginkgo)
// as specs named "go test TestX/sub": the leaves only, and not the tests
// that run the ginkgo suite (those calling RunSpecs in the package's
// sources in dir), whose specs the ginkgo report has.
func (r *suiteResult) addGoTests(logPath, dir string) {
	results := map[string]string{}
	var order []string
	f, err := os.Open(logPath)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := goTestLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if _, seen := results[m[2]]; !seen {
			order = append(order, m[2])
		}
		results[m[2]] = m[1]
	}
	ginkgoEntries := ginkgoEntryTests(dir)
	for _, name := range order {
		top, _, _ := strings.Cut(name, "/")
		if ginkgoEntries[top] || hasSubtest(results, name) {
			continue
		}
		out := outcomeFailed
		switch results[name] {
		case "PASS":
			out = outcomePassed
		case "SKIP":
			out = outcomeSkipped
		}
		r.add(goTestPrefix+name, specResult{Outcome: out})
	}
}

// hasSubtest reports whether results holds a subtest of name.
func hasSubtest(results map[string]string, name string) bool {
	for other := range results {
		if strings.HasPrefix(other, name+"/") {
			return true
		}
	}
	return false
}

// ginkgoEntryTests are the Test functions of the package in dir that call
// RunSpecs.
func ginkgoEntryTests(dir string) map[string]bool {
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && strings.HasPrefix(fn.Name.Name, "Test") && fn.Body != nil && callsRunSpecs(fn.Body) {
				out[fn.Name.Name] = true
			}
		}
	}
	return out
}

// callsRunSpecs reports whether body calls RunSpecs (or X.RunSpecs).
func callsRunSpecs(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			found = found || fn.Name == "RunSpecs"
		case *ast.SelectorExpr:
			found = found || fn.Sel.Name == "RunSpecs"
		}
		return !found
	})
	return found
}
