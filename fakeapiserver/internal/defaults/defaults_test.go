package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// TestPodImagePullPolicy: a container without a pull policy gets Always
// for an image whose tag is latest (or missing), IfNotPresent otherwise,
// with the tag read as ParseImageName reads it (a registry port is not a
// tag; a digest has none).
func TestPodImagePullPolicy(t *testing.T) {
	t.Parallel()
	for image, want := range map[string]corev1.PullPolicy{
		"nginx":                         corev1.PullAlways,
		"nginx:latest":                  corev1.PullAlways,
		"nginx:1.27":                    corev1.PullIfNotPresent,
		"registry:5000/nginx":           corev1.PullAlways,
		"registry:5000/nginx:1.27":      corev1.PullIfNotPresent,
		"nginx@sha256:0123456789abcdef": corev1.PullIfNotPresent,
	} {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}
		Pod(pod)
		if got := pod.Spec.Containers[0].ImagePullPolicy; got != want {
			t.Errorf("image %q: pull policy %q, want %q", image, got, want)
		}
	}
}

// TestPrepareForCreateTolerations: a new pod gets the 300 s NoExecute
// tolerations of the not-ready and unreachable taints, except where it
// already tolerates the taint.
func TestPrepareForCreateTolerations(t *testing.T) {
	t.Parallel()
	own := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{own}}}
	PodForCreate(pod)
	secs := int64(defaultTolerationSeconds)
	want := []corev1.Toleration{own, {Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}
	if diff := cmp.Diff(want, pod.Spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	if pod.Spec.ServiceAccountName != "default" || pod.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("serviceAccountName %q, qosClass %q; want default, BestEffort", pod.Spec.ServiceAccountName, pod.Status.QOSClass)
	}
}
