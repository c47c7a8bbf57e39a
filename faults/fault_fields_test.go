package faults

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// declaredKinds are the Kind constants declared in fault.go, read from its
// syntax so that a new kind cannot be left out of Kinds and kindFields.
func declaredKinds(t *testing.T) []Kind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "fault.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Kind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
				continue
			}
			for _, v := range vs.Values {
				lit := v.(*ast.BasicLit)
				out = append(out, Kind(strings.Trim(lit.Value, `"`)))
			}
		}
	}
	return out
}

// TestKindFieldsCoverEveryKind: Kinds and kindFields list every declared
// kind, and kindFields names only Fault's own JSON fields.
func TestKindFieldsCoverEveryKind(t *testing.T) {
	t.Parallel()
	declared := declaredKinds(t)
	if diff := cmp.Diff(declared, Kinds()); diff != "" {
		t.Errorf("Kinds() differs from the kinds fault.go declares (-declared +Kinds):\n%s", diff)
	}
	var jsonNames []string
	for f := range reflect.TypeFor[Fault]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		jsonNames = append(jsonNames, name)
	}
	for _, k := range declared {
		fields, ok := kindFields[k]
		if !ok {
			t.Errorf("kindFields has no entry for %s", k)
		}
		for _, f := range append(slices.Clone(commonFields), fields...) {
			if !slices.Contains(jsonNames, f) {
				t.Errorf("kindFields[%s] names %q, not a field of Fault", k, f)
			}
		}
	}
}

// TestCheck: Check refuses what Add refuses, unknown kinds with a
// suggestion and fields a kind does not read, and leaves f unchanged.
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    Fault
		want string // "" for no error
	}{
		{Fault{Kind: Compact}, ""},
		{Fault{Kind: Compact, RV: 5, Times: 2, Match: Match{Verbs: []string{"list"}}}, ""},
		{Fault{Kind: FailRequest, Code: 503, Message: "x"}, ""},
		{Fault{Kind: Random, Probability: 0.5, Seed: 3}, ""},
		{Fault{Kind: Compact, Lag: 1}, "Compact: field lag does not belong to this kind (its own fields: rv)"},
		{Fault{Kind: Restart, Delay: Duration(1)}, "Restart: field delay does not belong to this kind (its own fields: none)"},
		{Fault{Kind: "EndWatc"}, `unknown kind "EndWatc" (want one of EndWatch, CutWatch, `},
		{Fault{Kind: "EndWatc"}, `; did you mean "EndWatch"?`},
		{Fault{Kind: "endwatch"}, `; did you mean "EndWatch"?`},
		{Fault{Kind: FailRequest, Code: 404}, "code 404 is not 429, 500, 503 or 504"},
		{Fault{Kind: Latency}, "needs a positive delay"},
	} {
		before := tc.f
		err := tc.f.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%+v) = %v, want nil", tc.f, err)
		case tc.want != "" && (err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%+v) = %v, want ErrInvalid containing %q", tc.f, err, tc.want)
		}
		if diff := cmp.Diff(before, tc.f); diff != "" {
			t.Errorf("Check changed its fault (-before +after):\n%s", diff)
		}
	}
}
