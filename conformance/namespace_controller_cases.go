package conformance

// Cases for kube-controller-manager's namespace controller
// (pkg/controller/namespace and its deleter), run with it on: the fake's
// own (fakeapiserver controller_namespace.go) against the real one that
// realapiserver runs beside its kube-apiserver for the case.

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// namespaceController is kube-controller-manager's name of the controller
// (fakeapiserver.ControllerNamespace).
const namespaceController = "namespace-controller"

// namespaceControllerCases are the cases of this file, in the order [Cases] runs them.
func namespaceControllerCases() []Case {
	return []Case{
		{Name: "NamespaceDeletionController", Run: runNamespaceDeletionController, Controllers: []string{namespaceController}},
	}
}

// namespaceConditions are ns's status conditions as "Type Status Reason:
// Message", sorted (their times differ between servers).
func namespaceConditions(ns object) []string {
	st, _ := ns["status"].(map[string]any)
	cs, _ := st["conditions"].([]any)
	var out []string
	for _, c := range cs {
		m := c.(map[string]any)
		out = append(out, strings.Join([]string{m["type"].(string), m["status"].(string), m["reason"].(string) + ":", m["message"].(string)}, " "))
	}
	slices.Sort(out)
	return out
}

// runNamespaceDeletionController: a deleted namespace's content goes (a
// pod, ConfigMaps) but for what a finalizer holds; the namespace stays
// Terminating with the five deletion conditions naming what remains and
// which finalizer holds it; once that finalizer goes, the namespace goes.
func runNamespaceDeletionController(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := e.ns + "-del"
	e.createNamespace(ctx, name)
	cms := nsPath(name, "configmaps")
	for _, body := range []object{cm("plain", nil, "v"),
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": object{"name": "held", "finalizers": []any{"example.com/hold"}}}} {
		e.c.do(ctx, t, request{Method: http.MethodPost, Path: cms, Body: body}).mustCode(t, http.StatusCreated, "create configmap")
	}
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(name, "pods"), Body: pod("p", "", object{"name": "c", "image": "busybox"})}).
		mustCode(t, http.StatusCreated, "create pod")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: "/api/v1/namespaces/" + name}).mustCode(t, http.StatusOK, "delete namespace")

	want := []string{
		"NamespaceContentRemaining True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances",
		"NamespaceDeletionContentFailure False ContentDeleted: All content successfully deleted, may be waiting on finalization",
		"NamespaceDeletionDiscoveryFailure False ResourcesDiscovered: All resources successfully discovered",
		"NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions: All legacy kube types successfully parsed",
		"NamespaceFinalizersRemaining True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	var diff string
	var ns, plain, p object
	if !eventually(ctx, gcWait, func() bool {
		ns = e.getOK(ctx, "/api/v1/namespaces/"+name)
		diff = cmp.Diff(want, namespaceConditions(ns))
		plain, p = e.getOK(ctx, cms+"/plain"), e.getOK(ctx, nsPath(name, "pods")+"/p")
		return diff == "" && plain == nil && p == nil
	}) {
		t.Fatalf("the namespace's content and conditions within %v: namespace %v, configmap plain %v, pod p %v (-want +got conditions):\n%s",
			gcWait, ns != nil, plain != nil, p != nil, diff)
	}
	e.dropFinalizers(cms + "/held")
	if !eventually(ctx, gcWait, func() bool { return e.getOK(ctx, "/api/v1/namespaces/"+name) == nil }) {
		t.Fatalf("namespace %s still there %v after its last content went", name, gcWait)
	}
}
