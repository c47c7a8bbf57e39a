package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// crdCases are the cases of this file, in the order [Cases] runs them.
func crdCases() []Case {
	return []Case{
		{Name: "CRDEstablished", Run: runCRDEstablished},
		{Name: "CRDDiscovery", Run: runCRDDiscovery},
		{Name: "CRDInvalid", Run: runCRDInvalid},
		{Name: "CRCRUD", Run: runCRCRUD},
		{Name: "CRValidation", Run: runCRValidation},
		{Name: "CRStatusSubresource", Run: runCRStatusSubresource},
		{Name: "CRListPaging", Run: runCRListPaging},
		{Name: "CRWatchEvents", Run: runCRWatchEvents},
		{Name: "CRDDeleteDeletesCRs", Run: runCRDDeleteDeletesCRs},
		{Name: "CRTable", Run: runCRTable},
		{Name: "CRScale", Run: runCRScale},
		{Name: "CRClusterScoped", Run: runCRClusterScoped},
		{Name: "CRDUpdateAddsVersion", Run: runCRDUpdateAddsVersion},
		{Name: "CRDDeleteWaitsForFinalizers", Run: runCRDDeleteWaitsForFinalizers},
		{Name: "CRApply", Run: runCRApply},
	}
}

// CustomResourceDefinition cases: each creates its own CRD in a group of
// its own (letters only, see maskRVs), waits for Established the way a
// client must on a real server (the controllers set it asynchronously
// there), and deletes it when the test ends. Custom resources are
// namespaced and live in the case's namespace.

// establishTimeout bounds the wait for a new CRD to be Established and
// served, and for a deleted one to be gone.
const establishTimeout = 30 * time.Second

// crdEnv is a case's namespace and CRD.
type crdEnv struct {
	*env
	group string
	name  string // the CRD's name: widgets.<group>
}

// crdPath is the CRD collection.
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// widgetCRD is the CRD body of a case: v1 (storage) with a structural
// schema (a default, a maximum), the status subresource, a printer column
// and a selectable field; v1beta1 served too, preserving unknown fields.
func widgetCRD(group string) object {
	integer := func(extra object) object {
		o := object{"type": "integer"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	return object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": object{"name": "widgets." + group},
		"spec": object{
			"group": group, "scope": "Namespaced",
			"names": object{"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": []string{"wdg"}, "categories": []string{"lwsim"}},
			"versions": []object{
				{
					"name": "v1", "served": true, "storage": true,
					"subresources": object{"status": object{}, "scale": object{
						"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector",
					}},
					"additionalPrinterColumns": []object{{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}},
					"selectableFields":         []object{{"jsonPath": ".spec.color"}},
					"schema": object{"openAPIV3Schema": object{
						"type": "object",
						"properties": object{
							"spec": object{"type": "object", "properties": object{
								"size":     integer(object{"maximum": 10, "default": 1}),
								"color":    object{"type": "string"},
								"replicas": integer(object{"minimum": 0}),
							}},
							"status": object{"type": "object", "properties": object{"replicas": integer(nil), "selector": object{"type": "string"}}},
						},
					}},
				},
				{
					"name": "v1beta1", "served": true, "storage": false,
					"schema": object{"openAPIV3Schema": object{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				},
			},
		},
	}
}

// setupCRD creates the case's namespace and CRD and waits until the CRD is
// Established and its resource answers a LIST.
func setupCRD(ctx context.Context, t *testing.T, target Target) *crdEnv {
	t.Helper()
	e := setup(ctx, t, target)
	group := randomSuffix() + ".lwsim.example"
	ce := &crdEnv{env: e, group: group, name: "widgets." + group}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: crdPath, Body: widgetCRD(group)})
	r.mustCode(t, http.StatusCreated, "create CRD "+ce.name)
	t.Cleanup(func() { deleteCRD(target, ce.name) })
	ce.waitEstablished(ctx)
	return ce
}

// deleteCRD deletes a CRD with a fresh client, best effort.
func deleteCRD(target Target, name string) {
	c := &client{target: target}
	cfg := target.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return
	}
	c.base, c.http = baseURL(cfg), hc
	req, err := c.newHTTPRequest(context.Background(), request{Method: http.MethodDelete, Path: crdPath + "/" + name})
	if err != nil {
		return
	}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// crd GETs the case's CRD.
func (ce *crdEnv) crd(ctx context.Context) (object, int) {
	r := ce.c.do(ctx, ce.t, request{Path: crdPath + "/" + ce.name})
	var o object
	if r.Code == http.StatusOK {
		r.decode(ce.t, &o)
	}
	return o, r.Code
}

// waitEstablished waits for the Established condition and a served
// resource.
func (ce *crdEnv) waitEstablished(ctx context.Context) {
	ce.t.Helper()
	ok := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		o, code := ce.crd(ctx)
		if code != http.StatusOK || conditionStatus(o, "Established") != "True" {
			return false
		}
		r := ce.c.do(ctx, ce.t, request{Path: ce.widgets()})
		ok = r.Code == http.StatusOK
		return ok
	})
	if !ok {
		ce.t.Fatalf("CRD %s not Established and served within %v", ce.name, establishTimeout)
	}
}

// conditionStatus returns the status of a CRD condition, "" if absent.
func conditionStatus(crd object, typ string) string {
	for _, c := range conditions(crd) {
		if c["type"] == typ {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}

// conditions returns a CRD's status.conditions.
func conditions(crd object) []object {
	st, _ := crd["status"].(object)
	raw, _ := st["conditions"].([]any)
	out := make([]object, 0, len(raw))
	for _, c := range raw {
		if m, ok := c.(object); ok {
			out = append(out, m)
		}
	}
	return out
}

// widgets is the case's Widget collection in version v1.
func (ce *crdEnv) widgets() string {
	return "/apis/" + ce.group + "/v1/namespaces/" + ce.ns + "/widgets"
}

// widget is a Widget body.
func (ce *crdEnv) widget(name string, spec object) object {
	return object{"apiVersion": ce.group + "/v1", "kind": "Widget", "metadata": object{"name": name}, "spec": spec}
}

// createWidget POSTs a Widget and returns the stored object.
func (ce *crdEnv) createWidget(ctx context.Context, name string, spec object) object {
	ce.t.Helper()
	r := ce.c.do(ctx, ce.t, request{Method: http.MethodPost, Path: ce.widgets(), Body: ce.widget(name, spec)})
	r.mustCode(ce.t, http.StatusCreated, "create widget "+name)
	var o object
	r.decode(ce.t, &o)
	return o
}

// runCRDEstablished: a new CRD answers 201 without conditions; the
// controllers then accept its names (NamesAccepted NoConflicts) and
// establish it (Established InitialNamesAccepted); storedVersions holds the
// storage version and conversion defaults to None.
func runCRDEstablished(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	o, _ := ce.crd(ctx)
	type cond struct{ Type, Status, Reason, Message string }
	var got []cond
	for _, c := range conditions(o) {
		got = append(got, cond{c["type"].(string), c["status"].(string), c["reason"].(string), c["message"].(string)})
	}
	want := []cond{
		{"NamesAccepted", "True", "NoConflicts", "no conflicts found"},
		{"Established", "True", "InitialNamesAccepted", "the initial names have been accepted"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	st := o["status"].(object)
	spec := o["spec"].(object)
	if diff := cmp.Diff(spec["names"], st["acceptedNames"]); diff != "" {
		t.Errorf("acceptedNames differ from spec.names (-spec +status):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"v1"}, st["storedVersions"]); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(object{"strategy": "None"}, spec["conversion"]); diff != "" {
		t.Errorf("conversion (-want +got):\n%s", diff)
	}
	if metaOf(o)["generation"] != float64(1) {
		t.Errorf("generation = %v, want 1", metaOf(o)["generation"])
	}
}

// runCRDDiscovery: the CRD's group and versions appear in /apis/<group>
// and /apis/<group>/<version> with its names, short names, categories and
// the status subresource.
func runCRDDiscovery(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	var g metav1.APIGroup
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		r := ce.c.do(ctx, t, request{Path: "/apis/" + ce.group})
		return r.Code == http.StatusOK && decodeBody(r, &g) == nil && len(g.Versions) == 2
	})
	wantGroup := metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     ce.group,
		Versions: []metav1.GroupVersionForDiscovery{
			{GroupVersion: ce.group + "/v1", Version: "v1"},
			{GroupVersion: ce.group + "/v1beta1", Version: "v1beta1"},
		},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: ce.group + "/v1", Version: "v1"},
	}
	if diff := cmp.Diff(wantGroup, g); diff != "" {
		t.Errorf("/apis/%s (-want +got):\n%s", ce.group, diff)
	}
	var l metav1.APIResourceList
	r := ce.c.do(ctx, t, request{Path: "/apis/" + ce.group + "/v1"})
	r.mustCode(t, http.StatusOK, "discovery of v1")
	r.decode(t, &l)
	for i := range l.APIResources {
		l.APIResources[i].StorageVersionHash = "" // opaque
	}
	verbs := metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	want := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: ce.group + "/v1",
		APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: verbs, ShortNames: []string{"wdg"}, Categories: []string{"lwsim"}},
			{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: metav1.Verbs{"get", "patch", "update"}},
			{Name: "widgets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}},
		},
	}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("/apis/%s/v1 (-want +got):\n%s", ce.group, diff)
	}
}

// decodeBody decodes a response body.
func decodeBody(r response, v any) error { return json.Unmarshal(r.Body, v) }

// runCRDInvalid: a CRD whose name is not <plural>.<group> is 422 with the
// apiextensions validation message.
func runCRDInvalid(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	group := randomSuffix() + ".lwsim.example"
	body := widgetCRD(group)
	body["metadata"] = object{"name": "wrong." + group}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: crdPath, Body: body})
	if r.Code == http.StatusCreated {
		deleteCRD(target, "wrong."+group)
	}
	msg := `CustomResourceDefinition.apiextensions.k8s.io "wrong.` + group + `" is invalid: metadata.name: Invalid value: "wrong.` + group + `": must be spec.names.plural+"."+spec.group`
	checkStatus(t, "create invalid CRD", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, msg, &metav1.StatusDetails{
		Name: "wrong." + group, Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition",
		Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "wrong.` + group + `": must be spec.names.plural+"."+spec.group`, Field: "metadata.name"}},
	}))
}

// runCRCRUD: custom resources are created (unknown fields pruned with a
// warning, defaults applied, status dropped, generation 1), read, updated
// (generation bumps on spec changes), merge- and JSON-patched, read
// through another served version, and deleted; strategic merge is 415.
func runCRCRUD(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	body := ce.widget("a", object{"color": "red", "junk": "x"})
	body["status"] = object{"replicas": 3}
	r := ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Body: body})
	r.mustCode(t, http.StatusCreated, "create widget")
	if got := r.Header.Values("Warning"); !cmp.Equal(got, []string{`299 - "unknown field \"spec.junk\""`}) {
		t.Errorf("Warning headers = %q, want the unknown field", got)
	}
	var o object
	r.decode(t, &o)
	if diff := cmp.Diff(object{"color": "red", "size": float64(1)}, o["spec"]); diff != "" {
		t.Errorf("created spec (-want +got):\n%s", diff)
	}
	if o["status"] != nil || metaOf(o)["generation"] != float64(1) {
		t.Errorf("created status %v generation %v, want none and 1", o["status"], metaOf(o)["generation"])
	}

	o["spec"] = object{"color": "blue", "size": 2}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a", Body: o})
	r.mustCode(t, http.StatusOK, "update widget")
	r.decode(t, &o)
	if metaOf(o)["generation"] != float64(2) {
		t.Errorf("generation after a spec update = %v, want 2", metaOf(o)["generation"])
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a", ContentType: "application/merge-patch+json", Body: object{"metadata": object{"labels": object{"k": "v"}}}})
	r.mustCode(t, http.StatusOK, "merge patch labels")
	r.decode(t, &o)
	if metaOf(o)["generation"] != float64(2) {
		t.Errorf("generation after a metadata patch = %v, want 2", metaOf(o)["generation"])
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a", ContentType: "application/json-patch+json", Body: []object{{"op": "replace", "path": "/spec/size", "value": 4}}})
	r.mustCode(t, http.StatusOK, "json patch")
	r.decode(t, &o)
	if size := o["spec"].(object)["size"]; size != float64(4) || metaOf(o)["generation"] != float64(3) {
		t.Errorf("after json patch: size %v generation %v, want 4 and 3", size, metaOf(o)["generation"])
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a", ContentType: "application/strategic-merge-patch+json", Body: object{}})
	if r.Code != http.StatusUnsupportedMediaType {
		t.Errorf("strategic merge patch: code %d, want 415; body %s", r.Code, r.Body)
	}

	beta := strings.Replace(ce.widgets(), "/v1/", "/v1beta1/", 1)
	r = ce.c.do(ctx, t, request{Path: beta + "/a"})
	r.mustCode(t, http.StatusOK, "get through v1beta1")
	r.decode(t, &o)
	if o["apiVersion"] != ce.group+"/v1beta1" {
		t.Errorf("apiVersion through v1beta1 = %v", o["apiVersion"])
	}

	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: ce.widgets() + "/a"})
	r.mustCode(t, http.StatusOK, "delete widget")
	r = ce.c.do(ctx, t, request{Path: ce.widgets() + "/a"})
	checkStatus(t, "get deleted widget", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		`widgets.`+ce.group+` "a" not found`, &metav1.StatusDetails{Name: "a", Group: ce.group, Kind: "widgets"}))
}

// runCRValidation: a value the schema forbids is 422 with the
// apiextensions message and cause; an unknown field under
// fieldValidation=Strict is 400.
func runCRValidation(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	r := ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Body: ce.widget("big", object{"size": 11})})
	checkStatus(t, "create too big", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`Widget.`+ce.group+` "big" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`,
		&metav1.StatusDetails{Name: "big", Group: ce.group, Kind: "Widget", Causes: []metav1.StatusCause{{
			Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 11: spec.size in body should be less than or equal to 10", Field: "spec.size",
		}}}))
	r = ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Query: q("fieldValidation", "Strict"), Body: ce.widget("strict", object{"junk": 1})})
	checkStatus(t, "create strict with an unknown field", r, wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.junk"`, nil))
	r = ce.c.do(ctx, t, request{Path: ce.widgets(), Query: q("fieldSelector", "spec.size=1")})
	checkStatus(t, "list with an unselectable field", r, wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"field label not supported: spec.size", nil))
}

// runCRStatusSubresource: with the status subresource, the main resource
// ignores status and /status ignores everything but status; only spec
// changes bump the generation.
func runCRStatusSubresource(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	o := ce.createWidget(ctx, "a", object{"size": 2})
	o["status"] = object{"replicas": 5}
	r := ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a/status", Body: o})
	r.mustCode(t, http.StatusOK, "update status")
	r.decode(t, &o)
	if diff := cmp.Diff(object{"replicas": float64(5)}, o["status"]); diff != "" || metaOf(o)["generation"] != float64(1) {
		t.Errorf("after /status: generation %v, status (-want +got):\n%s", metaOf(o)["generation"], diff)
	}
	o["status"] = object{"replicas": 7}
	o["spec"] = object{"size": 3}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a", Body: o})
	r.mustCode(t, http.StatusOK, "update main resource")
	r.decode(t, &o)
	if diff := cmp.Diff(object{"replicas": float64(5)}, o["status"]); diff != "" || metaOf(o)["generation"] != float64(2) {
		t.Errorf("after a main update: generation %v, status (-want +got):\n%s", metaOf(o)["generation"], diff)
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a/status", ContentType: "application/merge-patch+json",
		Body: object{"spec": object{"size": 9}, "status": object{"replicas": 6}}})
	r.mustCode(t, http.StatusOK, "patch status")
	r.decode(t, &o)
	if size := o["spec"].(object)["size"]; size != float64(3) || o["status"].(object)["replicas"] != float64(6) {
		t.Errorf("after a /status patch: spec.size %v status %v, want 3 and replicas 6", size, o["status"])
	}
}

// runCRListPaging: custom resources page like built-ins: limit, continue,
// remainingItemCount, one RV for all pages; a selectable field filters.
func runCRListPaging(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		color := "red"
		if n == "c" {
			color = "blue"
		}
		ce.createWidget(ctx, n, object{"color": color})
	}
	get := func(query ...string) list {
		r := ce.c.do(ctx, t, request{Path: ce.widgets(), Query: q(query...)})
		r.mustCode(t, http.StatusOK, "list widgets "+q(query...).Encode())
		var l list
		r.decode(t, &l)
		return l
	}
	p1 := get("limit", "2")
	p2 := get("limit", "2", "continue", p1.Metadata.Continue)
	p3 := get("limit", "2", "continue", p2.Metadata.Continue)
	type page struct {
		Kind      string
		Names     []string
		Continue  bool
		Remaining *int64
	}
	pageOf := func(l list) page {
		return page{l.Kind, l.names(), l.Metadata.Continue != "", l.Metadata.RemainingItemCount}
	}
	three, one := int64(3), int64(1)
	want := []page{{"WidgetList", []string{"a", "b"}, true, &three}, {"WidgetList", []string{"c", "d"}, true, &one}, {"WidgetList", []string{"e"}, false, nil}}
	if diff := cmp.Diff(want, []page{pageOf(p1), pageOf(p2), pageOf(p3)}); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if p1.Metadata.ResourceVersion != p3.Metadata.ResourceVersion {
		t.Errorf("page RVs %s and %s differ", p1.Metadata.ResourceVersion, p3.Metadata.ResourceVersion)
	}
	if it := p1.Items[0]; it["kind"] != "Widget" || it["apiVersion"] != ce.group+"/v1" {
		t.Errorf("list item kind/apiVersion = %v/%v, want Widget/%s/v1 (custom resources keep them)", it["kind"], it["apiVersion"], ce.group)
	}
	if got := get("fieldSelector", "spec.color=blue").names(); !cmp.Equal(got, []string{"c"}) {
		t.Errorf("fieldSelector spec.color=blue = %v, want [c]", got)
	}
}

// runCRWatchEvents: a watch from a list's RV sees ADDED, MODIFIED and
// DELETED for custom resources, with their apiVersion and kind.
func runCRWatchEvents(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	r := ce.c.do(ctx, t, request{Path: ce.widgets()})
	r.mustCode(t, http.StatusOK, "list widgets")
	var l list
	r.decode(t, &l)
	w := ce.c.watch(ctx, t, request{Path: ce.widgets(), Query: q("watch", "1", "resourceVersion", l.Metadata.ResourceVersion)})
	defer w.stop()
	o := ce.createWidget(ctx, "a", object{"size": 2})
	o["spec"] = object{"size": 3}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a", Body: o})
	r.mustCode(t, http.StatusOK, "update widget")
	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: ce.widgets() + "/a"})
	r.mustCode(t, http.StatusOK, "delete widget")
	var got []string
	for range 3 {
		ev := w.mustNext(ctx, "widget event")
		got = append(got, ev.Type+" "+nameOf(ev.Object)+" "+ev.Object["kind"].(string))
	}
	if diff := cmp.Diff([]string{"ADDED a Widget", "MODIFIED a Widget", "DELETED a Widget"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// runCRDDeleteDeletesCRs: deleting a CRD marks it (finalizer
// customresourcecleanup, Terminating), deletes every custom resource (a
// watch sees DELETED for each, then the server ends it) and then the CRD;
// its resource is gone (404).
func runCRDDeleteDeletesCRs(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "a", nil)
	ce.createWidget(ctx, "b", nil)
	r := ce.c.do(ctx, t, request{Path: ce.widgets()})
	r.mustCode(t, http.StatusOK, "list widgets")
	var l list
	r.decode(t, &l)
	w := ce.c.watch(ctx, t, request{Path: ce.widgets(), Query: q("watch", "1", "resourceVersion", l.Metadata.ResourceVersion)})
	defer w.stop()

	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: crdPath + "/" + ce.name})
	r.mustCode(t, http.StatusOK, "delete CRD")
	var marked object
	r.decode(t, &marked)
	if fin := metaOf(marked)["finalizers"]; !cmp.Equal(fin, []any{"customresourcecleanup.apiextensions.k8s.io"}) || metaOf(marked)["deletionTimestamp"] == nil {
		t.Errorf("delete answer: finalizers %v deletionTimestamp %v, want the cleanup finalizer and a timestamp", fin, metaOf(marked)["deletionTimestamp"])
	}
	if got := conditionStatus(marked, "Terminating"); got != "True" {
		t.Errorf("delete answer: Terminating = %q, want True", got)
	}

	var got []string
	ended := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		ev, ok, closed := w.next(ctx, 0)
		if closed {
			ended = true
			return true
		}
		if ok {
			got = append(got, ev.Type+" "+nameOf(ev.Object))
		}
		return false
	})
	if diff := cmp.Diff([]string{"DELETED a", "DELETED b"}, got); diff != "" || !ended {
		t.Errorf("watch until it ended (ended: %v), events (-want +got):\n%s", ended, diff)
	}

	gone := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		_, code := ce.crd(ctx)
		gone = code == http.StatusNotFound
		return gone
	})
	if !gone {
		t.Fatalf("CRD %s still there %v after its delete", ce.name, establishTimeout)
	}
	if r := ce.c.do(ctx, t, request{Path: ce.widgets()}); r.Code != http.StatusNotFound {
		t.Errorf("list widgets after the CRD is gone: %d, want 404", r.Code)
	}
	if r := ce.c.do(ctx, t, request{Path: "/apis/" + ce.group + "/v1"}); r.Code != http.StatusNotFound {
		t.Errorf("discovery of the group after the CRD is gone: %d, want 404", r.Code)
	}
}

// runCRTable: a Table of custom resources has the CRD's printer columns.
func runCRTable(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "a", object{"size": 4})
	r := ce.c.do(ctx, t, request{Path: ce.widgets(), Accept: "application/json;as=Table;v=v1;g=meta.k8s.io"})
	r.mustCode(t, http.StatusOK, "list widgets as Table")
	var table metav1.Table
	r.decode(t, &table)
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name+":"+c.Type)
	}
	if diff := cmp.Diff([]string{"Name:string", "Size:integer"}, cols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 || !cmp.Equal(table.Rows[0].Cells, []any{"a", float64(4)}) {
		t.Errorf("rows = %v, want one row [a 4]", table.Rows)
	}
}

// runCRScale: the scale subresource reads an autoscaling/v1 Scale from the
// CRD's paths (500 while the object has no spec replicas), and a write
// sets spec.replicas (generation bumps), validated by the CRD's schema.
func runCRScale(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "none", nil)
	r := ce.c.do(ctx, t, request{Path: ce.widgets() + "/none/scale"})
	checkStatus(t, "scale without spec replicas", r, wantStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		`Internal error occurred: the spec replicas field ".spec.replicas" does not exist`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: `the spec replicas field ".spec.replicas" does not exist`}}}))

	o := ce.createWidget(ctx, "a", object{"replicas": 2})
	o["status"] = object{"replicas": 1, "selector": "app=a"}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a/status", Body: o})
	r.mustCode(t, http.StatusOK, "update status")
	r = ce.c.do(ctx, t, request{Path: ce.widgets() + "/a/scale"})
	r.mustCode(t, http.StatusOK, "get scale")
	var scale object
	r.decode(t, &scale)
	md := metaOf(scale)
	got := object{"apiVersion": scale["apiVersion"], "kind": scale["kind"], "name": md["name"], "namespace": md["namespace"], "spec": scale["spec"], "status": scale["status"]}
	want := object{"apiVersion": "autoscaling/v1", "kind": "Scale", "name": "a", "namespace": ce.ns,
		"spec": object{"replicas": float64(2)}, "status": object{"replicas": float64(1), "selector": "app=a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scale (-want +got):\n%s", diff)
	}
	scale["spec"] = object{"replicas": 5}
	r = ce.c.do(ctx, t, request{Method: http.MethodPut, Path: ce.widgets() + "/a/scale", Body: scale})
	r.mustCode(t, http.StatusOK, "update scale")
	r = ce.c.do(ctx, t, request{Path: ce.widgets() + "/a"})
	r.mustCode(t, http.StatusOK, "get widget")
	r.decode(t, &o)
	if o["spec"].(object)["replicas"] != float64(5) || metaOf(o)["generation"] != float64(2) {
		t.Errorf("after a scale update: spec %v generation %v, want replicas 5 and generation 2", o["spec"], metaOf(o)["generation"])
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a/scale", ContentType: "application/merge-patch+json", Body: object{"spec": object{"replicas": -1}}})
	// The schema's minimum and the scale validation of specReplicasPath
	// both report it.
	checkStatus(t, "negative replicas through scale", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`Widget.`+ce.group+` "a" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]`,
		&metav1.StatusDetails{Name: "a", Group: ce.group, Kind: "Widget", Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: -1: spec.replicas in body should be greater than or equal to 0", Field: "spec.replicas"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: -1: should be a non-negative integer", Field: ".spec.replicas"},
		}}))
}

// runCRClusterScoped: a cluster-scoped CRD's objects live outside
// namespaces: created and listed at the root, 404 under a namespace, and
// metadata.namespace is no field selector for them.
func runCRClusterScoped(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	group := randomSuffix() + ".lwsim.example"
	body := widgetCRD(group)
	body["spec"].(object)["scope"] = "Cluster"
	ce := &crdEnv{env: e, group: group, name: "widgets." + group}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: crdPath, Body: body})
	r.mustCode(t, http.StatusCreated, "create cluster-scoped CRD")
	t.Cleanup(func() { deleteCRD(target, ce.name) })
	root := "/apis/" + group + "/v1/widgets"
	ok := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		o, code := ce.crd(ctx)
		ok = code == http.StatusOK && conditionStatus(o, "Established") == "True" && ce.c.do(ctx, t, request{Path: root}).Code == http.StatusOK
		return ok
	})
	if !ok {
		t.Fatalf("cluster-scoped CRD not served within %v", establishTimeout)
	}
	w := object{"apiVersion": group + "/v1", "kind": "Widget", "metadata": object{"name": "c", "namespace": e.ns}, "spec": object{"size": 2}}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: root, Body: w})
	r.mustCode(t, http.StatusCreated, "create cluster-scoped widget")
	var o object
	r.decode(t, &o)
	if ns, has := metaOf(o)["namespace"]; has {
		t.Errorf("cluster-scoped widget has namespace %v", ns)
	}
	r = e.c.do(ctx, t, request{Path: "/apis/" + group + "/v1/namespaces/" + e.ns + "/widgets/c"})
	if r.Code != http.StatusNotFound {
		t.Errorf("get under a namespace: %d, want 404", r.Code)
	}
	r = e.c.do(ctx, t, request{Path: root, Query: q("fieldSelector", "metadata.namespace="+e.ns)})
	checkStatus(t, "namespace field selector", r, wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"field label not supported: metadata.namespace", nil))
	r = e.c.do(ctx, t, request{Path: root, Query: q("fieldSelector", "metadata.name=c")})
	r.mustCode(t, http.StatusOK, "list by name")
	var l list
	r.decode(t, &l)
	if !cmp.Equal(l.names(), []string{"c"}) {
		t.Errorf("list by name = %v, want [c]", l.names())
	}
}

// runCRDUpdateAddsVersion: updating a CRD takes effect for later requests:
// a new storage version v2 with a tighter schema is served (objects stored
// before read through it), storedVersions records both, and the
// generation moves with the spec.
func runCRDUpdateAddsVersion(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "old", object{"size": 7})
	crd, _ := ce.crd(ctx)
	versions := crd["spec"].(object)["versions"].([]any)
	v1 := versions[0].(object)
	v1["storage"] = false
	v2 := object{}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["name"], v2["storage"] = "v2", true
	v2["schema"] = object{"openAPIV3Schema": object{"type": "object", "properties": object{
		"spec": object{"type": "object", "properties": object{"size": object{"type": "integer", "maximum": 5}}},
	}}}
	delete(v2, "selectableFields")
	delete(v2, "subresources")
	delete(v2, "additionalPrinterColumns")
	crd["spec"].(object)["versions"] = append(versions, v2)
	r := ce.c.do(ctx, t, request{Method: http.MethodPut, Path: crdPath + "/" + ce.name, Body: crd})
	r.mustCode(t, http.StatusOK, "update CRD")
	var updated object
	r.decode(t, &updated)
	if metaOf(updated)["generation"] != float64(2) {
		t.Errorf("generation after adding a version = %v, want 2", metaOf(updated)["generation"])
	}
	if diff := cmp.Diff([]any{"v1", "v2"}, updated["status"].(object)["storedVersions"]); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}
	v2Path := strings.Replace(ce.widgets(), "/v1/", "/v2/", 1)
	var old object
	ok := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		r := ce.c.do(ctx, t, request{Path: v2Path + "/old"})
		ok = r.Code == http.StatusOK && decodeBody(r, &old) == nil
		return ok
	})
	if !ok {
		t.Fatalf("v2 not served within %v", establishTimeout)
	}
	if old["apiVersion"] != ce.group+"/v2" || old["spec"].(object)["size"] != float64(7) {
		t.Errorf("old object through v2: apiVersion %v spec %v", old["apiVersion"], old["spec"])
	}
	body := object{"apiVersion": ce.group + "/v2", "kind": "Widget", "metadata": object{"name": "big"}, "spec": object{"size": 7}}
	r = ce.c.do(ctx, t, request{Method: http.MethodPost, Path: v2Path, Body: body})
	checkStatus(t, "create through v2 over its maximum", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`Widget.`+ce.group+` "big" is invalid: spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5`,
		&metav1.StatusDetails{Name: "big", Group: ce.group, Kind: "Widget", Causes: []metav1.StatusCause{{
			Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 7: spec.size in body should be less than or equal to 5", Field: "spec.size",
		}}}))
}

// runCRDDeleteWaitsForFinalizers: an object with a finalizer keeps its
// deleted CRD Terminating (InstanceDeletionInProgress); once the finalizer
// is removed the object and then the CRD go.
func runCRDDeleteWaitsForFinalizers(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	body := ce.widget("f", nil)
	body["metadata"].(object)["finalizers"] = []string{"lwsim.example/keep"}
	r := ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Body: body})
	r.mustCode(t, http.StatusCreated, "create widget with a finalizer")
	r = ce.c.do(ctx, t, request{Method: http.MethodDelete, Path: crdPath + "/" + ce.name})
	r.mustCode(t, http.StatusOK, "delete CRD")
	marked := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		r := ce.c.do(ctx, t, request{Path: ce.widgets() + "/f"})
		var o object
		marked = r.Code == http.StatusOK && decodeBody(r, &o) == nil && metaOf(o)["deletionTimestamp"] != nil
		return marked
	})
	if !marked {
		t.Fatalf("widget f not marked for deletion within %v", establishTimeout)
	}
	crd, code := ce.crd(ctx)
	if code != http.StatusOK {
		t.Fatalf("CRD with a finalizing object: %d, want it still there", code)
	}
	var reason string
	for _, c := range conditions(crd) {
		if c["type"] == "Terminating" {
			reason, _ = c["reason"].(string)
		}
	}
	if reason != "InstanceDeletionInProgress" {
		t.Errorf("Terminating reason = %q, want InstanceDeletionInProgress", reason)
	}
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/f", ContentType: "application/merge-patch+json", Body: object{"metadata": object{"finalizers": nil}}})
	r.mustCode(t, http.StatusOK, "remove the finalizer")
	gone := false
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		_, code := ce.crd(ctx)
		gone = code == http.StatusNotFound
		return gone
	})
	if !gone {
		t.Errorf("CRD still there %v after its last object went", establishTimeout)
	}
}

// runCRApply: server-side apply of a custom resource records the
// manager's fields (from the CRD's schema) and answers another manager's
// change of them with the 409 conflict.
func runCRApply(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	apply := func(manager string, size int) response {
		body := `{"apiVersion":"` + ce.group + `/v1","kind":"Widget","metadata":{"name":"x"},"spec":{"size":` + itoa(int64(size)) + `}}`
		return ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/x", Query: q("fieldManager", manager),
			ContentType: "application/apply-patch+yaml", Body: []byte(body)})
	}
	r := apply("alice", 2)
	r.mustCode(t, http.StatusCreated, "apply")
	var o object
	r.decode(t, &o)
	mf, _ := metaOf(o)["managedFields"].([]any)
	var got []object
	for _, e := range mf {
		m := e.(object)
		got = append(got, object{"manager": m["manager"], "operation": m["operation"], "fieldsV1": m["fieldsV1"]})
	}
	want := []object{{"manager": "alice", "operation": "Apply", "fieldsV1": object{"f:spec": object{"f:size": object{}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managedFields (-want +got):\n%s", diff)
	}
	r = apply("bob", 3)
	checkStatus(t, "conflicting apply", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "alice": .spec.size`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "alice"`, Field: ".spec.size"}}}))
}
