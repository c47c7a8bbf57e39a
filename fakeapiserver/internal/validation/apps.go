package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
)

// workload is what the apps validations need of a Deployment, ReplicaSet,
// StatefulSet or DaemonSet.
type workload struct {
	kindWord string // as "empty selector is invalid for <kindWord>" and "activeDeadlineSeconds in <Kind> is not Supported" name it
	kind     string
	replicas *int32
	selector *metav1.LabelSelector
	template *corev1.PodTemplateSpec
	// selectorRequired: Deployments, ReplicaSets and StatefulSets report a
	// missing selector as Required; a DaemonSet's fails the template match.
	selectorRequired bool
}

// workloadOf extracts the apps fields of obj; ok is false for other types.
func workloadOf(obj runtime.Object) (workload, bool) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		// Deployments (and ReplicaSets) say "deployment": the ReplicaSet
		// check was copied from the Deployment one, message included.
		return workload{kindWord: "deployment", kind: "Deployment", replicas: o.Spec.Replicas, selector: o.Spec.Selector, template: &o.Spec.Template, selectorRequired: true}, true
	case *appsv1.ReplicaSet:
		return workload{kindWord: "deployment", kind: "ReplicaSet", replicas: o.Spec.Replicas, selector: o.Spec.Selector, template: &o.Spec.Template, selectorRequired: true}, true
	case *appsv1.StatefulSet:
		return workload{kindWord: "statefulset", kind: "StatefulSet", replicas: o.Spec.Replicas, selector: o.Spec.Selector, template: &o.Spec.Template, selectorRequired: true}, true
	case *appsv1.DaemonSet:
		return workload{kindWord: "daemonset", kind: "DaemonSet", selector: o.Spec.Selector, template: &o.Spec.Template}, true
	}
	return workload{}, false
}

// Deployment is ValidateDeployment / ValidateDeploymentUpdate.
func Deployment(obj, old runtime.Object) field.ErrorList {
	return validateWorkload(obj, old, apimachineryvalidation.NameIsDNSSubdomain)
}

// ReplicaSet is ValidateReplicaSet / ValidateReplicaSetUpdate.
func ReplicaSet(obj, old runtime.Object) field.ErrorList {
	return validateWorkload(obj, old, apimachineryvalidation.NameIsDNSSubdomain)
}

// StatefulSet is ValidateStatefulSet / ValidateStatefulSetUpdate
// (a StatefulSet's name is a DNS label; serviceName is immutable too).
func StatefulSet(obj, old runtime.Object) field.ErrorList {
	errs := validateWorkload(obj, old, apimachineryvalidation.NameIsDNSLabel)
	sts, ok := obj.(*appsv1.StatefulSet)
	if o, okOld := old.(*appsv1.StatefulSet); ok && okOld {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(sts.Spec.ServiceName, o.Spec.ServiceName, field.NewPath("spec", "serviceName"))...)
	}
	return errs
}

// DaemonSet is ValidateDaemonSet / ValidateDaemonSetUpdate.
func DaemonSet(obj, old runtime.Object) field.ErrorList {
	return validateWorkload(obj, old, apimachineryvalidation.NameIsDNSSubdomain)
}

// validateWorkload is the shared part of the apps validations: metadata
// (the name re-checked on create only), replicas not negative, a selector
// that is set, valid, not empty and matches the template's labels, a valid
// pod template with restartPolicy Always, and on update an immutable
// selector. The template is checked on a defaulted copy (a [Resource]
// may replace the defaulter).
func validateWorkload(obj, old runtime.Object, nameFn apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	w, ok := workloadOf(obj)
	if !ok {
		return Generic(obj, old)
	}
	var errs field.ErrorList
	if old != nil {
		errs = MetaUpdate(obj, old)
	} else {
		errs = validateMetaCreate(obj, nameFn)
	}
	specPath := field.NewPath("spec")
	if w.replicas != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*w.replicas), specPath.Child("replicas"))...)
	}
	errs = append(errs, validateWorkloadSelector(w, specPath)...)
	errs = append(errs, validateWorkloadTemplate(w, specPath.Child("template"))...)
	if ow, ok := workloadOf(old); ok && old != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(w.selector, ow.selector, specPath.Child("selector"))...)
	}
	return errs
}

// validateWorkloadSelector checks spec.selector and that it matches the
// template's labels.
func validateWorkloadSelector(w workload, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	selPath := specPath.Child("selector")
	switch {
	case w.selector == nil && w.selectorRequired:
		errs = append(errs, field.Required(selPath, ""))
	case w.selector != nil:
		errs = append(errs, metav1validation.ValidateLabelSelector(w.selector, metav1validation.LabelSelectorValidationOptions{}, selPath)...)
		if len(w.selector.MatchLabels)+len(w.selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(selPath, w.selector, "empty selector is invalid for "+w.kindWord))
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(w.selector)
	if err != nil {
		return append(errs, field.Invalid(selPath, w.selector, "invalid label selector"))
	}
	// A nil selector is labels.Nothing(), which is not Empty and matches
	// no template, so it is reported twice, as the real server does; an
	// empty one ({}) is Everything and matches.
	if !selector.Empty() && !selector.Matches(labels.Set(w.template.Labels)) {
		errs = append(errs, field.Invalid(specPath.Child("template", "metadata", "labels"), w.template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// validateWorkloadTemplate is ValidatePodTemplateSpec on a defaulted copy
// of the template, plus the restartPolicy and activeDeadlineSeconds rules
// of controllers that keep pods running.
func validateWorkloadTemplate(w workload, path *field.Path) field.ErrorList {
	t, errs := validatePodTemplate(w.template, path)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(path.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(path.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+w.kind+" is not Supported"))
	}
	return errs
}

// validatePodTemplate is ValidatePodTemplateSpec on a defaulted copy of
// template, which it returns.
func validatePodTemplate(template *corev1.PodTemplateSpec, path *field.Path) (*corev1.PodTemplateSpec, field.ErrorList) {
	t := template.DeepCopy()
	defaults.PodTemplate(t)
	errs := metav1validation.ValidateLabels(t.Labels, path.Child("labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, path.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&t.Spec, path.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return t, errs
}

// ReplicationController is ValidateReplicationController /
// ValidateReplicationControllerUpdate (ValidateReplicationControllerSpec)
// on the defaulted object: the metadata, minReadySeconds, a selector
// (defaulted from the template's labels, so missing only when both are),
// replicas, and the template (its labels must match the selector).
func ReplicationController(rc *corev1.ReplicationController, old runtime.Object) field.ErrorList {
	errs := Generic(rc, old)
	specPath := field.NewPath("spec")
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(rc.Spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	if labels.Set(rc.Spec.Selector).AsSelector().Empty() {
		errs = append(errs, field.Required(specPath.Child("selector"), ""))
	}
	if rc.Spec.Replicas != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*rc.Spec.Replicas), specPath.Child("replicas"))...)
	}
	if rc.Spec.Template == nil {
		return append(errs, field.Required(specPath.Child("template"), ""))
	}
	sel := labels.Set(rc.Spec.Selector).AsSelector()
	if !sel.Empty() && !sel.Matches(labels.Set(rc.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(specPath.Child("template", "metadata", "labels"), rc.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	w := workload{kind: "ReplicationController", template: rc.Spec.Template}
	return append(errs, validateWorkloadTemplate(w, specPath.Child("template"))...)
}
