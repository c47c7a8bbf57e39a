package validation

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// jobStatusRules are the checks of batch validation's
// JobStatusValidationOptions that the Job status strategy turns on. With
// JobManagedBy locked on (v1.35+), most apply only when the status fields
// they look at change, so a bad status already stored stays updatable.
type jobStatusRules struct {
	rejectDecreasingSucceeded           bool
	rejectInvalidCompletedIndexes       bool
	rejectInvalidFailedIndexes          bool
	rejectCompletedIndexesForNonIndexed bool
	rejectFailedIndexesWithoutBackoff   bool
	rejectFailedIndexesOverlapping      bool
	rejectFailedWithoutFailureTarget    bool
	rejectCompleteWithoutSuccessMet     bool
	rejectFinishedWithActive            bool
	rejectFinishedWithoutStartTime      bool
	rejectFinishedWithUncounted         bool
	rejectStartTimeUpdate               bool
	rejectCompletionBeforeStart         bool
	rejectNotCompleteWithCompletionTime bool
	rejectCompleteWithoutCompletionTime bool
	rejectCompleteWithFailed            bool
	rejectCompleteWithFailureTarget     bool
	rejectMoreReadyThanActive           bool
	rejectFinishedWithTerminating       bool
}

// jobStatusRulesFor is the Job status strategy's getStatusValidationOptions
// with JobManagedBy enabled (RejectDecreasingFailedCounter,
// RejectDisablingTerminalCondition and RejectMutatingCompletionTime are
// always on and not listed).
func jobStatusRulesFor(job, old *batchv1.Job) jobStatusRules {
	s, os := job.Status, old.Status
	indexed := ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
	finishedChanged := jobFinished(old) != jobFinished(job)
	completeChanged := jobCondition(os.Conditions, batchv1.JobComplete) != jobCondition(s.Conditions, batchv1.JobComplete)
	failedChanged := jobCondition(os.Conditions, batchv1.JobFailed) != jobCondition(s.Conditions, batchv1.JobFailed)
	failureTargetChanged := jobCondition(os.Conditions, batchv1.JobFailureTarget) != jobCondition(s.Conditions, batchv1.JobFailureTarget)
	successMetChanged := jobCondition(os.Conditions, batchv1.JobSuccessCriteriaMet) != jobCondition(s.Conditions, batchv1.JobSuccessCriteriaMet)
	completedIndexesChanged := os.CompletedIndexes != s.CompletedIndexes
	failedIndexesChanged := !ptr.Equal(os.FailedIndexes, s.FailedIndexes)
	activeChanged := os.Active != s.Active
	startTimeChanged := !timeEqual(os.StartTime, s.StartTime)
	completionTimeChanged := !timeEqual(os.CompletionTime, s.CompletionTime)
	uncountedChanged := !uncountedEqual(os.UncountedTerminatedPods, s.UncountedTerminatedPods)
	readyChanged := !ptr.Equal(os.Ready, s.Ready)
	terminatingChanged := !ptr.Equal(os.Terminating, s.Terminating)
	suspendedWithZeroCompletions := ptr.Equal(job.Spec.Suspend, ptr.To(true)) && ptr.Equal(job.Spec.Completions, ptr.To[int32](0))
	resuming := jobCondition(os.Conditions, batchv1.JobSuspended) && jobConditionFalse(s.Conditions, batchv1.JobSuspended)
	return jobStatusRules{
		// Indexed Jobs with completions == parallelism can be scaled down.
		rejectDecreasingSucceeded:           !indexed || !ptr.Equal(job.Spec.Completions, job.Spec.Parallelism),
		rejectInvalidCompletedIndexes:       completedIndexesChanged,
		rejectInvalidFailedIndexes:          failedIndexesChanged,
		rejectCompletedIndexesForNonIndexed: completedIndexesChanged,
		rejectFailedIndexesWithoutBackoff:   failedIndexesChanged,
		rejectFailedIndexesOverlapping:      failedIndexesChanged || completedIndexesChanged,
		rejectFailedWithoutFailureTarget:    failedChanged || failedIndexesChanged,
		rejectCompleteWithoutSuccessMet:     completeChanged || successMetChanged,
		rejectFinishedWithActive:            finishedChanged || activeChanged,
		rejectFinishedWithoutStartTime:      (finishedChanged || startTimeChanged) && !suspendedWithZeroCompletions,
		rejectFinishedWithUncounted:         finishedChanged || uncountedChanged,
		rejectStartTimeUpdate:               startTimeChanged && !resuming,
		rejectCompletionBeforeStart:         startTimeChanged || completionTimeChanged,
		rejectNotCompleteWithCompletionTime: completeChanged || completionTimeChanged,
		rejectCompleteWithoutCompletionTime: completeChanged || completionTimeChanged,
		rejectCompleteWithFailed:            completeChanged || failedChanged,
		rejectCompleteWithFailureTarget:     completeChanged || failureTargetChanged,
		rejectMoreReadyThanActive:           readyChanged || activeChanged,
		rejectFinishedWithTerminating:       finishedChanged || terminatingChanged,
	}
}

// JobStatus is batch validation's ValidateJobUpdateStatus as
// the Job status strategy calls it: the metadata update, the status, and
// the transitions from the stored status.
func JobStatus(job, o *batchv1.Job) field.ErrorList {
	rules := jobStatusRulesFor(job, o)
	errs := MetaUpdate(job, o)
	errs = append(errs, validateJobStatus(job, rules)...)
	return append(errs, validateJobStatusTransition(job, o, rules)...)
}

// jobConditionMsg is a status.conditions error without a value, as batch
// validation writes them (field.OmitValueType).
func jobConditionMsg(msg string) *field.Error {
	return field.Invalid(statusPath.Child("conditions"), field.OmitValueType{}, msg)
}

// validateJobStatus is batch validation's validateJobStatus.
func validateJobStatus(job *batchv1.Job, rules jobStatusRules) field.ErrorList {
	s := job.Status
	counters := []namedCount{count("active", s.Active), count("succeeded", s.Succeeded), count("failed", s.Failed)}
	counters = countPtr(counters, "ready", s.Ready)
	counters = countPtr(counters, "terminating", s.Terminating)
	errs := nonNegative(statusPath, counters...)
	errs = append(errs, validateUncounted(s.UncountedTerminatedPods)...)
	errs = append(errs, validateJobConditions(job, rules)...)
	errs = append(errs, validateJobFinished(job, rules)...)
	errs = append(errs, validateJobIndexes(job, rules)...)
	if rules.rejectFinishedWithTerminating && s.Terminating != nil && *s.Terminating > 0 && jobFinished(job) {
		errs = append(errs, field.Invalid(statusPath.Child("terminating"), s.Terminating, "terminating>0 is invalid for finished job"))
	}
	if rules.rejectMoreReadyThanActive && s.Ready != nil && *s.Ready > s.Active {
		errs = append(errs, field.Invalid(statusPath.Child("ready"), *s.Ready, "cannot set more ready pods than active"))
	}
	successMet := jobCondition(s.Conditions, batchv1.JobSuccessCriteriaMet)
	if successMet && jobCondition(s.Conditions, batchv1.JobFailed) {
		errs = append(errs, jobConditionMsg("cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if successMet && jobCondition(s.Conditions, batchv1.JobFailureTarget) {
		errs = append(errs, jobConditionMsg("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if job.Spec.SuccessPolicy != nil && !successMet && jobCondition(s.Conditions, batchv1.JobComplete) {
		errs = append(errs, jobConditionMsg("cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}
	return errs
}

// validateUncounted checks uncountedTerminatedPods: no empty and no
// repeated UIDs across succeeded and failed.
func validateUncounted(u *batchv1.UncountedTerminatedPods) field.ErrorList {
	if u == nil {
		return nil
	}
	var errs field.ErrorList
	path := statusPath.Child("uncountedTerminatedPods")
	seen := sets.New[types.UID]()
	check := func(list []types.UID, p *field.Path) {
		for i, k := range list {
			switch {
			case k == "":
				errs = append(errs, field.Invalid(p.Index(i), k, "must not be empty"))
			case seen.Has(k):
				errs = append(errs, field.Duplicate(p.Index(i), k))
			default:
				seen.Insert(k)
			}
		}
	}
	check(u.Succeeded, path.Child("succeeded"))
	check(u.Failed, path.Child("failed"))
	return errs
}

// validateJobConditions is the part of validateJobStatus about the
// Complete, Failed and completionTime combinations, in the real order.
func validateJobConditions(job *batchv1.Job, rules jobStatusRules) field.ErrorList {
	s := job.Status
	complete := jobCondition(s.Conditions, batchv1.JobComplete)
	failed := jobCondition(s.Conditions, batchv1.JobFailed)
	var errs field.ErrorList
	if rules.rejectCompleteWithFailed && complete && failed {
		errs = append(errs, jobConditionMsg("cannot set Complete=True and Failed=true conditions"))
	}
	if rules.rejectCompleteWithFailureTarget && complete && jobCondition(s.Conditions, batchv1.JobFailureTarget) {
		errs = append(errs, jobConditionMsg("cannot set Complete=True and FailureTarget=true conditions"))
	}
	if rules.rejectNotCompleteWithCompletionTime && s.CompletionTime != nil && !complete {
		errs = append(errs, field.Invalid(statusPath.Child("completionTime"), s.CompletionTime, "cannot set completionTime when there is no Complete=True condition"))
	}
	if rules.rejectCompleteWithoutCompletionTime && s.CompletionTime == nil && complete {
		errs = append(errs, field.Required(statusPath.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if rules.rejectCompletionBeforeStart && s.StartTime != nil && s.CompletionTime != nil && s.CompletionTime.Before(s.StartTime) {
		errs = append(errs, field.Invalid(statusPath.Child("completionTime"), s.CompletionTime, "must be equal to or after `startTime`"))
	}
	if rules.rejectFailedWithoutFailureTarget && failed && !jobCondition(s.Conditions, batchv1.JobFailureTarget) {
		errs = append(errs, jobConditionMsg("cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if rules.rejectCompleteWithoutSuccessMet && complete && !jobCondition(s.Conditions, batchv1.JobSuccessCriteriaMet) {
		errs = append(errs, jobConditionMsg("cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	return errs
}

// validateJobFinished is the part of validateJobStatus about a finished
// Job: no active pods, a startTime, no uncounted terminated pods.
func validateJobFinished(job *batchv1.Job, rules jobStatusRules) field.ErrorList {
	s := job.Status
	finished := jobFinished(job)
	var errs field.ErrorList
	if rules.rejectFinishedWithActive && s.Active > 0 && finished {
		errs = append(errs, field.Invalid(statusPath.Child("active"), s.Active, "active>0 is invalid for finished job"))
	}
	if rules.rejectFinishedWithoutStartTime && s.StartTime == nil && finished {
		errs = append(errs, field.Required(statusPath.Child("startTime"), "startTime is required for finished job"))
	}
	u := s.UncountedTerminatedPods
	if rules.rejectFinishedWithUncounted && finished && u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		errs = append(errs, field.Invalid(statusPath.Child("uncountedTerminatedPods"), u, "must be empty for finished job"))
	}
	return errs
}

// validateJobIndexes is the part of validateJobStatus about
// completedIndexes and failedIndexes.
func validateJobIndexes(job *batchv1.Job, rules jobStatusRules) field.ErrorList {
	s, spec := job.Status, job.Spec
	var errs field.ErrorList
	if rules.rejectInvalidCompletedIndexes && spec.Completions != nil {
		if _, err := validateIndexesFormat(s.CompletedIndexes, *spec.Completions); err != nil {
			errs = append(errs, field.Invalid(statusPath.Child("completedIndexes"), s.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if rules.rejectInvalidFailedIndexes && spec.Completions != nil && spec.BackoffLimitPerIndex != nil && s.FailedIndexes != nil {
		if _, err := validateIndexesFormat(*s.FailedIndexes, *spec.Completions); err != nil {
			errs = append(errs, field.Invalid(statusPath.Child("failedIndexes"), s.FailedIndexes, "error parsing failedIndexes: "+err.Error()))
		}
	}
	indexed := ptr.Deref(spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
	if rules.rejectCompletedIndexesForNonIndexed && len(s.CompletedIndexes) != 0 && !indexed {
		errs = append(errs, field.Invalid(statusPath.Child("completedIndexes"), s.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	// Regular Jobs have no backoffLimitPerIndex, so this also keeps
	// failedIndexes off them.
	if rules.rejectFailedIndexesWithoutBackoff && spec.BackoffLimitPerIndex == nil && s.FailedIndexes != nil {
		errs = append(errs, field.Invalid(statusPath.Child("failedIndexes"), *s.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if rules.rejectFailedIndexesOverlapping && spec.Completions != nil && s.FailedIndexes != nil {
		if err := failedIndexesNotOverlapCompleted(s.CompletedIndexes, *s.FailedIndexes, *spec.Completions); err != nil {
			errs = append(errs, field.Invalid(statusPath.Child("failedIndexes"), *s.FailedIndexes, err.Error()))
		}
	}
	return errs
}

// validateJobStatusTransition is batch validation's ValidateJobStatusUpdate
// after validateJobStatus: what may not change from the stored status.
func validateJobStatusTransition(job, old *batchv1.Job, rules jobStatusRules) field.ErrorList {
	s, os := job.Status, old.Status
	var errs field.ErrorList
	for _, c := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if jobCondition(os.Conditions, c) && !jobCondition(s.Conditions, c) {
			errs = append(errs, jobConditionMsg(fmt.Sprintf("cannot disable the terminal %s=True condition", c)))
		}
	}
	if s.Failed < os.Failed {
		errs = append(errs, field.Invalid(statusPath.Child("failed"), s.Failed, "cannot decrease the failed counter"))
	}
	if rules.rejectDecreasingSucceeded && s.Succeeded < os.Succeeded {
		errs = append(errs, field.Invalid(statusPath.Child("succeeded"), s.Succeeded, "cannot decrease the succeeded counter"))
	}
	// completionTime may go back to unset on an unfinished Job; a finished
	// one is held by the completionTime-required rule.
	if s.CompletionTime != nil && os.CompletionTime != nil && !timeEqual(s.CompletionTime, os.CompletionTime) {
		errs = append(errs, field.Invalid(statusPath.Child("completionTime"), s.CompletionTime, "field is immutable"))
	}
	if rules.rejectStartTimeUpdate && os.StartTime != nil && !timeEqual(os.StartTime, s.StartTime) && !ptr.Deref(job.Spec.Suspend, false) {
		errs = append(errs, field.Invalid(statusPath.Child("startTime"), s.StartTime, "field is immutable for unsuspended job once set"))
	}
	successMet, oldSuccessMet := jobCondition(s.Conditions, batchv1.JobSuccessCriteriaMet), jobCondition(os.Conditions, batchv1.JobSuccessCriteriaMet)
	if oldSuccessMet && !successMet {
		errs = append(errs, jobConditionMsg("cannot disable the SuccessCriteriaMet=True condition"))
	}
	if jobCondition(os.Conditions, batchv1.JobComplete) && !oldSuccessMet && successMet {
		errs = append(errs, jobConditionMsg("cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

// jobCondition reports whether conditions hold a True condition of type c.
func jobCondition(conditions []batchv1.JobCondition, c batchv1.JobConditionType) bool {
	for _, cond := range conditions {
		if cond.Type == c && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// jobConditionFalse reports whether conditions hold a False condition of
// type c.
func jobConditionFalse(conditions []batchv1.JobCondition, c batchv1.JobConditionType) bool {
	for _, cond := range conditions {
		if cond.Type == c && cond.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

// jobFinished reports a True Complete or Failed condition.
func jobFinished(job *batchv1.Job) bool {
	return jobCondition(job.Status.Conditions, batchv1.JobComplete) || jobCondition(job.Status.Conditions, batchv1.JobFailed)
}

// timeEqual is ptr.Equal on two times as the real server compares them
// (apiequality.Semantic: the same instant, whatever the location).
func timeEqual(a, b *metav1.Time) bool { return apiequality.Semantic.DeepEqual(a, b) }

// uncountedEqual is apiequality.Semantic.DeepEqual of two
// uncountedTerminatedPods.
func uncountedEqual(a, b *batchv1.UncountedTerminatedPods) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}

// validateIndexesFormat is batch validation's validateIndexesFormat: a
// comma-separated, increasing list of indexes and ranges below
// completions; it returns how many indexes the list names.
func validateIndexesFormat(indexes string, completions int32) (int32, error) {
	if indexes == "" {
		return 0, nil
	}
	var last *int32
	var total int32
	for _, interval := range strings.Split(indexes, ",") {
		x, y, err := parseIndexInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last != nil && *last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", *last, x)
		}
		total += y - x + 1
		last = &y
	}
	return total, nil
}

// parseIndexInterval is batch validation's parseIndexInterval: "x" or
// "x-y" with x < y < completions.
func parseIndexInterval(interval string, completions int32) (int32, int32, error) {
	limits := strings.Split(interval, "-")
	if len(limits) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", interval)
	}
	x, err := strconv.Atoi(limits[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[0])
	}
	if x >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[0])
	}
	if len(limits) == 1 {
		return int32(x), int32(x), nil
	}
	y, err := strconv.Atoi(limits[1])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[1])
	}
	if y >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[1])
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return int32(x), int32(y), nil
}

// failedIndexesNotOverlapCompleted is batch validation's
// validateFailedIndexesNotOverlapCompleted: walks both interval lists in
// order and reports the first index in both. Intervals that do not parse
// are skipped (the format check reports them).
func failedIndexesNotOverlapCompleted(completed, failed string, completions int32) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cX, cY, cErr := parseIndexInterval(cs[ci], completions)
	fX, fY, fErr := parseIndexInterval(fs[fi], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cErr != nil:
			ci++
			if ci < len(cs) {
				cX, cY, cErr = parseIndexInterval(cs[ci], completions)
			}
		case fErr != nil:
			fi++
			if fi < len(fs) {
				fX, fY, fErr = parseIndexInterval(fs[fi], completions)
			}
		case cX <= fY && fX <= cY:
			return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cX, fX))
		case cX <= fX:
			ci++
			if ci < len(cs) {
				cX, cY, cErr = parseIndexInterval(cs[ci], completions)
			}
		default:
			fi++
			if fi < len(fs) {
				fX, fY, fErr = parseIndexInterval(fs[fi], completions)
			}
		}
	}
	return nil
}
