package fakeapiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// kubectlCRD is a CRD manifest as operators ship them.
const kubectlCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
              replicas: {type: integer, minimum: 0}
`

// kubectlCR is a Gadget.
const kubectlCR = `apiVersion: example.org/v1
kind: Gadget
metadata:
  name: g1
spec:
  size: 3
  replicas: 1
`

// TestKubectlCRD installs a CRD and a custom resource with kubectl create
// -f (validation on: kubectl posts with fieldValidation=Strict), reads it
// back through the printer columns and the short name, gets a schema error
// for an invalid one, and deletes the CRD.
func TestKubectlCRD(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, want := k.run(t, "create", "-f", write("crd.yaml", kubectlCRD)), "customresourcedefinition.apiextensions.k8s.io/gadgets.example.org created\n"; got != want {
		t.Fatalf("kubectl create -f crd.yaml = %q, want %q", got, want)
	}
	if got, want := k.run(t, "create", "-f", write("cr.yaml", kubectlCR)), "gadget.example.org/g1 created\n"; got != want {
		t.Fatalf("kubectl create -f cr.yaml = %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(k.run(t, "get", "gd")), "\n")
	var fields [][]string
	for _, l := range lines {
		fields = append(fields, strings.Fields(l))
	}
	if diff := cmp.Diff([][]string{{"NAME", "SIZE"}, {"g1", "3"}}, fields); diff != "" {
		t.Errorf("kubectl get gd (-want +got):\n%s", diff)
	}
	if got, want := k.run(t, "scale", "gadget/g1", "--replicas=4"), "gadget.example.org/g1 scaled\n"; got != want {
		t.Errorf("kubectl scale = %q, want %q", got, want)
	}
	if got := k.run(t, "get", "gadget", "g1", "-o", "jsonpath={.spec.replicas}"); got != "4" {
		t.Errorf("spec.replicas after kubectl scale = %q, want 4", got)
	}
	applied := strings.Replace(kubectlCR, "size: 3", "size: 5", 1)
	if got, want := k.run(t, "apply", "--server-side", "--force-conflicts", "-f", write("apply.yaml", applied)), "gadget.example.org/g1 serverside-applied\n"; got != want {
		t.Errorf("kubectl apply --server-side = %q, want %q", got, want)
	}
	if got := k.run(t, "get", "gadget", "g1", "-o", "jsonpath={.spec.size}"); got != "5" {
		t.Errorf("spec.size after kubectl apply --server-side = %q, want 5", got)
	}
	bad := strings.Replace(strings.Replace(kubectlCR, "g1", "g2", 1), "size: 3", "size: 30", 1)
	if out, err := k.runErr(t, "create", "-f", write("bad.yaml", bad)); err == nil ||
		!strings.Contains(out, `The Gadget "g2" is invalid: spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10`) {
		t.Errorf("kubectl create -f bad.yaml = %v, %q; want the schema error", err, out)
	}
	if got := k.run(t, "delete", "crd", "gadgets.example.org"); !strings.HasPrefix(got, `customresourcedefinition.apiextensions.k8s.io "gadgets.example.org" deleted`) {
		t.Errorf("kubectl delete crd = %q", got)
	}
	// kubectl's cached discovery still knows the resource: the LIST is a
	// 404 (a fresh discovery would not find the type at all).
	if out, err := k.runErr(t, "get", "gadgets"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("kubectl get gadgets after the CRD is deleted = %v, %q; want NotFound", err, out)
	}
}

// runErr runs kubectl expecting it may fail; it returns stdout and stderr
// together and the exit error.
func (k *kubectl) runErr(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	out, err := k.command(ctx, args...).CombinedOutput()
	return string(out), err
}
