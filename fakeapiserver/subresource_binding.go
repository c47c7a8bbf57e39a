package fakeapiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
)

// handleBinding answers POST .../pods/<name>/binding with a v1 Binding,
// as kubernetes pkg/registry/core/pod/storage/storage.go BindingREST
// does: it sets spec.nodeName to the target, merges the Binding's
// annotations, clears status.nominatedNodeName and sets the PodScheduled
// condition, in one write that bypasses the pod strategy (generation
// unchanged, no validation of the pod). The answer is 201 with a Success
// Status.
func (s *Server) handleBinding(req *request) (response, error) {
	return s.postSubresource(req, bindingGVK, func() runtime.Object { return &corev1.Binding{} }, s.bind)
}

// bind checks the Binding and assigns the pod.
func (s *Server) bind(req *request, obj runtime.Object) error {
	b, ok := obj.(*corev1.Binding)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %#v", obj))
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, b); err != nil {
		return err
	}
	if b.Name != req.info.name {
		return apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validateBinding(b); len(errs) > 0 {
		// BindingREST returns the aggregate, not a StatusError: a 500.
		return errs.ToAggregate()
	}
	if err := s.admitValidating(writeAdmission(req, nil), admission.Create, b.DeepCopy(), nil); err != nil {
		return err
	}
	return s.assignPod(req, b)
}

// validateBinding is ValidatePodBinding.
func validateBinding(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	} else if b.Target.Kind == "" || b.Target.Kind == "Node" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(b.Target.Name, false) {
			errs = append(errs, field.Invalid(field.NewPath("target", "name"), b.Target.Name, msg))
		}
	}
	return errs
}

// assignPod is setPodNodeAndMetadata over the read-modify-write loop, with
// the Binding's uid and resourceVersion as preconditions. A pod being
// deleted, already bound or with scheduling gates is a 409 Conflict on
// "pods/binding" with the registry's message.
func (s *Server) assignPod(req *request, b *corev1.Binding) error {
	for {
		cur, err := s.current(req.res, req.info.namespace, req.info.name)
		if err != nil {
			return err
		}
		pod, ok := cur.(*corev1.Pod)
		if !ok {
			return fmt.Errorf("unexpected object: %T", cur)
		}
		if err := bindingPreconditions(req, b, pod); err != nil {
			return err
		}
		next, err := boundPod(pod, b, s)
		if err != nil {
			return apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, pod.Name, err)
		}
		rv, _ := parseResourceVersion(pod.ResourceVersion)
		_, err = s.storeUpdate(req.res, objectKey(req.res, pod.Namespace, pod.Name), next, rv, isDryRun(req.r))
		if isRetryable(err) {
			continue
		}
		return err
	}
}

// bindingPreconditions is storage.Preconditions.Check as
// InterpretUpdateError reports it: a 409 quoting the StorageError.
func bindingPreconditions(req *request, b *corev1.Binding, pod *corev1.Pod) error {
	var msg string
	switch {
	case b.UID != "" && b.UID != pod.UID:
		msg = fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID)
	case b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion:
		msg = fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", b.ResourceVersion, pod.ResourceVersion)
	default:
		return nil
	}
	return storagePreconditionFailed(req.res, pod.Namespace, pod.Name, msg)
}

// boundPod returns the pod assigned to the Binding's target, or the
// reason it cannot be.
func boundPod(pod *corev1.Pod, b *corev1.Binding, s *Server) (*corev1.Pod, error) {
	switch {
	case pod.DeletionTimestamp != nil:
		return nil, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return nil, fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return nil, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	next := pod.DeepCopy()
	next.Spec.NodeName = b.Target.Name
	next.Status.NominatedNodeName = ""
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		next.Annotations[k] = v
	}
	setPodCondition(&next.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, s.cfg.Clock.Now())
	return next, nil
}
