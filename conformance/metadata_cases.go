package conformance

// Cases for the metadata-only forms a client asks for with
// Accept: ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1 (client-go's
// metadata client and metadata informers, controller-runtime's metadata
// cache): kube-apiserver's transformResponseObject and watch encoder
// (apiserver pkg/endpoints/handlers/response.go, watch.go) with the
// negotiation of handlers/negotiation.

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/yaml"
)

// metadataCases are the cases of this file, in the order [Cases] runs them.
func metadataCases() []Case {
	return []Case{
		{Name: "MetadataListAndGet", Run: runMetadataListAndGet},
		{Name: "MetadataClient", Run: runMetadataClient},
		{Name: "MetadataNotAcceptable", Run: runMetadataNotAcceptable},
		{Name: "MetadataWrites", Run: runMetadataWrites},
		{Name: "MetadataWatch", Run: runMetadataWatch},
	}
}

// Accept headers of the metadata forms.
const (
	// metadataClientListAccept and metadataClientAccept are what client-go's
	// metadata client sends for a LIST and for a GET or WATCH.
	metadataClientListAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	metadataClientAccept     = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	// onlyAcceptedMessage is the handlers' 406 when no Accept clause is
	// served.
	onlyAcceptedMessage = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
)

// metaAccept is the JSON Accept of a meta.k8s.io form of version v.
func metaAccept(kind, v string) string {
	return "application/json;as=" + kind + ";g=meta.k8s.io;v=" + v
}

// partialOf is the PartialObjectMetadata of meta.k8s.io version v that
// carries obj's metadata, as a decoded JSON object.
func partialOf(obj object, v string) object {
	return object{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/" + v, "metadata": metaOf(obj)}
}

// runMetadataListAndGet: a LIST as PartialObjectMetadataList (v1 and
// v1beta1, JSON and YAML) has each item's kind, apiVersion and whole
// metadata and nothing else, pages like the objects do, and is items null
// when empty; a GET as PartialObjectMetadata is the object's metadata.
func runMetadataListAndGet(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", map[string]string{"app": "x"})
	e.create(ctx, "b", nil)
	full := e.list(ctx)
	for _, v := range []string{"v1", "v1beta1"} {
		r := e.c.do(ctx, t, request{Path: e.cms(), Accept: metaAccept("PartialObjectMetadataList", v)})
		r.mustCode(t, http.StatusOK, "list as PartialObjectMetadataList "+v)
		var got list
		r.decode(t, &got)
		checkPartialList(t, "JSON "+v, got, v, full.Items)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("list as PartialObjectMetadataList %s: Content-Type %q", v, ct)
		}
		for _, item := range full.Items {
			var one object
			r := e.c.do(ctx, t, request{Path: e.cms() + "/" + nameOf(item), Accept: metaAccept("PartialObjectMetadata", v)})
			r.mustCode(t, http.StatusOK, "get as PartialObjectMetadata")
			r.decode(t, &one)
			if diff := cmp.Diff(partialOf(item, v), one); diff != "" {
				t.Errorf("GET %s as PartialObjectMetadata %s (-want +got):\n%s", nameOf(item), v, diff)
			}
		}
	}
	r := e.c.do(ctx, t, request{Path: e.cms(), Accept: "application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
	r.mustCode(t, http.StatusOK, "list as PartialObjectMetadataList in YAML")
	asJSON, err := yaml.YAMLToJSON(r.Body)
	if err != nil {
		t.Fatalf("YAML answer %q: %v", r.Body, err)
	}
	var fromYAML list
	response{Body: asJSON}.decode(t, &fromYAML)
	checkPartialList(t, "YAML", fromYAML, "v1", full.Items)

	page := e.c.do(ctx, t, request{Path: e.cms(), Query: q("limit", "1"), Accept: metaAccept("PartialObjectMetadataList", "v1")})
	var first list
	page.decode(t, &first)
	if first.Metadata.Continue == "" || first.Metadata.RemainingItemCount == nil || *first.Metadata.RemainingItemCount != 1 || len(first.Items) != 1 {
		t.Errorf("first page of one: continue %q, remaining %v, %d items", first.Metadata.Continue, first.Metadata.RemainingItemCount, len(first.Items))
	}
	var empty object
	r = e.c.do(ctx, t, request{Path: nsPath(e.ns, "limitranges"), Accept: metaAccept("PartialObjectMetadataList", "v1")})
	r.mustCode(t, http.StatusOK, "list an empty collection as PartialObjectMetadataList")
	r.decode(t, &empty)
	if items, ok := empty["items"]; !ok || items != nil {
		t.Errorf("empty PartialObjectMetadataList has items %v (present: %v), want null", items, ok)
	}
}

// checkPartialList compares a PartialObjectMetadataList of version v with
// the objects it lists.
func checkPartialList(t *testing.T, what string, got list, v string, objs []object) {
	t.Helper()
	if got.Kind != "PartialObjectMetadataList" || got.APIVersion != "meta.k8s.io/"+v {
		t.Errorf("%s: kind/apiVersion %s/%s", what, got.Kind, got.APIVersion)
	}
	want := make([]object, len(objs))
	for i, o := range objs {
		want[i] = partialOf(o, v)
	}
	if diff := cmp.Diff(want, got.Items); diff != "" {
		t.Errorf("%s: items (-want +got):\n%s", what, diff)
	}
}

// runMetadataClient: client-go's metadata client, which asks for protobuf
// first, lists and gets the metadata the JSON objects carry, and the
// answers are protobuf.
func runMetadataClient(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", map[string]string{"app": "x"})
	full := e.list(ctx)
	want := objectMetas(t, full.Items)
	mc, err := metadata.NewForConfig(target.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	res := mc.Resource(configMapsGVR).Namespace(e.ns)
	l, err := res.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("metadata List: %v", err)
	}
	var got []metav1.ObjectMeta
	for _, item := range l.Items {
		got = append(got, item.ObjectMeta)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata List (-JSON objects +metadata client):\n%s", diff)
	}
	one, err := res.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("metadata Get: %v", err)
	}
	if diff := cmp.Diff(want[0], one.ObjectMeta); diff != "" {
		t.Errorf("metadata Get (-JSON object +metadata client):\n%s", diff)
	}
	for _, rq := range []request{
		{Path: e.cms(), Accept: metadataClientListAccept},
		{Path: e.cms() + "/a", Accept: metadataClientAccept},
	} {
		r := e.c.do(ctx, t, rq)
		if ct := r.Header.Get("Content-Type"); r.Code != http.StatusOK || ct != "application/vnd.kubernetes.protobuf" {
			t.Errorf("GET %s with the metadata client's Accept: %d, Content-Type %q; want 200 protobuf", rq.Path, r.Code, ct)
		}
	}
}

// objectMetas decodes the metadata of decoded objects.
func objectMetas(t *testing.T, objs []object) []metav1.ObjectMeta {
	t.Helper()
	out := make([]metav1.ObjectMeta, len(objs))
	for i, o := range objs {
		response{Body: mustJSON(t, metaOf(o))}.decode(t, &out[i])
	}
	return out
}

// runMetadataNotAcceptable: an as= target the endpoint does not serve (a
// kind, group or version other than meta.k8s.io's v1 and v1beta1 forms, a
// Table in protobuf, g and v without as) is skipped, and with no clause
// left the answer is the handlers' 406, written as indented JSON; a later
// plain clause is served instead. The metadata form of the wrong shape (a
// list's PartialObjectMetadata, an object's PartialObjectMetadataList) is
// the transformation's own 406 naming the internal type, after the read:
// a missing object is still 404.
func runMetadataNotAcceptable(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", nil)
	notServed := wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, onlyAcceptedMessage, nil)
	for _, tc := range []struct {
		path, accept string
		want         statusShape
	}{
		{e.cms(), "application/json;as=Foo;g=meta.k8s.io;v=v1", notServed},
		{e.cms(), "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2", notServed},
		{e.cms(), "application/json;as=PartialObjectMetadataList;g=example.com;v=v1", notServed},
		{e.cms(), "application/json;as=PartialObjectMetadataList", notServed},
		{e.cms(), "application/json;g=meta.k8s.io;v=v1", notServed},
		{e.cms(), "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1", notServed},
		{e.cms(), metaAccept("PartialObjectMetadata", "v1"), wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			"you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)", nil)},
		{e.cms() + "/a", metaAccept("PartialObjectMetadataList", "v1"), wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			"you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)", nil)},
		{"/apis/apps/v1/namespaces/" + e.ns + "/deployments", metaAccept("PartialObjectMetadata", "v1beta1"), wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			"you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)", nil)},
		{e.cms() + "/missing", metaAccept("PartialObjectMetadataList", "v1"), wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
			`configmaps "missing" not found`, &metav1.StatusDetails{Name: "missing", Kind: "configmaps"})},
	} {
		r := e.c.do(ctx, t, request{Path: tc.path, Accept: tc.accept})
		checkStatus(t, "GET "+tc.path+" Accept "+tc.accept, r, tc.want)
		if !bytes.HasPrefix(r.Body, []byte("{\n  \"kind\": \"Status\",\n")) {
			t.Errorf("GET %s Accept %s: body %q, want the indented raw JSON of an error no clause carries", tc.path, tc.accept, r.Body)
		}
	}
	r := e.c.do(ctx, t, request{Path: e.cms(), Accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2, application/json"})
	r.mustCode(t, http.StatusOK, "list with a plain clause after an unserved one")
	var l list
	r.decode(t, &l)
	if l.Kind != "ConfigMapList" {
		t.Errorf("list with a plain clause after an unserved one: kind %q, want ConfigMapList", l.Kind)
	}
}

// runMetadataWrites: a write's answer takes the asked form too (create,
// update and patch as PartialObjectMetadata or Table, a delete's Status
// unchanged, a deletecollection's list as PartialObjectMetadataList), and
// a write whose answer is then refused (PartialObjectMetadataList of one
// object) was made all the same.
func runMetadataWrites(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "1"), Accept: metaAccept("PartialObjectMetadata", "v1")})
	r.mustCode(t, http.StatusCreated, "create as PartialObjectMetadata")
	var created object
	r.decode(t, &created)
	stored := e.get(ctx, "a")
	if diff := cmp.Diff(partialOf(stored, "v1"), created); diff != "" {
		t.Errorf("create as PartialObjectMetadata (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: cm("a", nil, "2"), Accept: metaAccept("PartialObjectMetadata", "v1beta1")})
	r.mustCode(t, http.StatusOK, "update as PartialObjectMetadata v1beta1")
	var updated object
	r.decode(t, &updated)
	if diff := cmp.Diff(partialOf(e.get(ctx, "a"), "v1beta1"), updated); diff != "" {
		t.Errorf("update as PartialObjectMetadata v1beta1 (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Body: []byte(`{"data":{"k":"3"}}`),
		ContentType: "application/merge-patch+json", Accept: metaAccept("PartialObjectMetadataList", "v1")})
	checkStatus(t, "patch as PartialObjectMetadataList", r, wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)", nil))
	if data := e.get(ctx, "a")["data"].(object)["k"]; data != "3" {
		t.Errorf("after the refused answer, data.k = %v, want the patch's 3", data)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", nil, "1"), Accept: tableAccept})
	r.mustCode(t, http.StatusCreated, "create as Table")
	var table object
	r.decode(t, &table)
	b := e.get(ctx, "b")
	if table["kind"] != "Table" || metaOf(table)["resourceVersion"] != metaOf(b)["resourceVersion"] || len(table["rows"].([]any)) != 1 {
		t.Errorf("create as Table: %v", table)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/b", Accept: metaAccept("PartialObjectMetadata", "v1")})
	r.mustCode(t, http.StatusOK, "delete as PartialObjectMetadata")
	if st := r.status(t); st.Kind != "Status" || st.Status != metav1.StatusSuccess {
		t.Errorf("delete as PartialObjectMetadata answered %s", r.Body)
	}
	a := e.get(ctx, "a")
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms(), Accept: metaAccept("PartialObjectMetadataList", "v1")})
	r.mustCode(t, http.StatusOK, "deletecollection as PartialObjectMetadataList")
	var deleted list
	r.decode(t, &deleted)
	checkPartialList(t, "deletecollection", deleted, "v1", []object{a})
}

// get GETs ConfigMap name and returns it.
func (e *env) get(ctx context.Context, name string) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Path: e.cms() + "/" + name})
	r.mustCode(e.t, http.StatusOK, "get configmap "+name)
	var o object
	r.decode(e.t, &o)
	return o
}

// runMetadataWatch: a watch as PartialObjectMetadata sends each event's
// object as its metadata (the watch-list's initial events and its
// annotated end bookmark included, v1 and v1beta1), and a watch as
// PartialObjectMetadataList ends at its first event without sending it.
func runMetadataWatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	a := e.create(ctx, "a", nil)
	e.catchUpCache(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Accept: metaAccept("PartialObjectMetadata", "v1"),
		Query: q("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	evs := w.takeN(ctx, 2, "watch-list as PartialObjectMetadata")
	if diff := cmp.Diff([]string{"ADDED", "BOOKMARK"}, eventTypes(evs)); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(partialOf(a, "v1"), evs[0].Object); diff != "" {
		t.Errorf("initial event (-want +got):\n%s", diff)
	}
	end := evs[1].Object
	wantEnd := object{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": object{
		"resourceVersion": metaOf(end)["resourceVersion"], "annotations": object{initialEventsEnd: "true"}}}
	if diff := cmp.Diff(wantEnd, end); diff != "" {
		t.Errorf("end bookmark (-want +got):\n%s", diff)
	}
	b := e.create(ctx, "b", nil)
	updated := e.update(ctx, "a", "2", map[string]string{"tier": "web"})
	e.del(ctx, "b")
	live := w.takeN(ctx, 3, "live events as PartialObjectMetadata")
	if diff := cmp.Diff([]string{"ADDED", "MODIFIED", "DELETED"}, eventTypes(live)); diff != "" {
		t.Fatalf("live event types (-want +got):\n%s", diff)
	}
	for i, want := range []object{partialOf(b, "v1"), partialOf(updated, "v1")} {
		if diff := cmp.Diff(want, live[i].Object); diff != "" {
			t.Errorf("live %s (-want +got):\n%s", live[i].Type, diff)
		}
	}
	if o := live[2].Object; o["kind"] != "PartialObjectMetadata" || nameOf(o) != "b" {
		t.Errorf("DELETED object %v, want b's PartialObjectMetadata", o)
	}

	beta := e.c.watch(ctx, t, request{Path: e.cms(), Accept: metaAccept("PartialObjectMetadata", "v1beta1"),
		Query: q("resourceVersion", metaOf(a)["resourceVersion"].(string))})
	if ev := beta.mustNext(ctx, "replay as PartialObjectMetadata v1beta1"); ev.Object["apiVersion"] != "meta.k8s.io/v1beta1" || nameOf(ev.Object) != "b" {
		t.Errorf("replay as v1beta1: %s %v", ev.Type, ev.Object)
	}

	asList := e.c.watch(ctx, t, request{Path: e.cms(), Accept: metaAccept("PartialObjectMetadataList", "v1"), Query: q("timeoutSeconds", "60")})
	if ev, ok, closed := asList.next(ctx, eventTimeout); ok || !closed {
		t.Errorf("watch as PartialObjectMetadataList: event %v (%v), closed %v; want the stream to end at its first event with nothing sent", ev, ok, closed)
	}
}
