package fakeapiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCreateWithResourceVersion: what controller-runtime's dry-run
// creates do (an object read back, its resourceVersion still set): a
// dry-run create answers 201 with that resourceVersion and stores
// nothing; a real create of it is the 500, of an unparsable one a
// fresh resourceVersion.
func TestCreateWithResourceVersion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	ctx := t.Context()
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "42"}}
	got, err := cms.Create(ctx, obj, metav1.CreateOptions{DryRun: dryAll})
	if err != nil || got.ResourceVersion != "42" || got.UID == "" {
		t.Fatalf("dry-run Create(rv 42) = %v, %v; want rv 42 and a uid", got, err)
	}
	if _, err := cms.Get(ctx, "c", metav1.GetOptions{}); err == nil {
		t.Errorf("Get after a dry-run create found the object")
	}
	if _, err := cms.Create(ctx, obj, metav1.CreateOptions{}); err == nil || err.Error() != errResourceVersionOnCreate.Error() {
		t.Errorf("Create(rv 42) = %v, want %q", err, errResourceVersionOnCreate)
	}
	obj.ResourceVersion = "x1"
	got, err = cms.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil || got.ResourceVersion == "x1" || !isStorageRV(got.ResourceVersion) {
		t.Errorf("Create(rv x1) = %v, %v; want a fresh resourceVersion", got, err)
	}
}
