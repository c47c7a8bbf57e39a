package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// notToNonTerminated is the detail of a forbidden container state
// transition.
const notToNonTerminated = "may not be transitioned to non-terminated state"

// validateStateTransitions is core validation's
// ValidateContainerStateTransition (containers are spec.containers) and
// ValidateInitContainerStateTransition (spec.initContainers) as the pod
// status strategy runs them in v1.37, where ContainerRestartRules and
// RestartAllContainersOnContainerExits are on by default: a container
// whose old status is terminated may be reported non-terminated only if
// its restart policy would restart it after that exit code. Only the first
// new status of that name is looked at; a status naming no container of
// the spec may never leave the terminated state, whatever the pod's
// restartPolicy. spec is the stored one (a status write keeps it).
func validateStateTransitions(next, old []corev1.ContainerStatus, path *field.Path, spec *corev1.PodSpec, containers []corev1.Container) field.ErrorList {
	// A RestartAllContainers rule on any container may restart every one.
	if allContainersCouldRestart(spec) {
		return nil
	}
	var errs field.ErrorList
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, n := range next {
			if n.Name != o.Name || n.State.Terminated != nil {
				continue
			}
			c := containerNamed(containers, o.Name)
			if c == nil || !containerShouldRestart(c, spec.RestartPolicy, o.State.Terminated.ExitCode) {
				errs = append(errs, field.Forbidden(path.Index(i).Child("state"), notToNonTerminated))
			}
			break
		}
	}
	return errs
}

// validateEphemeralStateTransitions is core validation's
// ValidateEphemeralContainerStateTransition: an ephemeral container never
// restarts, and each new status of a terminated one's name that is not
// terminated is an error.
func validateEphemeralStateTransitions(next, old []corev1.ContainerStatus, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, n := range next {
			if n.Name == o.Name && n.State.Terminated == nil {
				errs = append(errs, field.Forbidden(path.Index(i).Child("state"), notToNonTerminated))
			}
		}
	}
	return errs
}

// containerNamed is the first of containers named name, or nil.
func containerNamed(containers []corev1.Container, name string) *corev1.Container {
	for i := range containers {
		if containers[i].Name == name {
			return &containers[i]
		}
	}
	return nil
}

// allContainersCouldRestart is podutil.AllContainersCouldRestart: some
// init or regular container has a RestartAllContainers rule.
func allContainersCouldRestart(spec *corev1.PodSpec) bool {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, r := range c.RestartPolicyRules {
				if r.Action == corev1.ContainerRestartRuleActionRestartAllContainers {
					return true
				}
			}
		}
	}
	return false
}

// containerShouldRestart is podutil.ContainerShouldRestart: the first
// matching restart rule of the container, then its own restartPolicy, then
// the pod's (unset counts as Always). Rules count only with a
// container-level restartPolicy, as validation requires.
func containerShouldRestart(c *corev1.Container, podPolicy corev1.RestartPolicy, exitCode int32) bool {
	if c.RestartPolicy != nil {
		if action, ok := matchingRestartRule(c.RestartPolicyRules, exitCode); ok &&
			(action == corev1.ContainerRestartRuleActionRestart || action == corev1.ContainerRestartRuleActionRestartAllContainers) {
			return true
		}
		switch *c.RestartPolicy {
		case corev1.ContainerRestartPolicyAlways:
			return true
		case corev1.ContainerRestartPolicyOnFailure:
			return exitCode != 0
		case corev1.ContainerRestartPolicyNever:
			return false
		}
	}
	switch podPolicy {
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	case corev1.RestartPolicyNever:
		return false
	}
	return true
}

// matchingRestartRule is podutil.FindMatchingContainerRestartRule: the
// action of the first rule whose exitCodes match exitCode.
func matchingRestartRule(rules []corev1.ContainerRestartRule, exitCode int32) (corev1.ContainerRestartRuleAction, bool) {
	for _, r := range rules {
		if r.ExitCodes == nil {
			continue
		}
		in := false
		for _, v := range r.ExitCodes.Values {
			in = in || v == exitCode
		}
		switch r.ExitCodes.Operator {
		case corev1.ContainerRestartRuleOnExitCodesOpIn:
			if in {
				return r.Action, true
			}
		case corev1.ContainerRestartRuleOnExitCodesOpNotIn:
			if !in {
				return r.Action, true
			}
		}
	}
	return "", false
}
