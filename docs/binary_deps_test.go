package docs_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestBinaryLinksNoTesting keeps package testing (and with it its flags and
// its init work) out of the lw-sim binary: the server's test helpers take
// fakeapiserver.TB, not testing.TB, so importing fakeapiserver from a
// program does not link it.
func TestBinaryLinksNoTesting(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goCmd, "list", "-deps", "../cmd/lw-sim").Output()
	if err != nil {
		t.Fatalf("go list -deps ../cmd/lw-sim: %v", err)
	}
	deps := strings.Fields(string(out))
	if slices.Contains(deps, "testing") {
		t.Errorf("the lw-sim binary links package testing; find the importer with: go list -f '{{.ImportPath}} {{.Imports}}' -deps ./cmd/lw-sim | grep -w testing")
	}
}
