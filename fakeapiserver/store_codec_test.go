package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestDecodeEveryReadAnswersAlike runs the reads that take a stored
// object (GET, LIST pages in JSON and protobuf, label and field selectors,
// a selector watch that sees objects enter and leave, patch, delete)
// against a server whose store keeps every built-in object only as its
// protobuf (store_codec.go), and a server that keeps them decoded: every
// answer, stripped of what the servers draw themselves (uid, timestamps),
// is the same.
func TestDecodeEveryReadAnswersAlike(t *testing.T) {
	run := func(decodeEveryRead bool) []any {
		srv := Start(t, WithConfig(func(c *Config) { c.decodeEveryRead = decodeEveryRead }))
		var out []any
		for _, contentType := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
			cfg := rest.CopyConfig(srv.RESTConfig())
			cfg.ContentType = contentType
			out = append(out, decodeEveryReadScript(t, kubernetes.NewForConfigOrDie(cfg), "ns-"+map[bool]string{true: "p", false: "j"}[contentType != "application/json"])...)
		}
		return out
	}
	decoded, encoded := run(false), run(true)
	if diff := cmp.Diff(decoded, encoded); diff != "" {
		t.Errorf("answers differ (-decoded +decode every read):\n%s", diff)
	}
}

// decodeEveryReadScript does the reads of TestDecodeEveryReadAnswersAlike
// in namespace ns and returns what they answered, normalised.
func decodeEveryReadScript(t *testing.T, cs kubernetes.Interface, ns string) []any {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	w, err := cms.Watch(ctx, metav1.ListOptions{LabelSelector: "app=a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var out []any
	keep := func(v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, normalised(v))
	}
	for i, app := range []string{"a", "b", "a", "a"} {
		keep(cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cm-" + string(rune('0'+i)), Labels: map[string]string{"app": app}},
			Data:       map[string]string{"k": app, "empty": ""},
		}, metav1.CreateOptions{}))
	}
	keep(cms.Patch(ctx, "cm-0", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"b"}}}`), metav1.PatchOptions{}))
	keep(cms.Patch(ctx, "cm-1", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"a"}},"data":{"k":"moved"}}`), metav1.PatchOptions{}))
	keep(cms.Get(ctx, "cm-2", metav1.GetOptions{}))
	keep(cms.List(ctx, metav1.ListOptions{}))
	keep(cms.List(ctx, metav1.ListOptions{Limit: 2}))
	keep(cms.List(ctx, metav1.ListOptions{LabelSelector: "app=a"}))
	keep(cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=cm-3"}))
	keep(cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{FieldSelector: "metadata.namespace=" + ns}))
	if err := cms.Delete(ctx, "cm-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	keep(cms.List(ctx, metav1.ListOptions{}))
	// cm-0, cm-2, cm-3 added; cm-0 leaves (DELETED); cm-1 enters (ADDED);
	// cm-2 deleted.
	for range 6 {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatal("watch ended early")
		}
		out = append(out, string(ev.Type), normalised(ev.Object))
	}
	return out
}

// normalised is v with what two servers draw differently (uid, creation
// and managed fields times) and the per-content-type namespace taken out.
// Resource versions stay: both servers make the same writes.
func normalised(v any) any {
	strip := func(cm corev1.ConfigMap) corev1.ConfigMap {
		cm = *cm.DeepCopy()
		cm.UID, cm.CreationTimestamp, cm.ManagedFields, cm.Namespace = "", metav1.Time{}, nil, ""
		return cm
	}
	switch o := v.(type) {
	case *corev1.ConfigMap:
		return strip(*o)
	case *corev1.ConfigMapList:
		var items []corev1.ConfigMap
		for _, cm := range o.Items {
			items = append(items, strip(cm))
		}
		return items
	case watch.Event:
		return normalised(o.Object)
	}
	return v
}
