package fakeapiserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	appsv1apply "k8s.io/client-go/applyconfigurations/apps/v1"
)

// TestValidationStatusWorkloads: a write through /status is validated as
// the status strategy does it, whichever verb makes it (update, apply,
// dry run), and a valid status is stored.
func TestValidationStatusWorkloads(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	deployments := clientsetFor(t, srv).AppsV1().Deployments("default")
	ctx := t.Context()
	d, err := deployments.Create(ctx, testDeployment("d", map[string]string{"app": "d"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(deployment) = %v", err)
	}
	rvBefore := d.ResourceVersion

	d.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: -1}
	_, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	wantInvalid(t, "UpdateStatus updatedReplicas -1", err, "Deployment", "d",
		`Deployment.apps "d" is invalid: status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: -1: must be greater than or equal to 0", Field: "status.updatedReplicas"})

	_, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil {
		t.Errorf("dry-run UpdateStatus(updatedReplicas -1) = nil, want the same 422")
	}

	apply := appsv1apply.Deployment("d", "default").WithStatus(appsv1apply.DeploymentStatus().WithReplicas(1).WithReadyReplicas(2))
	_, err = deployments.ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: "test", Force: true})
	wantInvalid(t, "ApplyStatus readyReplicas 2 of 1", err, "Deployment", "d",
		`Deployment.apps "d" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: 2: cannot be greater than status.replicas", Field: "status.readyReplicas"})

	got, err := deployments.Get(ctx, "d", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != rvBefore {
		t.Fatalf("after refused status writes: Get = %v (rv %s), want the stored object at rv %s", err, got.ResourceVersion, rvBefore)
	}

	d.Status.UpdatedReplicas = 1
	if _, err := deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(valid status) = %v", err)
	}
	if got, err := deployments.Get(ctx, "d", metav1.GetOptions{}); err != nil || got.Status.UpdatedReplicas != 1 {
		t.Errorf("after a valid UpdateStatus: Get = %v, status %+v, want updatedReplicas 1", err, got.Status)
	}
}

// TestValidationStatusJob: a test faking a Job's completion has to write
// what the Job controller writes; the stored status is then kept terminal.
func TestValidationStatusJob(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	jobs := clientsetFor(t, srv).BatchV1().Jobs("default")
	ctx := t.Context()
	tmpl := testTemplate(nil)
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	j, err := jobs.Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: batchv1.JobSpec{Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(job) = %v", err)
	}
	complete := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}
	j.Status.Conditions = []batchv1.JobCondition{complete}
	_, err = jobs.UpdateStatus(ctx, j, metav1.UpdateOptions{})
	wantInvalid(t, "Complete alone", err, "Job", "j",
		`Job.batch "j" is invalid: [status.completionTime: Required value: completionTime is required for Complete jobs, status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition, status.startTime: Required value: startTime is required for finished job]`,
		metav1.StatusCause{Type: "FieldValueRequired", Message: "Required value: completionTime is required for Complete jobs", Field: "status.completionTime"},
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition", Field: "status.conditions"},
		metav1.StatusCause{Type: "FieldValueRequired", Message: "Required value: startTime is required for finished job", Field: "status.startTime"})

	start := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	end := metav1.NewTime(start.Add(time.Second))
	j.Status = batchv1.JobStatus{StartTime: &start, CompletionTime: &end, Succeeded: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue}, complete}}
	j, err = jobs.UpdateStatus(ctx, j, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("UpdateStatus(a complete Job) = %v", err)
	}
	j.Status.Conditions = j.Status.Conditions[:1]
	j.Status.CompletionTime = nil
	_, err = jobs.UpdateStatus(ctx, j, metav1.UpdateOptions{})
	wantInvalid(t, "Complete removed", err, "Job", "j",
		`Job.batch "j" is invalid: status.conditions: Invalid value: cannot disable the terminal Complete=True condition`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: cannot disable the terminal Complete=True condition", Field: "status.conditions"})
}

// TestValidateStatusOverride: a Config.Resources entry's ValidateStatus
// replaces the kind's status validation.
func TestValidateStatusOverride(t *testing.T) {
	t.Parallel()
	r := defaultResource(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	r.Plural = "deployments"
	r.ValidateStatus = func(obj, _ runtime.Object) field.ErrorList {
		if obj.(*appsv1.Deployment).Status.Replicas == 7 {
			return field.ErrorList{field.Forbidden(field.NewPath("status", "replicas"), "not 7")}
		}
		return nil
	}
	srv := Start(t, WithConfig(func(c *Config) { c.Resources = append(c.Resources, r) }))
	deployments := clientsetFor(t, srv).AppsV1().Deployments("default")
	ctx := t.Context()
	d, err := deployments.Create(ctx, testDeployment("d", map[string]string{"app": "d"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(deployment) = %v", err)
	}
	d.Status.Replicas = -1
	if d, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(replicas -1) with the override = %v, want it stored", err)
	}
	d.Status.Replicas = 7
	_, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	wantInvalid(t, "UpdateStatus(replicas 7)", err, "Deployment", "d", `Deployment.apps "d" is invalid: status.replicas: Forbidden: not 7`,
		metav1.StatusCause{Type: "FieldValueForbidden", Message: "Forbidden: not 7", Field: "status.replicas"})
}

// TestValidationStatusPod: a pod's status write gets podIPs from podIP
// (SetDefaults_PodStatus) and refuses a condition type that is not a
// qualified name and an address that is not an IP.
func TestValidationStatusPod(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	pods := clientsetFor(t, srv).CoreV1().Pods("default")
	ctx := t.Context()
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: testTemplate(nil).Spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(pod) = %v", err)
	}
	p.Status.PodIP = "10.1.2.3"
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if p, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(podIP) = %v", err)
	}
	if want := []corev1.PodIP{{IP: "10.1.2.3"}}; !cmp.Equal(want, p.Status.PodIPs) {
		t.Errorf("status.podIPs = %v, want %v", p.Status.PodIPs, want)
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "bad type!", Status: corev1.ConditionTrue})
	p.Status.PodIP, p.Status.PodIPs = "10.1.2.300", nil
	_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	wantInvalid(t, "bad condition type and podIP", err, "Pod", "p",
		`Pod "p" is invalid: [status.conditions[1].Type: Invalid value: "bad type!": `+qualifiedNameMsg+`, status.podIPs[0]: Invalid value: "10.1.2.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)]`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "bad type!": ` + qualifiedNameMsg, Field: "status.conditions[1].Type"},
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "10.1.2.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`, Field: "status.podIPs[0]"})
}

// qualifiedNameMsg is what IsQualifiedName says of "bad type!".
var qualifiedNameMsg = validation.IsQualifiedName("bad type!")[0]

// TestValidationStatusPodTransition: what a controller test faking the
// kubelet hits: once a container of a restartPolicy Never pod is reported
// terminated, reporting it running again is refused (also in a dry run),
// and the stored status keeps it terminated.
func TestValidationStatusPodTransition(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	pods := clientsetFor(t, srv).CoreV1().Pods("default")
	ctx := t.Context()
	spec := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(pod) = %v", err)
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}}}
	if p, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(terminated) = %v", err)
	}
	p.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	const msg = "Forbidden: may not be transitioned to non-terminated state"
	for _, dryRun := range [][]string{{metav1.DryRunAll}, nil} {
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{DryRun: dryRun})
		wantInvalid(t, "UpdateStatus(terminated → running)", err, "Pod", "p", `Pod "p" is invalid: status.containerStatuses[0].state: `+msg,
			metav1.StatusCause{Type: "FieldValueForbidden", Message: msg, Field: "status.containerStatuses[0].state"})
	}
	got, err := pods.Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get(pod) = %v", err)
	}
	if len(got.Status.ContainerStatuses) != 1 || got.Status.ContainerStatuses[0].State.Terminated == nil {
		t.Errorf("after the refused UpdateStatus: container statuses %+v, want c terminated", got.Status.ContainerStatuses)
	}
}
