package watchcheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// TestFieldsAgreeWithServer: FieldsOf, reading a watch frame's JSON
// object (converted back to the kind's type), and FieldsOfObject, reading
// a typed object without its TypeMeta, give every built-in kind's
// selectable fields the values the server matches field selectors
// against (fieldlabels.Set), zero values included; the JSON form without
// apiVersion and kind gives none.
func TestFieldsAgreeWithServer(t *testing.T) {
	t.Parallel()
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "n"}
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", APIVersion: "v1", ResourceVersion: "7", FieldPath: "spec"}
	for _, c := range []struct {
		gk  schema.GroupKind
		obj runtime.Object
	}{
		{schema.GroupKind{Kind: "Pod"}, &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{NodeName: "node1", RestartPolicy: corev1.RestartPolicyNever, ServiceAccountName: "sa"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}}}},
		{schema.GroupKind{Kind: "Pod"}, &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{HostNetwork: true, SchedulerName: "s"}, Status: corev1.PodStatus{PodIP: "10.0.0.2", NominatedNodeName: "x"}}},
		{schema.GroupKind{Kind: "Node"}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Unschedulable: true}}},
		{schema.GroupKind{Kind: "Node"}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}},
		{schema.GroupKind{Kind: "ReplicationController"}, &corev1.ReplicationController{ObjectMeta: meta, Status: corev1.ReplicationControllerStatus{Replicas: 3}}},
		{schema.GroupKind{Kind: "ReplicationController"}, &corev1.ReplicationController{ObjectMeta: meta}},
		{schema.GroupKind{Kind: "Event"}, &corev1.Event{ObjectMeta: meta, InvolvedObject: ref, Reason: "r", Type: "Normal", ReportingController: "rc"}},
		{schema.GroupKind{Kind: "Event"}, &corev1.Event{ObjectMeta: meta, Source: corev1.EventSource{Component: "kubelet"}, ReportingController: "rc"}},
		{schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}, &eventsv1.Event{ObjectMeta: meta, Regarding: ref, Reason: "r", Type: "Warning", ReportingController: "rc"}},
		{schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}, &eventsv1.Event{ObjectMeta: meta, DeprecatedSource: corev1.EventSource{Component: "c"}}},
		{schema.GroupKind{Kind: "Namespace"}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}},
		{schema.GroupKind{Kind: "Secret"}, &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeTLS}},
		{schema.GroupKind{Kind: "Service"}, &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Type: corev1.ServiceTypeNodePort}}},
		{schema.GroupKind{Group: "batch", Kind: "Job"}, &batchv1.Job{ObjectMeta: meta, Status: batchv1.JobStatus{Succeeded: 2}}},
		{schema.GroupKind{Group: "batch", Kind: "Job"}, &batchv1.Job{ObjectMeta: meta}},
		{schema.GroupKind{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/s"}}},
		{schema.GroupKind{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}, &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s"}}},
		{schema.GroupKind{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}, &certificatesv1.PodCertificateRequest{ObjectMeta: meta, Spec: certificatesv1.PodCertificateRequestSpec{SignerName: "s", PodName: "p", NodeName: "node1"}}},
	} {
		l := fieldlabels.Builtin(c.gk)
		if l == nil {
			t.Fatalf("%v: no field labels", c.gk)
		}
		server := fieldlabels.Set(l, true, c.obj)
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c.obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := FieldsOf(u); got != nil {
			t.Errorf("%v %T: FieldsOf without apiVersion and kind = %v, want nil", c.gk, c.obj, got)
		}
		u["apiVersion"], u["kind"] = schema.GroupVersion{Group: c.gk.Group, Version: "v1"}.String(), c.gk.Kind
		for name, got := range map[string]map[string]string{"FieldsOf": FieldsOf(u), "FieldsOfObject": FieldsOfObject(c.obj)} {
			want, have := map[string]string{}, map[string]string{}
			for _, key := range l.Keys {
				if key == "metadata.name" || key == "metadata.namespace" || key == "status.podIPs" {
					continue // from the key; podIPs is "" upstream and here
				}
				want[key], have[key] = server[key], got[key]
			}
			for alias, to := range l.Aliases {
				want[alias], have[alias] = server[to], got[to]
			}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("%v %T: %s differs from the server's field set (-server +watchcheck):\n%s", c.gk, c.obj, name, diff)
			}
		}
	}
}
