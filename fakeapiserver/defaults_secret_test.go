package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// TestSecretDefaults: through client-go's typed calls, a Secret written
// without a type (create, update, server-side apply) is stored Opaque, and
// stringData is merged into data and never stored nor returned, as
// kube-apiserver's decoding does.
func TestSecretDefaults(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	secrets := srv.Clientset().CoreV1().Secrets("default")
	ctx := t.Context()
	created, err := secrets.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data:       map[string][]byte{"a": []byte("1"), "b": []byte("2")},
		StringData: map[string]string{"b": "two", "c": "3"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := map[string][]byte{"a": []byte("1"), "b": []byte("two"), "c": []byte("3")}
	if created.Type != corev1.SecretTypeOpaque || created.StringData != nil || !cmp.Equal(want, created.Data) {
		t.Errorf("Create = type %q data %q stringData %q, want Opaque, %q, none", created.Type, created.Data, created.StringData, want)
	}
	got, err := secrets.Get(ctx, "s", metav1.GetOptions{})
	if err != nil || got.Type != corev1.SecretTypeOpaque || got.StringData != nil || !cmp.Equal(want, got.Data) {
		t.Errorf("Get = %v, %v; want the created secret", got, err)
	}

	upd := got.DeepCopy()
	upd.Type = ""
	upd.StringData = map[string]string{"d": "4"}
	updated, err := secrets.Update(ctx, upd, metav1.UpdateOptions{})
	if err != nil || updated.Type != corev1.SecretTypeOpaque || string(updated.Data["d"]) != "4" || updated.StringData != nil {
		t.Errorf("Update without type = %v, %v; want Opaque with d=4 in data", updated, err)
	}

	applied, err := secrets.Apply(ctx, corev1ac.Secret("applied", "default").WithStringData(map[string]string{"k": "v"}),
		metav1.ApplyOptions{FieldManager: "test"})
	if err != nil || applied.Type != corev1.SecretTypeOpaque || string(applied.Data["k"]) != "v" || applied.StringData != nil {
		t.Errorf("Apply = %v, %v; want Opaque with k=v in data", applied, err)
	}
}
