package fakeapiserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
)

// widgetGVR is the resource of testWidgetCRD.
var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// testWidgetCRD is a namespaced CRD with a structural schema (a default, a
// maximum, a required field in status), the status subresource, a printer
// column and a selectable field, served in v1 (storage) and v1beta1.
func testWidgetCRD() *apiextensionsv1.CustomResourceDefinition {
	intSchema := func(extra func(*apiextensionsv1.JSONSchemaProps)) apiextensionsv1.JSONSchemaProps {
		p := apiextensionsv1.JSONSchemaProps{Type: "integer"}
		if extra != nil {
			extra(&p)
		}
		return p
	}
	v1Schema := &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"size": intSchema(func(p *apiextensionsv1.JSONSchemaProps) {
					p.Maximum = ptr.To(10.0)
					p.Default = &apiextensionsv1.JSON{Raw: []byte("1")}
				}),
				"color":    {Type: "string"},
				"replicas": intSchema(nil),
			}},
			"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"replicas": intSchema(nil),
				"selector": {Type: "string"},
			}},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
				ShortNames: []string{"wd"}, Categories: []string{"all"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: v1Schema},
					Subresources: &apiextensionsv1.CustomResourceSubresources{
						Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
						Scale: &apiextensionsv1.CustomResourceSubresourceScale{
							SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ptr.To(".status.selector"),
						},
					},
					AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "integer", JSONPath: ".spec.size"}},
					SelectableFields:         []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}},
				},
				{
					Name: "v1beta1", Served: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true),
					}},
				},
			},
		},
	}
}

// installCRD creates crd through the apiextensions clientset and checks
// that it is Established and NamesAccepted, as a client waiting for it on
// a real server would see.
func installCRD(t *testing.T, srv *Server, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	ctx := context.Background()
	cs := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig())
	created, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	if len(created.Status.Conditions) != 0 || created.Generation != 1 {
		t.Errorf("create answered conditions %v generation %d, want none (the controllers write them later) and 1", created.Status.Conditions, created.Generation)
	}
	got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get CRD: %v", err)
	}
	type cond struct{ Type, Status, Reason, Message string }
	var conds []cond
	for _, c := range got.Status.Conditions {
		conds = append(conds, cond{string(c.Type), string(c.Status), c.Reason, c.Message})
	}
	want := []cond{
		{"NamesAccepted", "True", "NoConflicts", "no conflicts found"},
		{"Established", "True", "InitialNamesAccepted", "the initial names have been accepted"},
	}
	if diff := cmp.Diff(want, conds); diff != "" {
		t.Fatalf("conditions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(crd.Spec.Names, got.Status.AcceptedNames); diff != "" {
		t.Errorf("acceptedNames (-spec +status):\n%s", diff)
	}
	return got
}

func TestCRDCreateEstablishesAndServes(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	crd := installCRD(t, srv, testWidgetCRD())
	if diff := cmp.Diff([]string{"v1"}, crd.Status.StoredVersions); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("conversion = %+v, want the default None", crd.Spec.Conversion)
	}

	// client-go's RESTMapper finds the kind and the short name, through
	// aggregated discovery.
	dc := discovery.NewDiscoveryClientForConfigOrDie(srv.RESTConfig())
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), dc, nil)
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	if err != nil {
		t.Fatalf("RESTMapping Widget: %v", err)
	}
	if m.Resource != widgetGVR || m.Scope.Name() != "namespace" {
		t.Errorf("mapping = %v %s, want %v namespace", m.Resource, m.Scope.Name(), widgetGVR)
	}
	if gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "wd"}); err != nil || gvr != widgetGVR {
		t.Errorf("short name wd = %v, %v; want %v", gvr, err, widgetGVR)
	}
	list, err := dc.ServerResourcesForGroupVersion("example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name+":"+strings.Join(r.Categories, ","))
	}
	if diff := cmp.Diff([]string{"widgets:all", "widgets/status:", "widgets/scale:"}, names); diff != "" {
		t.Errorf("example.com/v1 resources (-want +got):\n%s", diff)
	}
}

func TestCustomResourceCRUD(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	var warnings warningRecorder
	cfg := srv.RESTConfig()
	cfg.WarningHandler = &warnings
	dyn := dynamic.NewForConfigOrDie(cfg).Resource(widgetGVR).Namespace("default")

	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"},
		"spec":     map[string]any{"color": "red", "junk": "x"},
		"status":   map[string]any{"replicas": int64(3)},
	}}
	created, err := dyn.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	// Pruned, defaulted, status dropped (status subresource), generation 1.
	wantSpec := map[string]any{"color": "red", "size": int64(1)}
	if diff := cmp.Diff(wantSpec, created.Object["spec"]); diff != "" {
		t.Errorf("created spec (-want +got):\n%s", diff)
	}
	if _, ok := created.Object["status"]; ok || created.GetGeneration() != 1 {
		t.Errorf("created status %v generation %d, want none and 1", created.Object["status"], created.GetGeneration())
	}
	if diff := cmp.Diff([]string{`unknown field "spec.junk"`}, warnings.msgs); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	// Strict field validation turns the unknown field into a 400.
	_, err = dyn.Create(ctx, withName(w, "w2"), metav1.CreateOptions{FieldValidation: "Strict"})
	if want := `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.junk"`; err == nil || err.Error() != want || !apierrors.IsBadRequest(err) {
		t.Errorf("strict create = %v, want 400 %q", err, want)
	}

	// Schema validation: 422 with the apiextensions message.
	bad := withName(w, "w3")
	bad.Object["spec"] = map[string]any{"size": int64(11)}
	_, err = dyn.Create(ctx, bad, metav1.CreateOptions{})
	if want := `Widget.example.com "w3" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`; err == nil || err.Error() != want || !apierrors.IsInvalid(err) {
		t.Errorf("invalid create = %v, want 422 %q", err, want)
	}

	// Status subresource: the main resource ignores status, /status
	// ignores spec; only spec changes bump the generation.
	cur := created.DeepCopy()
	cur.Object["status"] = map[string]any{"replicas": int64(5)}
	cur.Object["spec"].(map[string]any)["size"] = int64(2)
	upd, err := dyn.Update(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if upd.Object["status"] != nil || upd.GetGeneration() != 2 {
		t.Errorf("update: status %v generation %d, want none and 2", upd.Object["status"], upd.GetGeneration())
	}
	upd.Object["status"] = map[string]any{"replicas": int64(5)}
	upd.Object["spec"].(map[string]any)["size"] = int64(9)
	st, err := dyn.UpdateStatus(ctx, upd, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if diff := cmp.Diff(map[string]any{"replicas": int64(5)}, st.Object["status"]); diff != "" || st.GetGeneration() != 2 {
		t.Errorf("status update: generation %d, status (-want +got):\n%s", st.GetGeneration(), diff)
	}
	if size := st.Object["spec"].(map[string]any)["size"]; size != int64(2) {
		t.Errorf("status update changed spec.size to %v", size)
	}

	// Merge and JSON patches; strategic merge is 415 for custom resources.
	p, err := dyn.Patch(ctx, "w1", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"color":"blue"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("merge patch: %v", err)
	}
	if p.GetLabels()["a"] != "b" || p.Object["spec"].(map[string]any)["color"] != "blue" || p.GetGeneration() != 3 {
		t.Errorf("merge patch result %v", p.Object)
	}
	if _, err := dyn.Patch(ctx, "w1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":4}]`), metav1.PatchOptions{}); err != nil {
		t.Errorf("json patch: %v", err)
	}
	_, err = dyn.Patch(ctx, "w1", types.StrategicMergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if want := "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"; err == nil || !apierrors.IsUnsupportedMediaType(err) || err.Error() != want {
		t.Errorf("strategic merge patch = %v, want 415 %q", err, want)
	}

	// v1beta1 reads the same object in its version.
	beta, err := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR.GroupResource().WithVersion("v1beta1")).Namespace("default").Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || beta.GetAPIVersion() != "example.com/v1beta1" {
		t.Errorf("get via v1beta1 = %v, %v; want apiVersion example.com/v1beta1", beta, err)
	}

	// Field selectors: metadata.name and the CRD's selectable field.
	list, err := dyn.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("list spec.color=blue = %v, %v; want w1", list, err)
	}
	_, err = dyn.List(ctx, metav1.ListOptions{FieldSelector: "spec.size=1"})
	if err == nil || !apierrors.IsBadRequest(err) {
		t.Errorf("list by an unselectable field = %v, want 400", err)
	}

	if err := dyn.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := dyn.Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete = %v, want 404", err)
	}
}

// withName returns a copy of u named name.
func withName(u *unstructured.Unstructured, name string) *unstructured.Unstructured {
	cp := u.DeepCopy()
	cp.SetName(name)
	return cp
}

// TestCustomResourceScale reads and writes the scale subresource through
// the dynamic client: an autoscaling/v1 Scale from the CRD's paths; an
// update sets spec.replicas, bumps the generation and honours a stale
// resourceVersion with 409.
func TestCustomResourceScale(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	w := widget("s")
	w.Object["spec"] = map[string]any{"replicas": int64(2)}
	if _, err := dyn.Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := dyn.Get(ctx, "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Object["status"] = map[string]any{"replicas": int64(1), "selector": "app=s"}
	if _, err := dyn.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := dyn.Get(ctx, "s", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("get scale: %v", err)
	}
	got := map[string]any{"apiVersion": scale.GetAPIVersion(), "kind": scale.GetKind(), "spec": scale.Object["spec"], "status": scale.Object["status"]}
	want := map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"replicas": int64(1), "selector": "app=s"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scale (-want +got):\n%s", diff)
	}
	stale := scale.DeepCopy()
	scale.Object["spec"] = map[string]any{"replicas": int64(5)}
	updated, err := dyn.Update(ctx, scale, metav1.UpdateOptions{}, "scale")
	if err != nil {
		t.Fatalf("update scale: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(updated.Object, "spec", "replicas"); r != 5 {
		t.Errorf("scale after update: spec.replicas = %d, want 5", r)
	}
	obj, err := dyn.Get(ctx, "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); r != 5 || obj.GetGeneration() != 2 {
		t.Errorf("object after a scale update: spec.replicas %d generation %d, want 5 and 2", r, obj.GetGeneration())
	}
	stale.Object["spec"] = map[string]any{"replicas": int64(7)}
	if _, err := dyn.Update(ctx, stale, metav1.UpdateOptions{}, "scale"); !apierrors.IsConflict(err) {
		t.Errorf("scale update at a stale resourceVersion = %v, want 409", err)
	}
	if _, err := dyn.Patch(ctx, "s", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Errorf("merge patch scale: %v", err)
	}
}

// TestCustomResourceScaleWithoutReplicas: reading the Scale of an object
// without spec replicas is the registry's 500.
func TestCustomResourceScaleWithoutReplicas(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	if _, err := dyn.Create(t.Context(), widget("n"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := dyn.Get(t.Context(), "n", metav1.GetOptions{}, "scale")
	if want := `Internal error occurred: the spec replicas field ".spec.replicas" does not exist`; !apierrors.IsInternalError(err) || err.Error() != want {
		t.Errorf("get scale = %v, want 500 %q", err, want)
	}
}

// TestCustomResourceProtobuf: custom resources are JSON and YAML only. A
// protobuf-only Accept is the handlers' 406 (its Status in protobuf, as
// kube-apiserver writes it); protobuf then JSON gets JSON; a protobuf body
// is 415.
func TestCustomResourceProtobuf(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	if _, err := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default").Create(t.Context(), widget("p"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{}
	defer hc.CloseIdleConnections()
	url := srv.URL() + "/apis/example.com/v1/namespaces/default/widgets/p"
	get := func(accept string) (int, string, []byte) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		req.Header.Set("Accept", accept)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), body
	}
	code, ct, body := get("application/vnd.kubernetes.protobuf")
	if code != http.StatusNotAcceptable || ct != "application/vnd.kubernetes.protobuf" ||
		!bytes.Contains(body, []byte("only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")) {
		t.Errorf("protobuf-only Accept = %d %s %q, want the 406 in protobuf", code, ct, body)
	}
	if code, ct, _ := get("application/vnd.kubernetes.protobuf, application/json"); code != http.StatusOK || ct != "application/json" {
		t.Errorf("protobuf, json Accept = %d %s, want 200 JSON", code, ct)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/apis/example.com/v1/namespaces/default/widgets", strings.NewReader("k8s\x00"))
	req.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("protobuf body = %d, want 415", resp.StatusCode)
	}
}

// TestCustomResourceApply: server-side apply on a custom resource records
// the manager's fields from the CRD's schema, and another manager changing
// them gets the 409 conflict; updates record Update entries.
func TestCustomResourceApply(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	apply := func(manager string, size int) (*unstructured.Unstructured, error) {
		body := fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"x"},"spec":{"size":%d}}`, size)
		return dyn.Patch(t.Context(), "x", types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: manager})
	}
	o, err := apply("alice", 2)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	mf := o.GetManagedFields()
	if len(mf) != 1 || mf[0].Manager != "alice" || mf[0].Operation != metav1.ManagedFieldsOperationApply || string(mf[0].FieldsV1.Raw) != `{"f:spec":{"f:size":{}}}` {
		t.Errorf("managedFields after apply = %+v", mf)
	}
	if s, _, _ := unstructured.NestedInt64(o.Object, "spec", "size"); s != 2 || o.GetGeneration() != 1 {
		t.Errorf("applied object: spec.size %d generation %d, want 2 and 1", s, o.GetGeneration())
	}
	_, err = apply("bob", 3)
	if want := `Apply failed with 1 conflict: conflict with "alice": .spec.size`; !apierrors.IsConflict(err) || err.Error() != want {
		t.Errorf("apply by another manager = %v, want 409 %q", err, want)
	}
	created, err := dyn.Create(t.Context(), widget("y"), metav1.CreateOptions{FieldManager: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	if mf := created.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "carol" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate {
		t.Errorf("managedFields after create = %+v", mf)
	}
}
