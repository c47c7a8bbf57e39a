package conformance

// Cases for metadata.resourceVersion in a create body. etcd3's store
// refuses a create whose resourceVersion the APIObjectVersioner reads as a
// non-zero number (apiserver pkg/storage/etcd3/store.go Create,
// storage.ErrResourceVersionSetOnCreate); anything else is overwritten by
// the stored one. A dry run never reaches etcd (registry/generic/
// registry/dryrun.go DryRunnableStorage.Create): it answers the object
// with the resourceVersion it was given.

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// createRvCases are the cases of this file, in the order [Cases] runs them.
func createRvCases() []Case {
	return []Case{
		{Name: "CreateWithUnparsableRV", Run: runCreateWithUnparsableRV},
		{Name: "DryRunCreateWithRV", Run: runDryRunCreateWithRV},
	}
}

// cmWithRV is a ConfigMap body named name with metadata.resourceVersion rv.
func cmWithRV(name, rv string) object {
	body := cm(name, nil, "v")
	body["metadata"].(object)["resourceVersion"] = rv
	return body
}

// runCreateWithUnparsableRV: a create whose resourceVersion is not a
// positive decimal number ("abc", "0", "-1", " 7") is stored at a fresh
// resourceVersion; a positive one, leading zeros included, is the 500.
func runCreateWithUnparsableRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for i, rv := range []string{"abc", "0", "-1", " 7"} {
		name := "ok-" + string(rune('a'+i))
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cmWithRV(name, rv)})
		r.mustCode(t, http.StatusCreated, "create with resourceVersion "+rv)
		var o object
		r.decode(t, &o)
		if got := rvOf(t, o); itoa(got) == rv {
			t.Errorf("create with resourceVersion %q stored at %d, want a fresh resourceVersion", rv, got)
		}
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cmWithRV("bad", "007")})
	checkStatus(t, "create with resourceVersion 007", r, wantStatus(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created", nil))
}

// runDryRunCreateWithRV: a dry-run create with a resourceVersion, numeric
// or not, is 201 and answers it as given; nothing is stored; a taken name
// is still 409.
func runDryRunCreateWithRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, rv := range []string{"5", "abc"} {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: dryRun(), Body: cmWithRV("a", rv)})
		r.mustCode(t, http.StatusCreated, "dry-run create with resourceVersion "+rv)
		var o object
		r.decode(t, &o)
		if got := metaOf(o)["resourceVersion"]; got != rv {
			t.Errorf("dry-run create with resourceVersion %q answers resourceVersion %v, want it as given", rv, got)
		}
	}
	checkStatus(t, "get after the dry runs", e.c.do(ctx, t, request{Path: e.cms() + "/a"}), notFound("a"))
	e.createN(ctx, "b")
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: dryRun(), Body: cmWithRV("b", "5")})
	checkStatus(t, "dry-run create of a taken name with a resourceVersion", r, wantStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		`configmaps "b" already exists`, &metav1.StatusDetails{Name: "b", Kind: "configmaps"}))
}
