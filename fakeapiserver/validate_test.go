package fakeapiserver

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// wantInvalid checks err is the real server's 422: reason Invalid, the
// message, details naming kind and name, and one cause per field.
func wantInvalid(t *testing.T, what string, err error, kind, name, message string, causes ...metav1.StatusCause) {
	t.Helper()
	var st apierrors.APIStatus
	if err == nil || !apierrors.IsInvalid(err) {
		t.Errorf("%s: err = %v, want 422 Invalid", what, err)
		return
	}
	if !asAPIStatus(err, &st) {
		t.Fatalf("%s: %T is no APIStatus", what, err)
	}
	got := st.Status()
	want := metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid, Message: message,
		Details: &metav1.StatusDetails{Name: name, Kind: kind, Group: got.Details.Group, Causes: causes}}
	got.TypeMeta = metav1.TypeMeta{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: status mismatch (-want +got):\n%s", what, diff)
	}
}

// asAPIStatus is errors.As for the APIStatus interface.
func asAPIStatus(err error, st *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*st = s
	}
	return ok
}

const (
	// dns1123LabelMsg is what a DNS label with a dot gets (a valid
	// subdomain otherwise).
	dns1123LabelMsg = "must not contain dots"
)

// TestValidationCreate: each body the issue lists is 201 on a server
// without validation and 422 on kube-apiserver, with its Status.
func TestValidationCreate(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	long := strings.Repeat("a", 64)

	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a.b"}}, metav1.CreateOptions{})
	wantInvalid(t, "namespace a.b", err, "Namespace", "a.b", `Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": `+dns1123LabelMsg,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "a.b": ` + dns1123LabelMsg, Field: "metadata.name"})

	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: long}}, metav1.CreateOptions{})
	// The name is also the kubernetes.io/metadata.name label's value.
	nameMsg, labelMsg := `Invalid value: "`+long+`": must be no more than 63 characters`, `Invalid value: "`+long+`": must be no more than 63 bytes`
	wantInvalid(t, "namespace of 64 characters", err, "Namespace", long, `Namespace "`+long+`" is invalid: [metadata.name: `+nameMsg+`, metadata.labels: `+labelMsg+`]`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: nameMsg, Field: "metadata.name"},
		metav1.StatusCause{Type: "FieldValueInvalid", Message: labelMsg, Field: "metadata.labels"})

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "a.b"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	_, err = cs.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
	wantInvalid(t, "service a.b", err, "Service", "a.b", `Service "a.b" is invalid: metadata.name: Invalid value: "a.b": `+dns1123LabelMsg,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "a.b": ` + dns1123LabelMsg, Field: "metadata.name"})

	big := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string]string{"k": strings.Repeat("x", 1<<20+1)}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, big, metav1.CreateOptions{})
	wantInvalid(t, "configmap over 1 MiB", err, "ConfigMap", "big", `ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes`,
		metav1.StatusCause{Type: "FieldValueTooLong", Message: "Too long: may not be more than 1048576 bytes", Field: "[]"})

	bigSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string][]byte{"k": make([]byte, 1<<20+1)}}
	_, err = cs.CoreV1().Secrets("default").Create(ctx, bigSecret, metav1.CreateOptions{})
	wantInvalid(t, "secret over 1 MiB", err, "Secret", "big", `Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes`,
		metav1.StatusCause{Type: "FieldValueTooLong", Message: "Too long: may not be more than 1048576 bytes", Field: "data"})

	badKey := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "k", Labels: map[string]string{"bad key!": "v"}}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, badKey, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`) {
		t.Errorf("label key 'bad key!': %v, want 422 on metadata.labels", err)
	}

	longValue := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "v", Labels: map[string]string{"k": strings.Repeat("v", 100)}}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, longValue, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `metadata.labels: Invalid value: "`+strings.Repeat("v", 100)+`": must be no more than 63 bytes`) {
		t.Errorf("label value of 100 characters: %v, want 422 on metadata.labels", err)
	}

	dataKey := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Data: map[string]string{"bad/key": "v"}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, dataKey, metav1.CreateOptions{})
	keyMsg := `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`
	wantInvalid(t, "configmap data key bad/key", err, "ConfigMap", "d", `ConfigMap "d" is invalid: data[bad/key]: Invalid value: "bad/key": `+keyMsg,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "bad/key": ` + keyMsg, Field: "data[bad/key]"})

	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{})
	wantInvalid(t, "pod without containers", err, "Pod", "p", `Pod "p" is invalid: spec.containers: Required value`,
		metav1.StatusCause{Type: "FieldValueRequired", Message: "Required value", Field: "spec.containers"})

	for _, name := range []string{"a.b", "", long} {
		if name == "" {
			continue
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Get(configmap %q) after refused creates = %v, want NotFound", name, err)
		}
	}
}

// TestValidationWorkloads: the apps kinds need a selector matching the
// template's labels and containers with a name and an image; the selector
// is immutable.
func TestValidationWorkloads(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()

	noSel := testDeployment("d", map[string]string{"app": "d"})
	noSel.Spec.Selector = nil
	_, err := cs.AppsV1().Deployments("default").Create(ctx, noSel, metav1.CreateOptions{})
	wantInvalid(t, "deployment without selector", err, "Deployment", "d",
		`Deployment.apps "d" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"d"}: `+"`selector` does not match template `labels`]",
		metav1.StatusCause{Type: "FieldValueRequired", Message: "Required value", Field: "spec.selector"},
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: {"app":"d"}: ` + "`selector` does not match template `labels`", Field: "spec.template.metadata.labels"})

	mismatch := testDeployment("d", map[string]string{"app": "d"})
	mismatch.Spec.Template.Labels = map[string]string{"app": "other"}
	_, err = cs.AppsV1().Deployments("default").Create(ctx, mismatch, metav1.CreateOptions{})
	wantInvalid(t, "deployment selector mismatch", err, "Deployment", "d",
		`Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"other"}: `+"`selector` does not match template `labels`",
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: {"app":"other"}: ` + "`selector` does not match template `labels`", Field: "spec.template.metadata.labels"})

	noImage := testDeployment("d", map[string]string{"app": "d"})
	noImage.Spec.Template.Spec.Containers[0].Image = ""
	_, err = cs.AppsV1().Deployments("default").Create(ctx, noImage, metav1.CreateOptions{})
	wantInvalid(t, "deployment without image", err, "Deployment", "d", `Deployment.apps "d" is invalid: spec.template.spec.containers[0].image: Required value`,
		metav1.StatusCause{Type: "FieldValueRequired", Message: "Required value", Field: "spec.template.spec.containers[0].image"})

	d, err := cs.AppsV1().Deployments("default").Create(ctx, testDeployment("d", map[string]string{"app": "d"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(valid deployment) = %v", err)
	}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d", "x": "y"}}
	d.Spec.Template.Labels = map[string]string{"app": "d", "x": "y"}
	_, err = cs.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{})
	wantInvalid(t, "deployment selector change", err, "Deployment", "d",
		`Deployment.apps "d" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"d","x":"y"}}: field is immutable`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: {"matchLabels":{"app":"d","x":"y"}}: field is immutable`, Field: "spec.selector"})

	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s.s"}, Spec: appsv1.StatefulSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "s"}}, Template: testTemplate(map[string]string{"app": "s"})}}
	_, err = cs.AppsV1().StatefulSets("default").Create(ctx, sts, metav1.CreateOptions{})
	wantInvalid(t, "statefulset s.s", err, "StatefulSet", "s.s", `StatefulSet.apps "s.s" is invalid: metadata.name: Invalid value: "s.s": `+dns1123LabelMsg,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "s.s": ` + dns1123LabelMsg, Field: "metadata.name"})
}

// TestValidationImmutable: an immutable ConfigMap keeps its data, and a
// pod's spec only changes where the real server allows it.
func TestValidationImmutable(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	yes := true
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "i"}, Immutable: &yes, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "w"
	_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	wantInvalid(t, "update of immutable configmap", err, "ConfigMap", "i", "ConfigMap \"i\" is invalid: data: Forbidden: field is immutable when `immutable` is set",
		metav1.StatusCause{Type: "FieldValueForbidden", Message: "Forbidden: field is immutable when `immutable` is set", Field: "data"})
	_, err = cs.CoreV1().ConfigMaps("default").Patch(ctx, "i", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Errorf("label patch of an immutable configmap = %v, want allowed", err)
	}

	pod, err := cs.CoreV1().Pods("default").Create(ctx, newTestPod("p", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Patch(ctx, "p", types.StrategicMergePatchType,
		[]byte(`{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("image patch = %v, want allowed", err)
	}
	_, err = cs.CoreV1().Pods("default").Patch(ctx, "p", types.MergePatchType, []byte(`{"spec":{"nodeName":"n"}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.HasPrefix(string(apierrors.ReasonForError(err))+":"+err.Error(),
		"Invalid:Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`") {
		t.Errorf("nodeName patch = %v, want 422 forbidding the spec change", err)
	}
	if got, _ := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{}); got.Spec.NodeName != "" || got.ResourceVersion == pod.ResourceVersion {
		t.Errorf("pod after the refused patch: nodeName %q rv %s, want unbound and moved by the image patch", got.Spec.NodeName, got.ResourceVersion)
	}
}

// testTemplate is a valid pod template with labels.
func testTemplate(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

// testDeployment is a valid Deployment selecting labels.
func testDeployment(name string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: testTemplate(labels)}}
}

// mustCreateDeployment creates a valid Deployment.
func mustCreateDeployment(t *testing.T, ctx context.Context, cs kubernetes.Interface, name string, replicas int32) *appsv1.Deployment {
	t.Helper()
	d := testDeployment(name, map[string]string{"app": name})
	d.Spec.Replicas = &replicas
	got, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(deployment %s) = %v", name, err)
	}
	return got
}

// TestValidationJob: a Job's template restartPolicy must be OnFailure or
// Never (the messages are kube-apiserver v1.37.2's, observed).
func TestValidationJob(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(c *Config) {
		c.GroupVersions = append(append([]schema.GroupVersion{}, DefaultGroupVersions...), batchv1.SchemeGroupVersion)
	}))
	jobs := clientsetFor(t, srv).BatchV1().Jobs("default")
	ctx := t.Context()
	job := func(name string, rp corev1.RestartPolicy) *batchv1.Job {
		tmpl := testTemplate(nil)
		tmpl.Spec.RestartPolicy = rp
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: batchv1.JobSpec{Template: tmpl}}
	}
	_, err := jobs.Create(ctx, job("a", ""), metav1.CreateOptions{})
	wantInvalid(t, "job without restartPolicy", err, "Job", "a", `Job.batch "a" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
		metav1.StatusCause{Type: "FieldValueRequired", Message: `Required value: valid values: "OnFailure", "Never"`, Field: "spec.template.spec.restartPolicy"})
	b := job("b", "Sometimes")
	minus := int32(-1)
	b.Spec.Parallelism = &minus
	_, err = jobs.Create(ctx, b, metav1.CreateOptions{})
	wantInvalid(t, "job with parallelism -1 and restartPolicy Sometimes", err, "Job", "b",
		`Job.batch "b" is invalid: [spec.parallelism: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"]`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: -1: must be greater than or equal to 0", Field: "spec.parallelism"},
		metav1.StatusCause{Type: "FieldValueNotSupported", Message: `Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`, Field: "spec.template.spec.restartPolicy"},
		metav1.StatusCause{Type: "FieldValueNotSupported", Message: `Unsupported value: "Sometimes": supported values: "OnFailure", "Never"`, Field: "spec.template.spec.restartPolicy"})
	if _, err := jobs.Create(ctx, job("c", corev1.RestartPolicyNever), metav1.CreateOptions{}); err != nil {
		t.Errorf("Create(job with restartPolicy Never) = %v", err)
	}
}
