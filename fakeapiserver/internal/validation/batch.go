package validation

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Job is ValidateJobCreate / ValidateJobUpdate (kubernetes
// pkg/apis/batch/validation) without the selector checks on create (the
// selector generated as the job strategy does, defaults.PrepareNamedForCreate,
// is not re-checked, nor a manualSelector Job's; validateGeneratedSelector
// is not ported): metadata, non-negative counts, the pod template, whose
// restartPolicy must be OnFailure or Never, and on update an immutable
// selector.
func Job(job *batchv1.Job, old runtime.Object) field.ErrorList {
	errs := Generic(job, old)
	specPath := field.NewPath("spec")
	for _, c := range []struct {
		name  string
		value *int32
	}{
		{"parallelism", job.Spec.Parallelism}, {"completions", job.Spec.Completions},
		{"backoffLimit", job.Spec.BackoffLimit}, {"ttlSecondsAfterFinished", job.Spec.TTLSecondsAfterFinished},
		{"backoffLimitPerIndex", job.Spec.BackoffLimitPerIndex}, {"maxFailedIndexes", job.Spec.MaxFailedIndexes},
	} {
		if c.value != nil {
			errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*c.value), specPath.Child(c.name))...)
		}
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(*d, specPath.Child("activeDeadlineSeconds"))...)
	}
	t, templateErrs := validatePodTemplate(&job.Spec.Template, specPath.Child("template"))
	errs = append(errs, templateErrs...)
	errs = append(errs, validateJobRestartPolicy(t.Spec.RestartPolicy, specPath.Child("template", "spec", "restartPolicy"))...)
	if o, ok := old.(*batchv1.Job); ok {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(job.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
	}
	return errs
}

// validateJobRestartPolicy is the Job rule on the (defaulted) template
// restartPolicy: Always, the default, is reported as missing.
func validateJobRestartPolicy(p corev1.RestartPolicy, path *field.Path) field.ErrorList {
	switch p {
	case corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case corev1.RestartPolicyAlways, "":
		return field.ErrorList{field.Required(path, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever))}
	}
	return field.ErrorList{field.NotSupported(path, p, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
}
