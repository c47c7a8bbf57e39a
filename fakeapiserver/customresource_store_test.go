package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// TestCustomResourcesDecodeEveryReadAnswersAlike runs one script of
// custom resource writes and reads (GET; LIST pages in JSON, in the
// storage version and in a "None"-converted one, paged, by label, by
// metadata field and by the CRD's selectable field; a protobuf-only LIST's
// 406; metadata-only and YAML lists; merge patch, server-side apply, the
// status and scale subresources; a CRD update that adds a default the
// stored objects lack, so their views differ from them; label and field
// selector watches) against three servers: one keeping custom resources
// decoded as written (the reference), one keeping them as their JSON
// (customresource_store.go) and one decoding that JSON on every read.
// Every answer's bytes, with what the servers draw themselves (uids,
// timestamps) blanked, are the same.
func TestCustomResourcesDecodeEveryReadAnswersAlike(t *testing.T) {
	t.Parallel()
	run := func(decoded, decodeEveryRead bool, want []string) []string {
		srv := Start(t, WithConfig(func(c *Config) {
			c.customResourcesDecoded, c.decodeEveryRead = decoded, decodeEveryRead
			c.Clock = clocktesting.NewFakeClock(applyEpoch) // managed fields' times, and their order
		}))
		return customReadsScript(t, srv, want)
	}
	reference := run(true, false, nil)
	for _, tc := range []struct {
		name            string
		decodeEveryRead bool
	}{{"encoded", false}, {"decode every read", true}} {
		if diff := cmp.Diff(reference, run(false, tc.decodeEveryRead, reference)); diff != "" {
			t.Errorf("%s: answers differ (-kept decoded +%s):\n%s", tc.name, tc.name, diff)
		}
	}
}

// drawnFields are the members of an answer two servers draw differently.
var drawnFields = regexp.MustCompile(`"(uid|creationTimestamp)":"[^"]*"|(uid|creationTimestamp): .*`)

// answerKey is an answer's body as two servers' answers compare: its
// drawn fields blanked, and when it is JSON, its managed fields' times
// taken out and the entries sorted, for their order follows the wall
// clock's seconds (the CR field manager's time). With canonical set the
// body must be encoding/json's of its own decoded value: what the
// unstructured serializer writes.
func answerKey(t *testing.T, body []byte, canonical bool) string {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return drawnFields.ReplaceAllString(string(body), `"$1":""`) // protobuf
	}
	if canonical {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.TrimSuffix(body, []byte("\n")); !bytes.Equal(got, want) {
			t.Errorf("body is not the serializer's:\n%s", cmp.Diff(string(want), string(got)))
		}
	}
	var walk func(any)
	walk = func(v any) {
		switch o := v.(type) {
		case map[string]any:
			if mf, ok := o["managedFields"].([]any); ok {
				for _, e := range mf {
					delete(e.(map[string]any), "time")
				}
				slices.SortFunc(mf, func(a, b any) int {
					ja, _ := json.Marshal(a)
					jb, _ := json.Marshal(b)
					return strings.Compare(string(ja), string(jb))
				})
			}
			for _, c := range o {
				walk(c)
			}
		case []any:
			for _, c := range o {
				walk(c)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return drawnFields.ReplaceAllString(string(b), `"$1":""`)
}

// customReadsScript does TestCustomResourcesDecodeEveryReadAnswersAlike's
// writes and reads on srv and returns every answer (status line and body,
// drawn fields blanked) in order. With want (the reference's answers) it
// fails at the first answer that differs, before a server that answers
// wrongly can hold a later step up.
func customReadsScript(t *testing.T, srv *Server, want []string) []string {
	t.Helper()
	var out []string
	answer := func(s string) {
		t.Helper()
		if want != nil && (len(out) >= len(want) || want[len(out)] != s) {
			var w string
			if len(out) < len(want) {
				w = want[len(out)]
			}
			t.Fatalf("answer %d differs (-reference +got):\n%s", len(out), cmp.Diff(w, s))
		}
		out = append(out, s)
	}
	ctx := t.Context()
	installCRD(t, srv, testWidgetCRD())
	// The controllers write the group's APIService after the CRD; once it
	// is in, the script's writes are the only ones, at the same RVs on
	// every server (else one answered resourceVersion 205 where another
	// answered 207, under load).
	waitForWidgetAPIServices(t, srv)
	if _, err := srv.Clientset().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crs"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(srv.RESTConfig())
	widgets := dc.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace("crs")
	byLabel, err := widgets.Watch(ctx, metav1.ListOptions{LabelSelector: "app=a"})
	if err != nil {
		t.Fatal(err)
	}
	defer byLabel.Stop()
	byColor, err := widgets.Watch(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"})
	if err != nil {
		t.Fatal(err)
	}
	defer byColor.Stop()

	keep := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		answer(what + ": " + answerKey(t, b, false))
	}
	raw := func(path, accept string, canonical bool) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if accept == "application/yaml" {
			if body, err = yaml.YAMLToJSON(body); err != nil { // compared as its JSON
				t.Fatal(err)
			}
		}
		answer(fmt.Sprintf("GET %s (%s): %s %s", path, accept, resp.Status, answerKey(t, body, canonical)))
	}
	for i, w := range []struct{ app, color, spec string }{
		{"a", "red", `"size":3,"replicas":1`}, {"b", "blue", `"size":4`}, {"a", "", `"replicas":2`}, {"a", "red", `"size":10,"replicas":3`}, {"b", "", ``},
	} {
		spec := w.spec
		if w.color != "" {
			spec = strings.TrimPrefix(spec+`,"color":"`+w.color+`"`, ",")
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON([]byte(fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-%d","labels":{"app":%q}},"spec":{%s},"status":{"replicas":1,"selector":"app=x"}}`, i, w.app, spec))); err != nil {
			t.Fatal(err)
		}
		got, err := widgets.Create(ctx, obj, metav1.CreateOptions{})
		keep("create", got, err)
	}
	got, err := widgets.Patch(ctx, "w-0", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"b"}},"spec":{"color":"green"}}`), metav1.PatchOptions{})
	keep("merge patch", got, err)
	got, err = widgets.Patch(ctx, "w-1", types.ApplyPatchType, []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-1","labels":{"app":"a"}},"spec":{"color":"red"}}`), metav1.PatchOptions{FieldManager: "applier", Force: ptr.To(true)})
	keep("apply", got, err)
	got, err = widgets.Patch(ctx, "w-2", types.MergePatchType, []byte(`{"status":{"replicas":5}}`), metav1.PatchOptions{}, "status")
	keep("status patch", got, err)
	got, err = widgets.Get(ctx, "w-2", metav1.GetOptions{}, "scale")
	keep("get scale", got, err)
	got, err = widgets.Patch(ctx, "w-3", types.MergePatchType, []byte(`{"spec":{"replicas":7}}`), metav1.PatchOptions{}, "scale")
	keep("scale patch", got, err)
	if err := widgets.Delete(ctx, "w-4", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	reads := func() {
		t.Helper()
		got, err := widgets.Get(ctx, "w-2", metav1.GetOptions{})
		keep("get", got, err)
		const v1, v1beta1 = "/apis/example.com/v1/namespaces/crs/widgets", "/apis/example.com/v1beta1/namespaces/crs/widgets"
		for _, path := range []string{
			v1, v1beta1, v1beta1, "/apis/example.com/v1/widgets", v1 + "/w-2", v1beta1 + "/w-3",
			v1 + "?limit=2", v1beta1 + "?limit=3", v1 + "?labelSelector=app%3Da",
			v1 + "?fieldSelector=metadata.name%3Dw-1", v1 + "?fieldSelector=spec.color%3Dred",
			v1 + "/w-3/status",
		} {
			raw(path, "application/json", true)
		}
		raw(v1+"/w-3/scale", "application/json", false)
		l, err := widgets.List(ctx, metav1.ListOptions{Limit: 2})
		keep("list page 1", l, err)
		l, err = widgets.List(ctx, metav1.ListOptions{Limit: 2, Continue: l.GetContinue()})
		keep("list page 2", l, err)
		raw(v1, "application/vnd.kubernetes.protobuf", false)
		raw(v1, "application/yaml", false)
		raw(v1, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", false)
		raw(v1beta1+"?limit=1", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", false)
	}
	reads()
	// app=a: w-0, w-2, w-3 added, w-0 leaves, w-1 enters, w-2's status
	// and w-3's scale change. spec.color=red: w-0 and w-3 added, w-0
	// leaves, w-1 enters, w-3's scale changes. Both end with the marker,
	// written last (hot, so the codec is not in its way): a server that
	// loses an event is caught by the comparison, not by a hang.
	marker := &unstructured.Unstructured{}
	if err := marker.UnmarshalJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"marker","labels":{"app":"a"}},"spec":{"color":"red"}}`)); err != nil {
		t.Fatal(err)
	}
	got, err = widgets.Create(ctx, marker, metav1.CreateOptions{})
	keep("create marker", got, err)
	for _, w := range []struct {
		name string
		w    watch.Interface
	}{{"label watch", byLabel}, {"field watch", byColor}} {
		for {
			ev, ok := <-w.w.ResultChan()
			if !ok {
				t.Fatalf("%s ended early", w.name)
			}
			keep(w.name+" "+string(ev.Type), ev.Object, nil)
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && u.GetName() == "marker" {
				break
			}
		}
	}
	if err := widgets.Delete(ctx, "marker", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A default the stored objects without a color lack: their views
	// are no longer the stored objects.
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	color := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["color"]
	color.Default = &apiextensionsv1.JSON{Raw: []byte(`"grey"`)}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["color"] = color
	if _, err := crds.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	reads()
	got, err = widgets.Patch(ctx, "w-2", types.MergePatchType, []byte(`{"metadata":{"annotations":{"x":"y"}}}`), metav1.PatchOptions{})
	keep("patch after default", got, err)
	reads()

	return out
}
