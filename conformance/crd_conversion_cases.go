package conformance

// Cases for CRD conversion with `spec.conversion.strategy: Webhook`
// (apiextensions-apiserver pkg/apiserver/conversion webhook_converter.go,
// customresource_handler.go crdConversionRESTOptionsGetter): a CRD
// storing v1 (spec.size) and serving v2 (spec.count), whose conversion
// webhook this process serves (conversionWebhook). Reads through v2
// convert the stored objects, writes through v2 are converted to v1
// before they are stored, and a webhook that refuses or cannot be reached
// fails the request with the converter's error.

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// unreachableConversionURL is a conversion webhook nothing listens on.
const unreachableConversionURL = "https://127.0.0.1:1/convert"

// crdConversionCases are the cases of this file, in the order [Cases]
// runs them.
func crdConversionCases() []Case {
	return []Case{
		{Name: "CRConversionWebhookRead", Run: runCRConversionWebhookRead},
		{Name: "CRConversionWebhookWatch", Run: runCRConversionWebhookWatch},
		{Name: "CRConversionWebhookWrite", Run: runCRConversionWebhookWrite},
		{Name: "CRConversionWebhookFailure", Run: runCRConversionWebhookFailure},
		{Name: "CRConversionWebhookUnreachable", Run: runCRConversionWebhookUnreachable},
		{Name: "CRConversionWebhookWrongVersion", Run: runCRConversionWebhookWrongVersion},
		{Name: "CRConversionWebhookReviewV1beta1", Run: runCRConversionWebhookReviewV1beta1},
		{Name: "CRConversionWebhookFieldSelector", Run: runCRConversionWebhookFieldSelector},
		{Name: "CRConversionWebhookMissingService", Run: runCRConversionWebhookMissingService},
		{Name: "CRConversionWebhookAdmission", Run: runCRConversionWebhookAdmission},
	}
}

// conversionWebhook is an HTTPS CRD conversion webhook the conformance
// process serves on loopback, with its own CA. Each path answers one way:
//
//	/convert  converts Widgets between v1 (spec.size) and v2 (spec.count)
//	/fail     refuses: result Failure, message "no conversion today"
//	/wrong    answers Success with the objects as sent (not converted)
//
// It records every ConversionRequest, and the review's apiVersion, by
// path.
type conversionWebhook struct {
	srv *httptest.Server

	// mu guards seen and reviews.
	mu      sync.Mutex
	seen    map[string][]apiextensionsv1.ConversionRequest
	reviews map[string][]string // apiVersions of the reviews
}

// startConversionWebhook starts a conversion webhook that the test's
// cleanup stops.
func startConversionWebhook(t *testing.T) *conversionWebhook {
	t.Helper()
	wh := &conversionWebhook{seen: map[string][]apiextensionsv1.ConversionRequest{}, reviews: map[string][]string{}}
	wh.srv = httptest.NewTLSServer(http.HandlerFunc(wh.serve))
	t.Cleanup(wh.srv.Close)
	return wh
}

// serve answers one ConversionReview.
func (wh *conversionWebhook) serve(w http.ResponseWriter, r *http.Request) {
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not a ConversionReview", http.StatusBadRequest)
		return
	}
	req := review.Request
	wh.mu.Lock()
	wh.seen[r.URL.Path] = append(wh.seen[r.URL.Path], *req)
	wh.reviews[r.URL.Path] = append(wh.reviews[r.URL.Path], review.APIVersion)
	wh.mu.Unlock()
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	switch r.URL.Path {
	case "/fail":
		resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "no conversion today"}
	case "/wrong":
		resp.ConvertedObjects = req.Objects
	default:
		for _, raw := range req.Objects {
			out, err := convertWidget(raw.Raw, req.DesiredAPIVersion)
			if err != nil {
				resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
				resp.ConvertedObjects = nil
				break
			}
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
		}
	}
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// convertWidget converts one Widget to apiVersion: spec.size in v1,
// spec.count in v2.
func convertWidget(raw []byte, apiVersion string) ([]byte, error) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	from, to := "size", "count"
	if strings.HasSuffix(apiVersion, "/v1") {
		from, to = "count", "size"
	}
	if v, ok, _ := unstructured.NestedFieldCopy(u.Object, "spec", from); ok {
		unstructured.RemoveNestedField(u.Object, "spec", from)
		_ = unstructured.SetNestedField(u.Object, v, "spec", to)
	}
	u.SetAPIVersion(apiVersion)
	return u.MarshalJSON()
}

// seenReview is what a case compares of one ConversionRequest: the
// desired apiVersion and each object's apiVersion and name, and whether
// any object carried a resourceVersion.
type seenReview struct {
	Desired string
	Objects []string
	WithRV  bool
}

// requests returns the reviews path got so far for objects named in
// names (other cases' objects are left out).
func (wh *conversionWebhook) requests(path string, names ...string) []seenReview {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	var out []seenReview
	for _, req := range wh.seen[path] {
		s := seenReview{Desired: req.DesiredAPIVersion}
		for _, raw := range req.Objects {
			var u unstructured.Unstructured
			if u.UnmarshalJSON(raw.Raw) != nil {
				continue
			}
			for _, n := range names {
				if u.GetName() == n {
					s.Objects = append(s.Objects, u.GetAPIVersion()+" "+n)
					s.WithRV = s.WithRV || u.GetResourceVersion() != ""
				}
			}
		}
		if len(s.Objects) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// conversionCRDEnv is a case's namespace and its CRD of Widgets converted
// by a webhook.
type conversionCRDEnv struct {
	*crdEnv
}

// conversionCRD is a CRD of Widgets storing v1 (spec.size) and serving v2
// (spec.count) too, converted by the webhook at client.
func conversionCRD(group string, client object) object {
	version := func(name, field string, storage bool) object {
		return object{
			"name": name, "served": true, "storage": storage,
			"schema": object{"openAPIV3Schema": object{
				"type": "object",
				"properties": object{
					"spec": object{"type": "object", "properties": object{field: object{"type": "integer"}}},
				},
			}},
		}
	}
	return object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": object{"name": "widgets." + group},
		"spec": object{
			"group": group, "scope": "Namespaced",
			"names":    object{"plural": "widgets", "singular": "widget", "kind": "Widget"},
			"versions": []object{version("v1", "size", true), version("v2", "count", false)},
			"conversion": object{
				"strategy": "Webhook",
				"webhook":  object{"clientConfig": client, "conversionReviewVersions": []string{"v1"}},
			},
		},
	}
}

// setupConversionCRD creates the case's namespace and a conversionCRD
// whose webhook is client (conversionReviewVersions reviewVersions, by
// default v1), and waits until it is Established and served.
func setupConversionCRD(ctx context.Context, t *testing.T, target Target, client object, reviewVersions ...string) *conversionCRDEnv {
	t.Helper()
	return setupConversionCRDWith(ctx, t, target, client, func(crd object) {
		if reviewVersions != nil {
			crd["spec"].(object)["conversion"].(object)["webhook"].(object)["conversionReviewVersions"] = reviewVersions
		}
	})
}

// setupConversionCRDWith is setupConversionCRD with the CRD body changed
// by edit first.
func setupConversionCRDWith(ctx context.Context, t *testing.T, target Target, client object, edit func(crd object)) *conversionCRDEnv {
	t.Helper()
	e := setup(ctx, t, target)
	group := randomSuffix() + ".lwsim.example"
	ce := &crdEnv{env: e, group: group, name: "widgets." + group}
	crd := conversionCRD(group, client)
	edit(crd)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: crdPath, Body: crd})
	r.mustCode(t, http.StatusCreated, "create CRD "+ce.name)
	t.Cleanup(func() { deleteCRD(target, ce.name) })
	ce.waitEstablished(ctx)
	return &conversionCRDEnv{crdEnv: ce}
}

// clientConfig is a conversion webhook clientConfig for path on wh.
func (wh *conversionWebhook) clientConfig(path string) object {
	return object{
		"url":      wh.srv.URL + path,
		"caBundle": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wh.srv.Certificate().Raw}),
	}
}

// widgetsIn is the case's Widget collection in version v.
func (ce *conversionCRDEnv) widgetsIn(v string) string {
	return "/apis/" + ce.group + "/" + v + "/namespaces/" + ce.ns + "/widgets"
}

// createIn POSTs a Widget through version v with spec and returns the
// answer.
func (ce *conversionCRDEnv) createIn(ctx context.Context, v, name string, spec object) response {
	return ce.c.do(ctx, ce.t, request{Method: http.MethodPost, Path: ce.widgetsIn(v), Body: object{
		"apiVersion": ce.group + "/" + v, "kind": "Widget", "metadata": object{"name": name}, "spec": spec,
	}})
}

// widgetShape is what a case compares of a Widget: apiVersion, name and
// spec.
func widgetShape(o object) string {
	spec, _ := json.Marshal(o["spec"])
	av, _ := o["apiVersion"].(string)
	return av[strings.Index(av, "/")+1:] + " " + nameOf(o) + " " + string(spec)
}

// runCRConversionWebhookRead: an object created through the storage
// version v1 is read through v2 converted by the webhook (GET and LIST),
// and the webhook was only ever asked for v2 with the object as stored,
// in v1, without a resourceVersion; a read through v1 needs no
// conversion. (The real server's watch cache of v2 also converts the
// create as soon as it sees it; the fake converts when v2 is read.)
func runCRConversionWebhookRead(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/convert"))
	r := ce.createIn(ctx, "v1", "read", object{"size": 3})
	r.mustCode(t, http.StatusCreated, "create through v1")
	var o object
	r.decode(t, &o)
	if got := widgetShape(o); got != `v1 read {"size":3}` {
		t.Errorf("create through v1 answered %s", got)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2") + "/read"})
	r.mustCode(t, http.StatusOK, "get through v2")
	r.decode(t, &o)
	if got := widgetShape(o); got != `v2 read {"count":3}` {
		t.Errorf("get through v2 = %s, want the webhook's conversion", got)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2")})
	r.mustCode(t, http.StatusOK, "list through v2")
	var l struct {
		APIVersion string   `json:"apiVersion"`
		Items      []object `json:"items"`
	}
	r.decode(t, &l)
	var items []string
	for _, it := range l.Items {
		items = append(items, widgetShape(it))
	}
	if diff := cmp.Diff([]string{`v2 read {"count":3}`}, items); diff != "" || l.APIVersion != ce.group+"/v2" {
		t.Errorf("list through v2: apiVersion %s, items (-want +got):\n%s", l.APIVersion, diff)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/read"})
	r.mustCode(t, http.StatusOK, "get through v1")
	r.decode(t, &o)
	if got := widgetShape(o); got != `v1 read {"size":3}` {
		t.Errorf("get through v1 = %s", got)
	}
	got := wh.requests("/convert", "read")
	if len(got) == 0 {
		t.Fatalf("the webhook was never asked")
	}
	for _, s := range got {
		if diff := cmp.Diff(seenReview{Desired: ce.group + "/v2", Objects: []string{ce.group + "/v1 read"}}, s); diff != "" {
			t.Errorf("conversion request (-want +got):\n%s", diff)
		}
	}
}

// runCRConversionWebhookWatch: a watch through v2 gets the events of
// objects written through v1 converted (ADDED, MODIFIED, DELETED).
func runCRConversionWebhookWatch(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/convert"))
	r := ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2")})
	r.mustCode(t, http.StatusOK, "list through v2")
	var l list
	r.decode(t, &l)
	w := ce.c.watch(ctx, t, request{Path: ce.widgetsIn("v2"), Query: q("resourceVersion", l.Metadata.ResourceVersion)})
	defer w.stop()
	r = ce.createIn(ctx, "v1", "watched", object{"size": 1})
	r.mustCode(t, http.StatusCreated, "create through v1")
	var o object
	r.decode(t, &o)
	o["spec"] = object{"size": 2}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgetsIn("v1") + "/watched", Body: o})
	r.mustCode(t, http.StatusOK, "update through v1")
	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: ce.widgetsIn("v1") + "/watched"})
	r.mustCode(t, http.StatusOK, "delete through v1")
	var got []string
	for range 3 {
		ev := w.mustNext(ctx, "widget event")
		got = append(got, ev.Type+" "+widgetShape(ev.Object))
	}
	want := []string{`ADDED v2 watched {"count":1}`, `MODIFIED v2 watched {"count":2}`, `DELETED v2 watched {"count":2}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events through v2 (-want +got):\n%s", diff)
	}
}

// runCRConversionWebhookWrite: a create and an update through v2 are
// converted to the storage version v1 before they are stored (a read
// through v1 shows spec.size) and answered in v2; a dry-run create
// through v2 is converted to v1 and back too (the dry-run storage encodes
// and decodes its answer) and not stored.
func runCRConversionWebhookWrite(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/convert"))
	r := ce.createIn(ctx, "v2", "written", object{"count": 4})
	r.mustCode(t, http.StatusCreated, "create through v2")
	var o object
	r.decode(t, &o)
	if got := widgetShape(o); got != `v2 written {"count":4}` {
		t.Errorf("create through v2 answered %s", got)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/written"})
	r.mustCode(t, http.StatusOK, "get through v1")
	var stored object
	r.decode(t, &stored)
	if got := widgetShape(stored); got != `v1 written {"size":4}` {
		t.Errorf("stored (through v1) = %s, want the webhook's conversion to v1", got)
	}
	if !hasReview(wh.requests("/convert", "written"), seenReview{Desired: ce.group + "/v1", Objects: []string{ce.group + "/v2 written"}}) {
		t.Errorf("the webhook was not asked to convert the create to v1: %v", wh.requests("/convert", "written"))
	}
	o["spec"] = object{"count": 5}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgetsIn("v2") + "/written", Body: o})
	r.mustCode(t, http.StatusOK, "update through v2")
	r.decode(t, &o)
	if got := widgetShape(o); got != `v2 written {"count":5}` {
		t.Errorf("update through v2 answered %s", got)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/written"})
	r.mustCode(t, http.StatusOK, "get through v1")
	r.decode(t, &stored)
	if got := widgetShape(stored); got != `v1 written {"size":5}` {
		t.Errorf("stored after the update (through v1) = %s", got)
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgetsIn("v2"), Query: q("dryRun", "All"), Body: object{
		"apiVersion": ce.group + "/v2", "kind": "Widget", "metadata": object{"name": "dry"}, "spec": object{"count": 6},
	}})
	r.mustCode(t, http.StatusCreated, "dry-run create through v2")
	r.decode(t, &o)
	if got := widgetShape(o); got != `v2 dry {"count":6}` {
		t.Errorf("dry-run create through v2 answered %s", got)
	}
	dry := wh.requests("/convert", "dry")
	if !hasReview(dry, seenReview{Desired: ce.group + "/v1", Objects: []string{ce.group + "/v2 dry"}}) ||
		!hasReview(dry, seenReview{Desired: ce.group + "/v2", Objects: []string{ce.group + "/v1 dry"}}) {
		t.Errorf("a dry-run create is converted to v1 and back, as the dry-run storage encodes and decodes it; the webhook got %v", dry)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/dry"})
	r.mustCode(t, http.StatusNotFound, "get the dry-run create")
}

// hasReview reports whether want is among got.
func hasReview(got []seenReview, want seenReview) bool {
	for _, g := range got {
		if cmp.Equal(g, want) {
			return true
		}
	}
	return false
}

// runCRConversionWebhookFailure: a webhook that refuses (result Failure
// with a message) fails a GET and a DELETE through v2, which read the
// object from etcd (a 500 InternalError: the store cannot decode it), and
// a create through v2 (the converter's error as it is, a 500 without a
// reason, nothing stored); writes through the storage version need no
// conversion and succeed. (What a LIST, a WATCH, a read at
// resourceVersion=0 or a PATCH through v2 answer then depends on the
// state of the real server's v2 watch cache, which the failed conversion
// of the create's event leaves re-listing: they are not compared.)
func runCRConversionWebhookFailure(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/fail"))
	r := ce.createIn(ctx, "v1", "refused", object{"size": 1})
	r.mustCode(t, http.StatusCreated, "create through v1")
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2") + "/refused"})
	checkStatus(t, "get through v2", r, corruptObjectStatus(ce, "refused", "no conversion today"))
	r = ce.createIn(ctx, "v2", "refusedtoo", object{"count": 1})
	checkStatus(t, "create through v2", r, wantStatus(http.StatusInternalServerError, "",
		"conversion webhook for "+ce.group+"/v2, Kind=Widget failed: no conversion today", nil))
	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: ce.widgetsIn("v2") + "/refused"})
	checkStatus(t, "delete through v2", r, corruptObjectStatus(ce, "refused", "no conversion today"))
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/refusedtoo"})
	checkStatus(t, "get through v1 of the refused create", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		`widgets.`+ce.group+` "refusedtoo" not found`, &metav1.StatusDetails{Name: "refusedtoo", Group: ce.group, Kind: "widgets"}))
}

// runCRConversionWebhookUnreachable: a webhook nothing listens on fails a
// GET through v2 with the webhook client's dial error.
func runCRConversionWebhookUnreachable(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	cc := wh.clientConfig("/convert")
	cc["url"] = unreachableConversionURL
	ce := setupConversionCRD(ctx, t, target, cc)
	r := ce.createIn(ctx, "v1", "lost", object{"size": 1})
	r.mustCode(t, http.StatusCreated, "create through v1")
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2") + "/lost"})
	checkStatus(t, "get through v2", r, corruptObjectStatus(ce, "lost",
		`Post "`+unreachableConversionURL+`?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused`))
}

// corruptObjectStatus is a GET's answer when converting the stored
// object name failed with the webhook error msg: the etcd store cannot
// decode it, a corrupt object (AllowUnsafeMalformedObjectDeletion wraps
// the decoder), answered as an InternalError quoting the storage error.
// Digits are masked, so the revisions need not be known.
func corruptObjectStatus(ce *conversionCRDEnv, name, msg string) statusShape {
	storageErr := "StorageError: corrupt object, Code: 7, Key: /" + ce.group + "/widgets/" + ce.ns + "/" + name +
		", ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=0: conversion webhook for " +
		ce.group + "/v1, Kind=Widget failed: " + msg
	return wantStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: "+storageErr,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: storageErr}}})
}

// runCRConversionWebhookWrongVersion: a webhook that answers Success with
// the objects unconverted is refused by the converter: a create through
// v2 fails with its invalid-groupVersion error, a 500 without a reason.
func runCRConversionWebhookWrongVersion(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/wrong"))
	r := ce.createIn(ctx, "v2", "wrong", object{"count": 1})
	checkStatus(t, "create through v2", r, wantStatus(http.StatusInternalServerError, "",
		"conversion webhook for "+ce.group+"/v2, Kind=Widget returned invalid object at index 0: invalid groupVersion (expected "+
			ce.group+"/v1, received "+ce.group+"/v2)", nil))
}

// runCRConversionWebhookReviewV1beta1: with conversionReviewVersions
// [v1beta1] the webhook is sent apiextensions.k8s.io/v1beta1
// ConversionReviews, and its v1beta1 answers convert.
func runCRConversionWebhookReviewV1beta1(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, wh.clientConfig("/convert"), "v1beta1")
	r := ce.createIn(ctx, "v2", "beta", object{"count": 2})
	r.mustCode(t, http.StatusCreated, "create through v2")
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v1") + "/beta"})
	r.mustCode(t, http.StatusOK, "get through v1")
	var o object
	r.decode(t, &o)
	if got := widgetShape(o); got != `v1 beta {"size":2}` {
		t.Errorf("stored (through v1) = %s", got)
	}
	wh.mu.Lock()
	versions := append([]string(nil), wh.reviews["/convert"]...)
	wh.mu.Unlock()
	if len(versions) == 0 {
		t.Fatalf("the webhook was never asked")
	}
	for _, v := range versions {
		if v != "apiextensions.k8s.io/v1beta1" {
			t.Errorf("review apiVersion %q, want apiextensions.k8s.io/v1beta1", v)
		}
	}
}

// runCRConversionWebhookFieldSelector: a field selector on a
// selectableField of v2 (spec.count) is evaluated on the objects as
// converted to v2, in a LIST and a WATCH through v2.
func runCRConversionWebhookFieldSelector(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	ce := setupConversionCRDWith(ctx, t, target, wh.clientConfig("/convert"), func(crd object) {
		v2 := crd["spec"].(object)["versions"].([]object)[1]
		v2["selectableFields"] = []object{{"jsonPath": ".spec.count"}}
	})
	r := ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2")})
	r.mustCode(t, http.StatusOK, "list through v2")
	var l list
	r.decode(t, &l)
	w := ce.c.watch(ctx, t, request{Path: ce.widgetsIn("v2"), Query: q("resourceVersion", l.Metadata.ResourceVersion, "fieldSelector", "spec.count=3")})
	defer w.stop()
	for _, n := range []int{4, 3} {
		name := map[int]string{3: "three", 4: "four"}[n]
		r = ce.createIn(ctx, "v1", name, object{"size": n})
		r.mustCode(t, http.StatusCreated, "create "+name+" through v1")
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2"), Query: q("fieldSelector", "spec.count=3")})
	r.mustCode(t, http.StatusOK, "list through v2 with spec.count=3")
	var got struct {
		Items []object `json:"items"`
	}
	r.decode(t, &got)
	var items []string
	for _, it := range got.Items {
		items = append(items, widgetShape(it))
	}
	if diff := cmp.Diff([]string{`v2 three {"count":3}`}, items); diff != "" {
		t.Errorf("list through v2 with spec.count=3 (-want +got):\n%s", diff)
	}
	ev := w.mustNext(ctx, "watch through v2 with spec.count=3")
	if got := ev.Type + " " + widgetShape(ev.Object); got != `ADDED v2 three {"count":3}` {
		t.Errorf("watch through v2 with spec.count=3: first event %s", got)
	}
}

// runCRConversionWebhookMissingService: a webhook referenced by a service
// that does not exist fails a GET through v2 with the webhook client's
// error, which names the service's DNS name and the resolver's 404.
func runCRConversionWebhookMissingService(ctx context.Context, t *testing.T, target Target) {
	wh := startConversionWebhook(t)
	cc := wh.clientConfig("/convert")
	delete(cc, "url")
	ns := "default"
	cc["service"] = object{"namespace": ns, "name": "nosuchconverter", "path": "/convert"}
	ce := setupConversionCRD(ctx, t, target, cc)
	r := ce.createIn(ctx, "v1", "nosvc", object{"size": 1})
	r.mustCode(t, http.StatusCreated, "create through v1")
	r = ce.c.do(ctx, t, request{Path: ce.widgetsIn("v2") + "/nosvc"})
	checkStatus(t, "get through v2", r, corruptObjectStatus(ce, "nosvc",
		`Post "https://nosuchconverter.`+ns+`.svc:443/convert?timeout=30s": service "nosuchconverter" not found`))
}

// runCRConversionWebhookAdmission: a validating admission webhook whose
// rule names only v2 is called, under matchPolicy Equivalent, for a
// create through v1, and shown the object as the conversion webhook
// converts it to v2 (kind v2, requestKind v1).
func runCRConversionWebhookAdmission(ctx context.Context, t *testing.T, target Target) {
	conv := startConversionWebhook(t)
	ce := setupConversionCRD(ctx, t, target, conv.clientConfig("/convert"))
	wh := startWebhookServer(t)
	v2 := object{"operations": []string{"CREATE"}, "apiGroups": []string{ce.group}, "apiVersions": []string{"v2"}, "resources": []string{"widgets"}}
	installWebhooks(ctx, t, ce.env, wh, "validating", hook{name: "equivalent", path: "/allow", rules: []object{v2}})
	r := ce.createIn(ctx, "v1", "admitted", object{"size": 5})
	r.mustCode(t, http.StatusCreated, "create through v1")
	var got []string
	for _, req := range wh.requests("/allow", ce.ns) {
		var o object
		_ = json.Unmarshal(req.Object.Raw, &o)
		got = append(got, req.Kind.Version+" "+req.RequestKind.Version+" "+widgetShape(o))
	}
	if diff := cmp.Diff([]string{`v2 v1 v2 admitted {"count":5}`}, got); diff != "" {
		t.Errorf("admission requests (-want +got):\n%s", diff)
	}
}
