package kinds

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// template is a pod template the workload validations default (on a copy)
// before they check it.
func template() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}},
	}
}

// TestValidationsDoNotModify: every built-in strategy's validation leaves the object and
// the stored one as they were, on create, on update and on a status
// update, although several default a copy of the pod template before
// checking it.
func TestValidationsDoNotModify(t *testing.T) {
	t.Parallel()
	meta := metav1.ObjectMeta{Name: "a", Namespace: "ns", Finalizers: []string{"bad"}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	objects := map[schema.GroupKind]runtime.Object{
		{Kind: "Pod"}:                   &corev1.Pod{ObjectMeta: meta, Spec: template().Spec},
		{Kind: "ReplicationController"}: &corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{Template: new(template())}},
		{Kind: "ConfigMap"}:             &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}},
		{Kind: "Secret"}:                &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"k": "v"}, Type: corev1.SecretTypeTLS},
		{Kind: "Service"}:               &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		{Kind: "Namespace"}:             &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Finalizers: []string{"bad"}}},
		{Kind: "PersistentVolumeClaim"}: &corev1.PersistentVolumeClaim{ObjectMeta: meta, Status: corev1.PersistentVolumeClaimStatus{
			Capacity:                  corev1.ResourceList{"storage": resource.MustParse("-1"), "b": resource.MustParse("1")},
			AllocatedResourceStatuses: map[corev1.ResourceName]corev1.ClaimResourceStatus{"cpu": "x", "storage": "y"}}},
		{Kind: "Node"}: &corev1.Node{ObjectMeta: meta, Status: corev1.NodeStatus{
			Capacity:         corev1.ResourceList{"pods": resource.MustParse("1500m"), "cpu": resource.MustParse("-1")},
			DeclaredFeatures: []string{"b", "a"}}},
		{Group: "apps", Kind: "Deployment"}:  &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Selector: sel, Template: template()}},
		{Group: "apps", Kind: "ReplicaSet"}:  &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Selector: sel, Template: template()}},
		{Group: "apps", Kind: "StatefulSet"}: &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Selector: sel, Template: template()}},
		{Group: "apps", Kind: "DaemonSet"}:   &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: sel, Template: template()}},
		{Group: "batch", Kind: "Job"}:        &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Template: template()}},
		{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta,
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: "AbleToScale"}}}},
		{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: &certificatesv1.CertificateSigningRequest{ObjectMeta: meta,
			Status: certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("x"), Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: "Approved"}}}},
	}
	for gk, obj := range objects {
		validate, validateStatus := validations(For(gk))
		if len(validate(obj.DeepCopyObject(), nil)) == 0 {
			t.Errorf("%v: no error for an object with an unqualified finalizer", gk)
		}
		old := obj.DeepCopyObject()
		want, wantOld := obj.DeepCopyObject(), old.DeepCopyObject()
		validate(obj, nil)
		validate(obj, old)
		validateStatus(obj, old)
		if diff := cmp.Diff(want, obj); diff != "" {
			t.Errorf("%v: validation changed the object (-before +after):\n%s", gk, diff)
		}
		if diff := cmp.Diff(wantOld, old); diff != "" {
			t.Errorf("%v: validation changed the stored object (-before +after):\n%s", gk, diff)
		}
	}
}

// TestGenericAndNamespaceNames: validation.Generic, what a kind without a
// validation of its own gets, checks a DNS-subdomain name, and the
// Namespace strategy's stricter rule (a DNS label) is not the generic one.
func TestGenericAndNamespaceNames(t *testing.T) {
	t.Parallel()
	dotted := metav1.ObjectMeta{Name: "a.b"}
	if errs := validation.Generic(&corev1.Endpoints{ObjectMeta: dotted}, nil); len(errs) != 0 {
		t.Errorf("Endpoints named a.b: %v, want no error", errs)
	}
	if errs := validation.Generic(&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "A"}}, nil); len(errs) != 1 {
		t.Errorf("Endpoints named A: %v, want one error", errs)
	}
	if errs := For(schema.GroupKind{Kind: "Namespace"}).Validate(&corev1.Namespace{ObjectMeta: dotted}, nil); len(errs) != 1 {
		t.Errorf("Namespace named a.b: %v, want one error (a DNS label)", errs)
	}
}

// validations are a strategy's validations with the server's defaults for
// the ones it leaves out (fakeapiserver write_strategy.go).
func validations(st Strategy) (validate, validateStatus validation.Func) {
	validate, validateStatus = st.Validate, st.ValidateStatus
	if validate == nil {
		validate = validation.Generic
	}
	if validateStatus == nil {
		validateStatus = validation.MetaUpdate
	}
	return validate, validateStatus
}
