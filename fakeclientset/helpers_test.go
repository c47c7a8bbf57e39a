package fakeclientset_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// testTimeout bounds waits outside synctest bubbles; it is a hang guard,
// never a pass condition (wait.ForeverTestTimeout's value).
const testTimeout = 30 * time.Second

// newPod is a valid pod.
func newPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
}

// newDeployment is a valid deployment with replicas pods.
func newDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// nextEvent receives w's next event, failing the test after testTimeout.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch closed, want an event")
		}
		return ev
	case <-time.After(testTimeout):
		t.Fatalf("no watch event after %v", testTimeout)
	}
	return watch.Event{}
}

// cannedResponse is a rest.ResponseWrapper with a fixed body.
type cannedResponse string

func (c cannedResponse) DoRaw(context.Context) ([]byte, error) { return []byte(c), nil }
func (c cannedResponse) Stream(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(string(c))), nil
}

// recv receives from ch, failing the test after testTimeout.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("nothing received after %v", testTimeout)
	}
	var zero T
	return zero
}

// waitFor polls cond until it holds, failing the test after testTimeout.
// Informer caches have no change notification of their own.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met after %v", testTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}
