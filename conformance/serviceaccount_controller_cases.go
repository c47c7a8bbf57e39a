package conformance

// Cases for kube-controller-manager's service account controller
// (pkg/controller/serviceaccount), run with it on: the fake's own
// (fakeapiserver controller_serviceaccount.go) against the real one that
// realapiserver runs beside its kube-apiserver for the case.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// serviceAccountController is kube-controller-manager's name of the
// controller (fakeapiserver.ControllerServiceAccount).
const serviceAccountController = "serviceaccount-controller"

// serviceaccountControllerCases are the cases of this file, in the order [Cases] runs them.
func serviceaccountControllerCases() []Case {
	return []Case{
		{Name: "ServiceAccountDefault", Run: runServiceAccountDefault, Controllers: []string{serviceAccountController}},
	}
}

// runServiceAccountDefault: a new namespace gets the ServiceAccount
// "default" (nothing but its name: no managedFields entry either, as it
// sets no field); a deleted one comes back.
func runServiceAccountDefault(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := nsPath(e.ns, "serviceaccounts") + "/default"
	await := func(what string) object {
		t.Helper()
		var sa object
		if !eventually(ctx, gcWait, func() bool { sa = e.getOK(ctx, path); return sa != nil }) {
			t.Fatalf("%s: no ServiceAccount default in %s within %v", what, e.ns, gcWait)
		}
		return sa
	}
	sa := await("new namespace")
	md := metaOf(sa)
	var managers []any
	mfs, _ := md["managedFields"].([]any)
	for _, m := range mfs {
		managers = append(managers, m.(map[string]any)["manager"])
	}
	got := object{"name": md["name"], "labels": md["labels"], "annotations": md["annotations"], "managers": managers,
		"secrets": sa["secrets"], "automount": sa["automountServiceAccountToken"]}
	want := object{"name": "default", "labels": nil, "annotations": nil, "managers": []any(nil), "secrets": nil, "automount": nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the default ServiceAccount (-want +got):\n%s", diff)
	}
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: path}).mustCode(t, http.StatusOK, "delete the default ServiceAccount")
	await("after its delete")
}
