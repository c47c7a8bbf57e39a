package fakeapiserver

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"pgregory.net/rapid"
)

// gadgetV1, gadgetV2 are the resources of testConversionCRD: v1 stores
// spec.size, v2 serves it as spec.count.
var (
	gadgetV1 = schema.GroupVersionResource{Group: "conv.example.com", Version: "v1", Resource: "gadgets"}
	gadgetV2 = schema.GroupVersionResource{Group: "conv.example.com", Version: "v2", Resource: "gadgets"}
)

// testConverter is an HTTPS CRD conversion webhook converting Gadgets
// between v1 (spec.size) and v2 (spec.count). It counts the reviews and
// refuses them while failing is set; at /wrong it answers objects left in
// their version.
type testConverter struct {
	srv     *httptest.Server
	calls   atomic.Int64
	failing atomic.Bool

	mu   sync.Mutex
	seen []apiextensionsv1.ConversionRequest
}

func startTestConverter(t testing.TB) *testConverter {
	t.Helper()
	c := &testConverter{}
	c.srv = httptest.NewTLSServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *testConverter) serve(w http.ResponseWriter, r *http.Request) {
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	c.calls.Add(1)
	c.mu.Lock()
	c.seen = append(c.seen, *review.Request)
	c.mu.Unlock()
	req := review.Request
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	if c.failing.Load() {
		resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "converter down"}
	}
	for _, raw := range req.Objects {
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(raw.Raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path != "/wrong" {
			from, to := "size", "count"
			if req.DesiredAPIVersion == gadgetV1.GroupVersion().String() {
				from, to = "count", "size"
			}
			if v, ok, _ := unstructured.NestedFieldCopy(u.Object, "spec", from); ok {
				unstructured.RemoveNestedField(u.Object, "spec", from)
				_ = unstructured.SetNestedField(u.Object, v, "spec", to)
			}
			u.SetAPIVersion(req.DesiredAPIVersion)
		}
		b, _ := u.MarshalJSON()
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: b})
	}
	review.Request, review.Response = nil, resp
	_ = json.NewEncoder(w).Encode(review)
}

// requests returns the conversion requests so far.
func (c *testConverter) requests() []apiextensionsv1.ConversionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]apiextensionsv1.ConversionRequest(nil), c.seen...)
}

// clientConfig is a conversion webhook clientConfig for path on c.
func (c *testConverter) clientConfig(path string) *apiextensionsv1.WebhookClientConfig {
	u := c.srv.URL + path
	return &apiextensionsv1.WebhookClientConfig{
		URL:      &u,
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.srv.Certificate().Raw}),
	}
}

// testConversionCRD is a namespaced CRD of Gadgets storing v1 and
// serving v2, converted by the webhook at cc.
func testConversionCRD(cc *apiextensionsv1.WebhookClientConfig) *apiextensionsv1.CustomResourceDefinition {
	version := func(name, field string, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{
			Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{field: {Type: "integer"}}},
				},
			}},
		}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.conv.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "conv.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", "size", true), version("v2", "count", false)},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: cc, ConversionReviewVersions: []string{"v1"}},
			},
		},
	}
}

// gadget is a Gadget in version gvr with spec[field] = n.
func gadget(gvr schema.GroupVersionResource, name, field string, n int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{field: n},
	}}
}

// shape is a Gadget's apiVersion, name and spec, for comparisons.
func shape(u *unstructured.Unstructured) string {
	spec, _ := json.Marshal(u.Object["spec"])
	return u.GetAPIVersion() + " " + u.GetName() + " " + string(spec)
}

// TestCRConversionWebhook: through client-go, objects written through
// either version are stored in v1 and read through each version as the
// webhook converts them: GET, LIST, a watch and an informer's list and
// watch through v2; creates and updates through v2 are stored converted.
// The webhook is never asked about a read in the storage version.
func TestCRConversionWebhook(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	srv := Start(t)
	installCRD(t, srv, testConversionCRD(conv.clientConfig("/convert")))
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	v1, v2 := dyn.Resource(gadgetV1).Namespace("default"), dyn.Resource(gadgetV2).Namespace("default")

	list, err := v2.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through v2: %v", err)
	}
	w, err := v2.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch through v2: %v", err)
	}
	defer w.Stop()

	created, err := v1.Create(ctx, gadget(gadgetV1, "a", "size", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through v1: %v", err)
	}
	if got := shape(created); got != `conv.example.com/v1 a {"size":3}` || conv.calls.Load() != 0 {
		t.Errorf("create through v1 = %s after %d webhook calls, want no conversion", got, conv.calls.Load())
	}
	got, err := v2.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get through v2: %v", err)
	}
	if s := shape(got); s != `conv.example.com/v2 a {"count":3}` || got.GetResourceVersion() != created.GetResourceVersion() || got.GetUID() != created.GetUID() {
		t.Errorf("get through v2 = %s rv %s uid %s, want the conversion with the stored metadata (rv %s uid %s)",
			s, got.GetResourceVersion(), got.GetUID(), created.GetResourceVersion(), created.GetUID())
	}
	for _, req := range conv.requests() {
		for _, o := range req.Objects {
			if strings.Contains(string(o.Raw), `"resourceVersion"`) {
				t.Errorf("the webhook got a resourceVersion (etcd holds objects without one): %s", o.Raw)
			}
		}
	}

	created2, err := v2.Create(ctx, gadget(gadgetV2, "b", "count", 4), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through v2: %v", err)
	}
	if s := shape(created2); s != `conv.example.com/v2 b {"count":4}` {
		t.Errorf("create through v2 answered %s", s)
	}
	stored, err := v1.Get(ctx, "b", metav1.GetOptions{})
	if err != nil || shape(stored) != `conv.example.com/v1 b {"size":4}` {
		t.Errorf("create through v2 stored %v, %v; want spec.size 4", stored, err)
	}
	created2.Object["spec"] = map[string]any{"count": int64(5)}
	updated, err := v2.Update(ctx, created2, metav1.UpdateOptions{})
	if err != nil || shape(updated) != `conv.example.com/v2 b {"count":5}` {
		t.Fatalf("update through v2 = %v, %v", updated, err)
	}
	if stored, err = v1.Get(ctx, "b", metav1.GetOptions{}); err != nil || shape(stored) != `conv.example.com/v1 b {"size":5}` {
		t.Errorf("update through v2 stored %v, %v; want spec.size 5", stored, err)
	}
	// A no-op update through v2 writes nothing: its conversion equals
	// what is stored.
	same, err := v2.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil || same.GetResourceVersion() != updated.GetResourceVersion() {
		t.Errorf("no-op update through v2 = rv %v, %v; want rv %s", same.GetResourceVersion(), err, updated.GetResourceVersion())
	}

	list, err = v2.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through v2: %v", err)
	}
	var items []string
	for i := range list.Items {
		items = append(items, shape(&list.Items[i]))
	}
	if diff := cmp.Diff([]string{`conv.example.com/v2 a {"count":3}`, `conv.example.com/v2 b {"count":5}`}, items); diff != "" {
		t.Errorf("list through v2 (-want +got):\n%s", diff)
	}

	var events []string
	for range 3 {
		ev := <-w.ResultChan()
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			t.Fatalf("watch event %s %T", ev.Type, ev.Object)
		}
		events = append(events, string(ev.Type)+" "+shape(u))
	}
	want := []string{`ADDED conv.example.com/v2 a {"count":3}`, `ADDED conv.example.com/v2 b {"count":4}`, `MODIFIED conv.example.com/v2 b {"count":5}`}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("watch through v2 (-want +got):\n%s", diff)
	}

	before := conv.calls.Load()
	if _, err := v1.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Get(ctx, "b", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := conv.calls.Load(); n != before {
		t.Errorf("reads through the storage version called the webhook %d times", n-before)
	}
}

// TestCRConversionWebhookErrors: the converter's errors as the real
// server answers them: a GET through v2 while the webhook refuses is an
// InternalError naming the object's key (the store cannot decode it), a
// create through v2 the converter's error as it is (nothing stored), a
// webhook answering objects in the wrong version is refused by the
// converter, and once the webhook works again the reads succeed.
func TestCRConversionWebhookErrors(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	srv := Start(t)
	installCRD(t, srv, testConversionCRD(conv.clientConfig("/convert")))
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	v1, v2 := dyn.Resource(gadgetV1).Namespace("default"), dyn.Resource(gadgetV2).Namespace("default")
	created, err := v1.Create(ctx, gadget(gadgetV1, "a", "size", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	conv.failing.Store(true)
	_, err = v2.Get(ctx, "a", metav1.GetOptions{})
	want := fmt.Sprintf("Internal error occurred: StorageError: corrupt object, Code: 7, Key: /conv.example.com/gadgets/default/a, ResourceVersion: 0, "+
		"AdditionalErrorMsg: object not decodable revision=%s: conversion webhook for conv.example.com/v1, Kind=Gadget failed: converter down", created.GetResourceVersion())
	if err == nil || err.Error() != want || !apierrors.IsInternalError(err) {
		t.Errorf("get through v2 while the webhook refuses = %v, want InternalError %q", err, want)
	}
	_, err = v2.Create(ctx, gadget(gadgetV2, "b", "count", 2), metav1.CreateOptions{})
	want = "conversion webhook for conv.example.com/v2, Kind=Gadget failed: converter down"
	if st, ok := err.(apierrors.APIStatus); !ok || err.Error() != want || st.Status().Code != http.StatusInternalServerError || st.Status().Reason != "" {
		t.Errorf("create through v2 while the webhook refuses = %v, want a 500 without a reason %q", err, want)
	}
	if _, err := v1.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused create was stored: get = %v", err)
	}
	if _, err := v2.List(ctx, metav1.ListOptions{}); err == nil {
		t.Errorf("list through v2 while the webhook refuses succeeded")
	}
	conv.failing.Store(false)
	if got, err := v2.Get(ctx, "a", metav1.GetOptions{}); err != nil || shape(got) != `conv.example.com/v2 a {"count":1}` {
		t.Errorf("get through v2 once the webhook works = %v, %v", got, err)
	}

	// A webhook answering the object unconverted.
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Get(ctx, "gadgets.conv.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.Spec.Conversion.Webhook.ClientConfig = conv.clientConfig("/wrong")
	if _, err := crds.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = v2.Create(ctx, gadget(gadgetV2, "c", "count", 3), metav1.CreateOptions{})
	want = "conversion webhook for conv.example.com/v2, Kind=Gadget returned invalid object at index 0: invalid groupVersion (expected conv.example.com/v1, received conv.example.com/v2)"
	if err == nil || err.Error() != want {
		t.Errorf("create through v2 with a webhook answering the wrong version = %v, want %q", err, want)
	}
}

// TestCRConversionWebhookDryRun: a dry-run create through v2 is
// converted to the storage version and back, as DryRunnableStorage's
// copyInto encodes and decodes, and stores nothing.
func TestCRConversionWebhookDryRun(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	srv := Start(t)
	installCRD(t, srv, testConversionCRD(conv.clientConfig("/convert")))
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	got, err := dyn.Resource(gadgetV2).Namespace("default").Create(ctx, gadget(gadgetV2, "dry", "count", 7), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || shape(got) != `conv.example.com/v2 dry {"count":7}` {
		t.Fatalf("dry-run create through v2 = %v, %v", got, err)
	}
	var desired []string
	for _, r := range conv.requests() {
		desired = append(desired, r.DesiredAPIVersion)
	}
	if diff := cmp.Diff([]string{"conv.example.com/v1", "conv.example.com/v2"}, desired); diff != "" {
		t.Errorf("conversions of the dry run (-want +got):\n%s", diff)
	}
	if _, err := dyn.Resource(gadgetV1).Namespace("default").Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the dry run was stored: %v", err)
	}
}

// TestCRConversionWebhookRapid: any sequence of creates, updates and
// deletes through either version leaves every object stored in v1 and
// readable through both versions as the conversions of one another, and
// a watch through v2 sees each write converted, in order.
func TestCRConversionWebhookRapid(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	srv := Start(t)
	installCRD(t, srv, testConversionCRD(conv.clientConfig("/convert")))
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	var runs atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		ns := fmt.Sprintf("r%d", runs.Add(1))
		res := map[string]dynamic.ResourceInterface{
			"v1": dyn.Resource(gadgetV1).Namespace(ns),
			"v2": dyn.Resource(gadgetV2).Namespace(ns),
		}
		field := map[string]string{"v1": "size", "v2": "count"}
		gvr := map[string]schema.GroupVersionResource{"v1": gadgetV1, "v2": gadgetV2}
		if _, err := srv.Clientset().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			rt.Fatal(err)
		}
		w, err := res["v2"].Watch(ctx, metav1.ListOptions{})
		if err != nil {
			rt.Fatal(err)
		}
		defer w.Stop()
		model := map[string]int64{}
		var wantEvents []string
		for range rapid.IntRange(1, 12).Draw(rt, "ops") {
			v := rapid.SampledFrom([]string{"v1", "v2"}).Draw(rt, "version")
			name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "name")
			n := rapid.Int64Range(0, 100).Draw(rt, "n")
			_, exists := model[name]
			switch {
			case !exists:
				if _, err := res[v].Create(ctx, gadget(gvr[v], name, field[v], n), metav1.CreateOptions{}); err != nil {
					rt.Fatalf("create %s through %s: %v", name, v, err)
				}
				model[name] = n
				wantEvents = append(wantEvents, fmt.Sprintf("ADDED %s %d", name, n))
			case rapid.Bool().Draw(rt, "delete"):
				if err := res[v].Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					rt.Fatalf("delete %s through %s: %v", name, v, err)
				}
				wantEvents = append(wantEvents, fmt.Sprintf("DELETED %s %d", name, model[name]))
				delete(model, name)
			default:
				cur, err := res[v].Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					rt.Fatalf("get %s through %s: %v", name, v, err)
				}
				cur.Object["spec"] = map[string]any{field[v]: n}
				if _, err := res[v].Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
					rt.Fatalf("update %s through %s: %v", name, v, err)
				}
				if model[name] != n {
					wantEvents = append(wantEvents, fmt.Sprintf("MODIFIED %s %d", name, n))
				}
				model[name] = n
			}
			for _, ver := range []string{"v1", "v2"} {
				l, err := res[ver].List(ctx, metav1.ListOptions{})
				if err != nil {
					rt.Fatalf("list through %s: %v", ver, err)
				}
				got := map[string]int64{}
				for i := range l.Items {
					it := &l.Items[i]
					x, _, _ := unstructured.NestedInt64(it.Object, "spec", field[ver])
					if it.GetAPIVersion() != gvr[ver].GroupVersion().String() {
						rt.Errorf("item %s through %s has apiVersion %s", it.GetName(), ver, it.GetAPIVersion())
					}
					got[it.GetName()] = x
				}
				if diff := cmp.Diff(model, got); diff != "" {
					rt.Fatalf("objects through %s (-model +got):\n%s", ver, diff)
				}
			}
		}
		var gotEvents []string
		for range wantEvents {
			ev := <-w.ResultChan()
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type == watch.Error {
				rt.Fatalf("watch event %s %v", ev.Type, ev.Object)
			}
			x, _, _ := unstructured.NestedInt64(u.Object, "spec", "count")
			gotEvents = append(gotEvents, fmt.Sprintf("%s %s %d", ev.Type, u.GetName(), x))
		}
		if diff := cmp.Diff(wantEvents, gotEvents); diff != "" {
			rt.Fatalf("watch through v2 (-want +got):\n%s", diff)
		}
	})
}

// TestCRConversionWebhookFieldSelector: a field selector on a
// selectableField of v2 is evaluated on the objects converted to v2 (as
// v2's watch cache holds them), in a LIST and in a WATCH.
func TestCRConversionWebhookFieldSelector(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	srv := Start(t)
	crd := testConversionCRD(conv.clientConfig("/convert"))
	crd.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.count"}}
	installCRD(t, srv, crd)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	v1, v2 := dyn.Resource(gadgetV1).Namespace("default"), dyn.Resource(gadgetV2).Namespace("default")
	w, err := v2.Watch(ctx, metav1.ListOptions{FieldSelector: "spec.count=3"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for name, n := range map[string]int64{"three": 3, "four": 4} {
		if _, err := v1.Create(ctx, gadget(gadgetV1, name, "size", n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := v2.List(ctx, metav1.ListOptions{FieldSelector: "spec.count=3"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range l.Items {
		names = append(names, l.Items[i].GetName())
	}
	if diff := cmp.Diff([]string{"three"}, names); diff != "" {
		t.Errorf("list through v2 with spec.count=3 (-want +got):\n%s", diff)
	}
	ev := <-w.ResultChan()
	if u, ok := ev.Object.(*unstructured.Unstructured); !ok || ev.Type != watch.Added || u.GetName() != "three" {
		t.Errorf("watch through v2 with spec.count=3: first event %s %v, want ADDED three", ev.Type, ev.Object)
	}
}

// TestCRConversionWebhookAdmission: an admission webhook whose rule names
// only v2 is called, under matchPolicy Equivalent, for a create through
// v1 with the object converted to v2 by the conversion webhook, as the
// real dispatcher converts with the CRD's converter.
func TestCRConversionWebhookAdmission(t *testing.T) {
	t.Parallel()
	conv := startTestConverter(t)
	hook := startTestWebhook(t)
	srv := Start(t)
	installCRD(t, srv, testConversionCRD(conv.clientConfig("/convert")))
	ctx := context.Background()
	cfg := validatingConfig("gadgets", hook.clientConfig("/allow"))
	cfg.Webhooks[0].Rules = []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"conv.example.com"}, APIVersions: []string{"v2"}, Resources: []string{"gadgets"}},
	}}
	if _, err := srv.Clientset().AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig())
	if _, err := dyn.Resource(gadgetV1).Namespace("default").Create(ctx, gadget(gadgetV1, "adm", "size", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs := hook.requests()
	if len(reqs) != 1 {
		t.Fatalf("admission webhook got %d requests, want 1", len(reqs))
	}
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(reqs[0].Object.Raw); err != nil {
		t.Fatal(err)
	}
	if got := shape(&u); got != `conv.example.com/v2 adm {"count":3}` || reqs[0].Kind.Version != "v2" || reqs[0].RequestKind.Version != "v1" {
		t.Errorf("admission saw %s kind %v requestKind %v, want the v2 conversion of a v1 request", got, reqs[0].Kind, reqs[0].RequestKind)
	}
}
