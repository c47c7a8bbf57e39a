package fakeapiserver

import (
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// handleEviction answers POST .../pods/<name>/eviction with a policy/v1
// Eviction, as kubernetes pkg/registry/core/pod/storage/eviction.go does
// for a pod no PodDisruptionBudget covers: lw-sim ignores
// PodDisruptionBudgets, so every eviction is allowed (never the 429 a
// budget with no disruptions left gives). The pod gets the
// DisruptionTarget condition (a MODIFIED event; not on a dry run) and is
// then deleted as DELETE deletes it, with the Eviction's deleteOptions
// (grace period, preconditions, dryRun). The answer is 201 with a Success
// Status.
func (s *Server) handleEviction(req *request) (response, error) {
	return s.postSubresource(req, evictionGVK, func() runtime.Object { return &policyv1.Eviction{} }, s.evict)
}

// evict runs EvictionREST.Create on a decoded Eviction body.
func (s *Server) evict(req *request, obj runtime.Object) error {
	ev, ok := obj.(*policyv1.Eviction)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", obj))
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, ev); err != nil {
		return err
	}
	if ev.Name != req.info.name {
		return apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if ev.DeleteOptions != nil && ev.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *ev.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential {
		errs := field.ErrorList{field.Invalid(field.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option")}
		return apierrors.NewInvalid(evictionGVK.GroupKind(), ev.Name, errs)
	}
	opts, err := evictionDeleteOptions(ev, kubewire.QueryOf(req.r)["dryRun"])
	if err != nil {
		return err
	}
	if err := s.admitValidating(writeAdmission(req, nil), admission.Create, ev.DeepCopy(), nil); err != nil {
		return err
	}
	if !isDryRunDelete(opts) {
		if opts, err = s.markDisruptionTarget(req, opts); err != nil {
			return err
		}
	}
	_, _, err = s.deleteObject(req.res, req.info.namespace, req.info.name, opts, nil)
	return err
}

// evictionDeleteOptions is propagateDryRun: the request's dryRun and the
// Eviction's deleteOptions.dryRun must agree when both are set (a plain
// error, so a 500, otherwise).
func evictionDeleteOptions(ev *policyv1.Eviction, dryRun []string) (*metav1.DeleteOptions, error) {
	if ev.DeleteOptions == nil {
		return &metav1.DeleteOptions{DryRun: dryRun}, nil
	}
	opts := ev.DeleteOptions.DeepCopy()
	switch {
	case len(opts.DryRun) == 0:
		opts.DryRun = dryRun
	case len(dryRun) > 0 && !reflect.DeepEqual(dryRun, opts.DryRun):
		return nil, fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", dryRun, opts.DryRun)
	}
	return opts, nil
}

// markDisruptionTarget is addConditionAndDeletePod's status update: the
// latest pod, after the deleteOptions preconditions (409 naming the kind
// "Pod"), gets the condition DisruptionTarget=True. A resourceVersion
// precondition moves to the updated pod, which the eviction itself wrote.
func (s *Server) markDisruptionTarget(req *request, opts *metav1.DeleteOptions) (*metav1.DeleteOptions, error) {
	for {
		cur, err := s.current(req.res, req.info.namespace, req.info.name)
		if err != nil {
			return nil, err
		}
		if err := checkPreconditions(req.res, req.info.name, cur, opts.Preconditions); err != nil {
			return nil, err
		}
		pod, ok := cur.(*corev1.Pod)
		if !ok {
			return opts, nil
		}
		next := pod.DeepCopy()
		setPodCondition(&next.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"}, s.cfg.Clock.Now())
		stored := cur
		if !sameObject(next, pod) {
			rv, _ := parseResourceVersion(pod.ResourceVersion)
			stored, err = s.store.Update(req.res.storageKey, objectKey(req.res, pod.Namespace, pod.Name), next, rv)
			if isRetryable(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			opts = opts.DeepCopy()
			rv := mustAccessor(stored).GetResourceVersion()
			opts.Preconditions.ResourceVersion = &rv
		}
		return opts, nil
	}
}

// setPodCondition is podutil.UpdatePodCondition: the condition replaces
// one of its type, keeping lastTransitionTime unless the status changes.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		if old.LastProbeTime.IsZero() == c.LastProbeTime.IsZero() && !c.LastProbeTime.IsZero() {
			c.LastProbeTime = old.LastProbeTime
		}
		*old = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}
