package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestContainerShouldRestart: the restart decision behind a terminated
// container's status going back to running, for the combinations the
// conformance cases do not reach (NotIn rules, a rule that matches
// nothing, a container-level OnFailure, an unset pod policy).
func TestContainerShouldRestart(t *testing.T) {
	t.Parallel()
	never, onFailure := corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure
	notIn := []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpNotIn, Values: []int32{0, 3}}}}
	for _, tc := range []struct {
		name      string
		container corev1.Container
		pod       corev1.RestartPolicy
		exitCode  int32
		want      bool
	}{
		{"unset pod policy is Always", corev1.Container{}, "", 0, true},
		{"pod OnFailure, exit 0", corev1.Container{}, corev1.RestartPolicyOnFailure, 0, false},
		{"pod OnFailure, exit 2", corev1.Container{}, corev1.RestartPolicyOnFailure, 2, true},
		{"container OnFailure overrides pod Always, exit 0", corev1.Container{RestartPolicy: &onFailure}, corev1.RestartPolicyAlways, 0, false},
		{"container OnFailure overrides pod Never, exit 1", corev1.Container{RestartPolicy: &onFailure}, corev1.RestartPolicyNever, 1, true},
		{"NotIn rule matches exit 2", corev1.Container{RestartPolicy: &never, RestartPolicyRules: notIn}, corev1.RestartPolicyNever, 2, true},
		{"NotIn rule does not match exit 3", corev1.Container{RestartPolicy: &never, RestartPolicyRules: notIn}, corev1.RestartPolicyAlways, 3, false},
		{"rules without a container policy are ignored", corev1.Container{RestartPolicyRules: notIn}, corev1.RestartPolicyNever, 2, false},
	} {
		if got := containerShouldRestart(&tc.container, tc.pod, tc.exitCode); got != tc.want {
			t.Errorf("%s: containerShouldRestart = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestInitContainerTransitionUsesInitContainers: an init container status
// is looked up among the init containers only, so a regular container of
// the same restartable name does not let it run again.
func TestInitContainerTransitionUsesInitContainers(t *testing.T) {
	t.Parallel()
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		InitContainers: []corev1.Container{{Name: "i"}},
		Containers:     []corev1.Container{{Name: "i", RestartPolicy: &always}}}
	old := []corev1.ContainerStatus{{Name: "i", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{}}}}
	next := []corev1.ContainerStatus{{Name: "i", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	path := statusPath.Child("initContainerStatuses")
	want := field.ErrorList{field.Forbidden(path.Index(0).Child("state"), notToNonTerminated)}
	if diff := cmp.Diff(want, validateStateTransitions(next, old, path, spec, spec.InitContainers)); diff != "" {
		t.Errorf("init container transition (-want +got):\n%s", diff)
	}
	if errs := validateStateTransitions(next, old, statusPath.Child("containerStatuses"), spec, spec.Containers); len(errs) != 0 {
		t.Errorf("container transition of a restartable container: %v, want none", errs)
	}
}
