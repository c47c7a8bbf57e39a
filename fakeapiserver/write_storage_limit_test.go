package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

const eventsPath = "/api/v1/namespaces/default/events"

// TestWriteStorageLimit: an object over etcd's 1.5 MiB request limit gets
// the real server's 500 and is not stored (conformance
// The conformance case ObjectTooLargeForStorage has the other cases: the gRPC limit, growth
// by patch, dry runs, dropped managedFields).
func TestWriteStorageLimit(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	event := mustJSON(t, map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "big"},
		"involvedObject": map[string]any{"kind": "ConfigMap", "name": "x", "namespace": "default"},
		"reason":         "R", "type": "Normal", "message": strings.Repeat("m", 1600<<10)})
	resp := doWrite(t, srv, http.MethodPost, eventsPath, event)
	want := wantFailure(http.StatusInternalServerError, "", "etcdserver: request is too large", nil)
	if diff := cmp.Diff(want, resp.status(t)); diff != "" || resp.code != http.StatusInternalServerError {
		t.Errorf("1.6 MiB event = %d, Status mismatch (-want +got):\n%s", resp.code, diff)
	}
	if got := doWrite(t, srv, http.MethodGet, eventsPath+"/big", nil); got.code != http.StatusNotFound {
		t.Errorf("GET after the refused create = %d, want 404", got.code)
	}
}

// configMapOfSize is a ConfigMap default/cm whose binaryData holds n bytes.
func configMapOfSize(n int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default", ResourceVersion: "12345"},
		BinaryData: map[string][]byte{"b": bytes.Repeat([]byte{7}, n)},
	}
}

// TestStorageValueSize: the size fitStorage checks is the length of the
// protobuf serializer's encoding (what kube-apiserver writes to etcd) for
// a built-in kind, and of the JSON encoding for a custom resource.
func TestStorageValueSize(t *testing.T) {
	t.Parallel()
	res := &resourceInfo{Resource: Resource{Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}, storageKey: "configmaps"}
	ser := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	for _, n := range []int{0, 100, 1 << 20} {
		var buf bytes.Buffer
		if err := ser.Encode(configMapOfSize(n), &buf); err != nil {
			t.Fatal(err)
		}
		got, err := storageValueSize(res, configMapOfSize(n))
		if err != nil || got != buf.Len() {
			t.Errorf("storageValueSize(ConfigMap of %d bytes) = %d, %v; want the protobuf encoding's %d", n, got, err, buf.Len())
		}
	}
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "x.example/v1", "kind": "W", "metadata": map[string]any{"name": "w"}}}
	data, err := json.Marshal(cr)
	if err != nil {
		t.Fatal(err)
	}
	crRes := &resourceInfo{Resource: Resource{Kind: cr.GroupVersionKind()}, storageKey: "ws.x.example"}
	if got, err := storageValueSize(crRes, cr); err != nil || got != len(data)+1 {
		t.Errorf("storageValueSize(custom resource) = %d, %v; want its JSON and a newline, %d", got, err, len(data)+1)
	}
}

// TestFitStorage: the limits' thresholds and errors, and the retry
// without managedFields.
func TestFitStorage(t *testing.T) {
	t.Parallel()
	res := &resourceInfo{Resource: Resource{Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}, storageKey: "configmaps"}
	if _, err := fitStorage(res, "default/cm", configMapOfSize(1500<<10)); err != nil {
		t.Errorf("1500 KiB: %v, want it stored", err)
	}
	if _, err := fitStorage(res, "default/cm", configMapOfSize(1540<<10)); err == nil || err.Error() != "etcdserver: request is too large" {
		t.Errorf("1540 KiB: %v, want etcd's request is too large", err)
	}
	_, err := fitStorage(res, "default/cm", configMapOfSize(2<<20))
	if err == nil || !regexp.MustCompile(`^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(2097\d{3} vs\. 2097152\)$`).MatchString(err.Error()) {
		t.Errorf("2 MiB: %v, want the gRPC send limit", err)
	}
	withFields := configMapOfSize(1 << 20)
	withFields.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:x":"` + strings.Repeat("y", 600<<10) + `"}`)}}}
	got, err := fitStorage(res, "default/cm", withFields)
	if err != nil {
		t.Fatalf("1 MiB with 600 KiB of managedFields: %v, want it stored without them", err)
	}
	if len(mustAccessor(got).GetManagedFields()) != 0 || len(withFields.ManagedFields) != 1 {
		t.Errorf("fitted object has %d managedFields entries (want 0), the caller's %d (want 1, untouched)",
			len(mustAccessor(got).GetManagedFields()), len(withFields.ManagedFields))
	}
	var _ runtime.Object = got
}
