// Package docs_test keeps docs/architecture.json, the machine-readable
// picture of the rooms that docs/ARCHITECTURE.md draws, true: every package
// of the module is a room there, and each room imports exactly the rooms the
// picture says. A new package or a new edge between packages fails this test
// until the picture shows it, so the picture cannot drift from the code.
package docs_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// picture is docs/architecture.json.
type picture struct {
	Module string `json:"module"`
	Rooms  []room `json:"rooms"`
}

// room is one package: its path below the module, what it is for, and the
// module's packages its non-test files import.
type room struct {
	Path    string   `json:"path"`
	Purpose string   `json:"purpose"`
	Imports []string `json:"imports"`
}

func TestArchitecturePicture(t *testing.T) {
	pic := readPicture(t)
	want := map[string][]string{}
	for _, r := range pic.Rooms {
		if r.Purpose == "" {
			t.Errorf("room %s has no purpose", r.Path)
		}
		if _, dup := want[r.Path]; dup {
			t.Errorf("room %s is listed twice", r.Path)
		}
		imports := slices.Clone(r.Imports)
		slices.Sort(imports)
		want[r.Path] = imports
	}
	got := moduleImports(t, "..", pic.Module)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("docs/architecture.json does not match the code (-picture +code):\n%s", diff)
	}
}

func readPicture(t *testing.T) picture {
	t.Helper()
	data, err := os.ReadFile("architecture.json")
	if err != nil {
		t.Fatal(err)
	}
	var pic picture
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pic); err != nil {
		t.Fatalf("architecture.json: %v", err)
	}
	return pic
}

// moduleImports maps every package directory of the module below root
// (outside tools/, which holds separate modules, testdata and docs itself) to
// the module packages its non-test files import.
func moduleImports(t *testing.T, root, module string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "tools", "testdata", "docs", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		imports, err := fileImports(path, module)
		if err != nil {
			return err
		}
		set := out[filepath.ToSlash(dir)]
		for _, imp := range imports {
			if !slices.Contains(set, imp) {
				set = append(set, imp)
			}
		}
		slices.Sort(set)
		out[filepath.ToSlash(dir)] = set
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fileImports returns the module-local imports of one Go file, relative to
// the module path.
func fileImports(path, module string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, spec := range f.Imports {
		p := strings.Trim(spec.Path.Value, `"`)
		if rest, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rest)
		}
	}
	return out, nil
}
