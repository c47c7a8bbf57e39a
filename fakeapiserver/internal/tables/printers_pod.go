package tables

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// layoutContainerCells joins the containers' names and images.
func layoutContainerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	i := make([]string, len(containers))
	for k, c := range containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

func podColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
		column("Status", "string", "The aggregate status of the containers in this pod."),
		column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
		ageColumn,
		wideColumn("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"]),
		wideColumn("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"]),
		wideColumn("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]),
		wideColumn("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"]),
	}
}

// podSummary accumulates printPod's READY, STATUS and RESTARTS.
type podSummary struct {
	reason          string
	ready, total    int
	restarts        int
	lastRestart     time.Time
	initializing    bool
	sidecarRestarts int       // restarts of restartable init containers
	lastSidecar     time.Time // their latest restart
}

// printPod ports printers.go printPod; see podSummary for the steps.
func printPod(pod *corev1.Pod, now time.Time) metav1.TableRow {
	s := podSummary{reason: string(pod.Status.Phase), total: len(pod.Spec.Containers)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}
	s.scanInitContainers(pod)
	if !s.initializing || hasPodCondition(pod.Status.Conditions, corev1.PodInitialized) {
		s.scanContainers(pod)
	}
	terminal := pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
	switch {
	case pod.DeletionTimestamp != nil && pod.Status.Reason == nodeUnreachablePodReason:
		s.reason = "Unknown"
	case pod.DeletionTimestamp != nil && !terminal:
		s.reason = "Terminating"
	}
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, age(s.lastRestart, now))
	}
	row := cells(pod.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.reason, restarts, age(pod.CreationTimestamp.Time, now),
		orNone(fieldlabels.PodIP(&pod.Status)), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), readinessGates(pod))
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		row.Conditions = podSuccessConditions
	case corev1.PodFailed:
		row.Conditions = podFailedConditions
	}
	return row
}

// scanInitContainers walks the init container statuses up to the first one
// still keeping the pod from starting, which sets the Init:... reason.
// Restartable (sidecar) init containers count towards READY once started.
func (s *podSummary) scanInitContainers(pod *corev1.Pod) {
	specs := make(map[string]*corev1.Container, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		specs[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
		if isRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			s.total++
		}
	}
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		last := lastTermination(c)
		s.lastRestart = later(s.lastRestart, last)
		sidecar := isRestartableInitContainer(specs[c.Name])
		if sidecar {
			s.sidecarRestarts += int(c.RestartCount)
			s.lastSidecar = later(s.lastSidecar, last)
		}
		switch term := c.State.Terminated; {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecar && c.Started != nil && *c.Started:
			if c.Ready {
				s.ready++
			}
			continue
		case term != nil:
			// Initialization failed.
			switch {
			case term.Reason != "":
				s.reason = "Init:" + term.Reason
			case term.Signal != 0:
				s.reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				s.reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			s.reason = "Init:" + c.State.Waiting.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		s.initializing = true
		break
	}
}

// scanContainers walks the container statuses last to first, so the first
// container with a waiting or terminated reason names the pod's STATUS;
// RESTARTS restarts from the sidecars' count.
func (s *podSummary) scanContainers(pod *corev1.Pod) {
	s.restarts, s.lastRestart = s.sidecarRestarts, s.lastSidecar
	hasRunning, errorReason := false, ""
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := pod.Status.ContainerStatuses[i]
		s.restarts += int(c.RestartCount)
		s.lastRestart = later(s.lastRestart, lastTermination(c))
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			s.reason = c.State.Waiting.Reason
		case c.State.Terminated != nil:
			term := c.State.Terminated
			switch {
			case term.Reason != "":
				s.reason = term.Reason
			case term.Signal != 0:
				s.reason = fmt.Sprintf("Signal:%d", term.Signal)
			default:
				s.reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
			}
			if term.ExitCode != 0 {
				errorReason = s.reason
			}
		case c.Ready && c.State.Running != nil:
			hasRunning = true
			s.ready++
		}
	}
	// A pod whose containers completed but one still runs is not Completed.
	if s.reason == "Completed" {
		switch {
		case hasRunning && hasPodCondition(pod.Status.Conditions, corev1.PodReady):
			s.reason = "Running"
		case errorReason != "":
			s.reason = errorReason
		case hasRunning:
			s.reason = "NotReady"
		}
	}
}

// lastTermination is when the container last terminated, zero if never.
func lastTermination(c corev1.ContainerStatus) time.Time {
	if t := c.LastTerminationState.Terminated; t != nil {
		return t.FinishedAt.Time
	}
	return time.Time{}
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

func isRestartableInitContainer(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// hasPodCondition reports whether the first condition of type t is True
// (printers.go hasPodReadyCondition, isPodInitializedConditionTrue).
func hasPodCondition(conds []corev1.PodCondition, t corev1.PodConditionType) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readinessGates is "true/total" over the pod's readiness gates.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	trueConditions := 0
	for _, g := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				if c.Status == corev1.ConditionTrue {
					trueConditions++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
