package conformance

// Cases for the validation of writes: bodies kube-apiserver refuses with
// 422 Invalid, with the message and the causes its validation writes.
// Messages of apimachinery's validation helpers are taken from those
// helpers (the real server uses the same ones).

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// writeValidationCases are the cases of this file, in the order [Cases] runs them.
func writeValidationCases() []Case {
	return []Case{
		{Name: "ValidateNamespaceName", Run: runValidateNamespaceName},
		{Name: "ValidateServiceName", Run: runValidateServiceName},
		{Name: "ValidateDataSize", Run: runValidateDataSize},
		{Name: "ValidateLabels", Run: runValidateLabels},
		{Name: "ValidateConfigMapKey", Run: runValidateConfigMapKey},
		{Name: "ValidatePodContainers", Run: runValidatePodContainers},
		{Name: "ValidateDeploymentSelector", Run: runValidateDeploymentSelector},
		{Name: "ValidateDeploymentSelectorImmutable", Run: runValidateDeploymentSelectorImmutable},
		{Name: "ValidateImmutableConfigMap", Run: runValidateImmutableConfigMap},
		{Name: "ValidatePodSpecImmutable", Run: runValidatePodSpecImmutable},
		{Name: "ValidateMisc", Run: runValidateMisc},
		{Name: "ValidateSecretUpdate", Run: runValidateSecretUpdate},
		{Name: "ValidateFields", Run: runValidateFields},
	}
}

// invalid is the 422 Status of kind (group-qualified as the message
// prints it: "Deployment.apps") named name with one cause per error.
func invalid(kind, group, name string, causes ...metav1.StatusCause) statusShape {
	qualified := kind
	if group != "" {
		qualified += "." + group
	}
	parts := make([]string, len(causes))
	for i, c := range causes {
		parts[i] = c.Field + ": " + c.Message
	}
	msg := strings.Join(parts, ", ")
	if len(parts) > 1 {
		msg = "[" + msg + "]"
	}
	return wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, qualified+` "`+name+`" is invalid: `+msg,
		&metav1.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// cause is one StatusCause.
func cause(typ metav1.CauseType, field, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: typ, Field: field, Message: msg}
}

// invalidValue is the cause of a field.Invalid on a string value.
func invalidValue(field, value, msg string) metav1.StatusCause {
	return cause(metav1.CauseTypeFieldValueInvalid, field, `Invalid value: "`+value+`": `+msg)
}

// runValidateNamespaceName: a namespace name is a DNS label: no dots, 63
// characters at most. The name is also the kubernetes.io/metadata.name
// label defaulting adds, so a long name fails that label's check too.
func runValidateNamespaceName(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	dotted := e.ns + ".b"
	long := e.ns + strings.Repeat("x", 64-len(e.ns))
	for _, name := range []string{dotted, long} {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/api/v1/namespaces", Body: object{
			"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": name}}})
		causes := []metav1.StatusCause{invalidValue("metadata.name", name, validation.IsDNS1123Label(name)[0])}
		if msgs := validation.IsValidLabelValue(name); len(msgs) > 0 {
			causes = append(causes, invalidValue("metadata.labels", name, msgs[0]))
		}
		checkStatus(t, "create namespace "+name, r, invalid("Namespace", "", name, causes...))
	}
}

// runValidateServiceName: a Service name is a DNS label (v1.37 enables
// RelaxedServiceNameValidation; it was a DNS-1035 label before).
func runValidateServiceName(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: object{
		"apiVersion": "v1", "kind": "Service", "metadata": object{"name": "a.b"},
		"spec": object{"ports": []any{object{"port": 80}}}}})
	checkStatus(t, "create service a.b", r, invalid("Service", "", "a.b",
		invalidValue("metadata.name", "a.b", validation.IsDNS1123Label("a.b")[0])))
}

// runValidateDataSize: a ConfigMap's or a Secret's data is 1 MiB at most
// (ConfigMaps report it on the whole object, field "[]").
func runValidateDataSize(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	big := strings.Repeat("x", 1<<20+1)
	const tooLong = "Too long: may not be more than 1048576 bytes"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("big", nil, big)})
	checkStatus(t, "create configmap over 1 MiB", r, invalid("ConfigMap", "", "big", cause(metav1.CauseType("FieldValueTooLong"), "[]", tooLong)))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "secrets"), Body: object{
		"apiVersion": "v1", "kind": "Secret", "metadata": object{"name": "big"}, "stringData": object{"k": big}}})
	checkStatus(t, "create secret over 1 MiB", r, invalid("Secret", "", "big", cause(metav1.CauseType("FieldValueTooLong"), "data", tooLong)))
}

// runValidateLabels: label keys are qualified names and values 63
// characters at most.
func runValidateLabels(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("k", map[string]string{"bad key!": "v"}, "v")})
	checkStatus(t, "label key 'bad key!'", r, invalid("ConfigMap", "", "k",
		invalidValue("metadata.labels", "bad key!", validation.IsQualifiedName("bad key!")[0])))
	long := strings.Repeat("v", 100)
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("v", map[string]string{"k": long}, "v")})
	checkStatus(t, "label value of 100 characters", r, invalid("ConfigMap", "", "v",
		invalidValue("metadata.labels", long, validation.IsValidLabelValue(long)[0])))
}

// runValidateConfigMapKey: data keys are config keys (no slash).
func runValidateConfigMapKey(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("d", nil, "v")
	body["data"] = object{"bad/key": "v"}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body})
	checkStatus(t, "data key bad/key", r, invalid("ConfigMap", "", "d",
		invalidValue("data[bad/key]", "bad/key", validation.IsConfigMapKey("bad/key")[0])))
}

// runValidatePodContainers: a pod needs containers, each with a name (a
// DNS label) and an image.
func runValidatePodContainers(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods(), Body: pod("p", "")})
	checkStatus(t, "pod without containers", r, invalid("Pod", "", "p", cause(metav1.CauseTypeFieldValueRequired, "spec.containers", "Required value")))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods(), Body: pod("p", "", object{"name": "C_1"})})
	checkStatus(t, "container with a bad name and no image", r, invalid("Pod", "", "p",
		invalidValue("spec.containers[0].name", "C_1", validation.IsDNS1123Label("C_1")[0]),
		cause(metav1.CauseTypeFieldValueRequired, "spec.containers[0].image", "Required value")))
}

// deployment is an apps/v1 Deployment body selecting app=<name>.
func deployment(name string, replicas int) object {
	labels := object{"app": name}
	return object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": object{"name": name},
		"spec": object{"replicas": replicas, "selector": object{"matchLabels": labels},
			"template": object{"metadata": object{"labels": labels}, "spec": object{"containers": []any{object{"name": "c", "image": "busybox"}}}}}}
}

// deployments is the Deployment collection path of the case's namespace.
func (e *env) deployments() string { return "/apis/apps/v1/namespaces/" + e.ns + "/deployments" }

// runValidateDeploymentSelector: a Deployment's selector is required and
// must match the template's labels.
func runValidateDeploymentSelector(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const mismatch = "`selector` does not match template `labels`"
	body := deployment("d", 1)
	delete(body["spec"].(object), "selector")
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: body})
	checkStatus(t, "deployment without selector", r, invalid("Deployment", "apps", "d",
		cause(metav1.CauseTypeFieldValueRequired, "spec.selector", "Required value"),
		cause(metav1.CauseTypeFieldValueInvalid, "spec.template.metadata.labels", `Invalid value: {"app":"d"}: `+mismatch)))
	body = deployment("d", 1)
	body["spec"].(object)["template"].(object)["metadata"] = object{"labels": object{"app": "x"}}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: body})
	checkStatus(t, "deployment selecting other labels", r, invalid("Deployment", "apps", "d",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.template.metadata.labels", `Invalid value: {"app":"x"}: `+mismatch)))
}

// runValidateDeploymentSelectorImmutable: spec.selector cannot change.
func runValidateDeploymentSelectorImmutable(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("d", 1)})
	r.mustCode(t, http.StatusCreated, "create deployment")
	patch := object{"spec": object{"selector": object{"matchLabels": object{"app": "d", "x": "y"}},
		"template": object{"metadata": object{"labels": object{"app": "d", "x": "y"}}}}}
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/d", Body: patch, ContentType: "application/merge-patch+json"})
	checkStatus(t, "selector change", r, invalid("Deployment", "apps", "d",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.selector", `Invalid value: {"matchLabels":{"app":"d","x":"y"}}: field is immutable`)))
}

// runValidateImmutableConfigMap: data of a ConfigMap with immutable: true
// cannot change; its labels can.
func runValidateImmutableConfigMap(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("i", nil, "v")
	body["immutable"] = true
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body}).mustCode(t, http.StatusCreated, "create immutable configmap")
	merge := func(patch object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/i", Body: patch, ContentType: "application/merge-patch+json"})
	}
	checkStatus(t, "data change", merge(object{"data": object{"k": "w"}}), invalid("ConfigMap", "", "i",
		cause(metav1.CauseType("FieldValueForbidden"), "data", "Forbidden: field is immutable when `immutable` is set")))
	merge(object{"metadata": object{"labels": object{"a": "b"}}}).mustCode(t, http.StatusOK, "label change")
}

// runValidatePodSpecImmutable: a pod's spec only changes in images,
// activeDeadlineSeconds and added tolerations; the message's first line
// names them (the diff after it is rendered from kube-apiserver's internal
// type; see DIVERGENCES.md).
func runValidatePodSpecImmutable(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, pod("p", "", object{"name": "c", "image": "busybox"}))
	strategic := func(patch object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.pods() + "/p", Body: patch, ContentType: "application/strategic-merge-patch+json"})
	}
	strategic(object{"spec": object{"containers": []any{object{"name": "c", "image": "busybox:stable"}}}}).mustCode(t, http.StatusOK, "image change")
	r := strategic(object{"spec": object{"nodeName": "node-a"}})
	st := r.status(t)
	const first = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if r.Code != http.StatusUnprocessableEntity || st.Reason != metav1.StatusReasonInvalid || firstLine(st.Message) != `Pod "p" is invalid: spec: Forbidden: `+first ||
		st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "spec" || firstLine(st.Details.Causes[0].Message) != "Forbidden: "+first {
		t.Errorf("nodeName change: %d %s, want 422 forbidding the spec change", r.Code, r.Body)
	}
}

// runValidateMisc: an unqualified finalizer that is not a standard one, a
// StatefulSet name with a dot (a DNS label), a DaemonSet without a
// selector and a Service without ports.
func runValidateMisc(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("f", nil, "v")
	body["metadata"].(object)["finalizers"] = []string{"foo"}
	checkStatus(t, "finalizer foo", e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body}), invalid("ConfigMap", "", "f",
		invalidValue("metadata.finalizers[0]", "foo", "name is neither a standard finalizer name nor is it fully qualified")))

	sts := deployment("s.s", 1)
	sts["kind"] = "StatefulSet"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/apps/v1/namespaces/" + e.ns + "/statefulsets", Body: sts})
	checkStatus(t, "statefulset s.s", r, invalid("StatefulSet", "apps", "s.s",
		invalidValue("metadata.name", "s.s", validation.IsDNS1123Label("s.s")[0])))

	ds := deployment("d", 1)
	ds["kind"] = "DaemonSet"
	spec := ds["spec"].(object)
	delete(spec, "replicas")
	delete(spec, "selector")
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/apps/v1/namespaces/" + e.ns + "/daemonsets", Body: ds})
	checkStatus(t, "daemonset without selector", r, invalid("DaemonSet", "apps", "d",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.template.metadata.labels", `Invalid value: {"app":"d"}: `+"`selector` does not match template `labels`")))

	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: object{
		"apiVersion": "v1", "kind": "Service", "metadata": object{"name": "s"}, "spec": object{"selector": object{"app": "s"}}}})
	checkStatus(t, "service without ports", r, invalid("Service", "", "s", cause(metav1.CauseTypeFieldValueRequired, "spec.ports", "Required value")))
}

// runValidateSecretUpdate: a Secret's type cannot change, nor the data
// of an immutable one.
func runValidateSecretUpdate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	secrets := nsPath(e.ns, "secrets")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: secrets, Body: object{"apiVersion": "v1", "kind": "Secret",
		"metadata": object{"name": "s"}, "type": "Opaque", "immutable": true, "stringData": object{"k": "v"}}}).mustCode(t, http.StatusCreated, "create secret")
	merge := func(patch object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: secrets + "/s", Body: patch, ContentType: "application/merge-patch+json"})
	}
	checkStatus(t, "type change", merge(object{"type": "example.com/other"}), invalid("Secret", "", "s",
		invalidValue("type", "example.com/other", "field is immutable")))
	checkStatus(t, "data change", merge(object{"stringData": object{"k": "w"}}), invalid("Secret", "", "s",
		cause(metav1.CauseType("FieldValueForbidden"), "data", "Forbidden: field is immutable when `immutable` is set")))
}

// runValidateFields: more of the checks tests hit: negative replicas, a
// service port out of range, duplicate container names, an unknown
// restartPolicy, an invalid generateName, oversized annotations.
func runValidateFields(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	post := func(path string, body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
	}
	checkStatus(t, "deployment with -1 replicas", post(e.deployments(), deployment("d", -1)), invalid("Deployment", "apps", "d",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")))

	svc := object{"apiVersion": "v1", "kind": "Service", "metadata": object{"name": "s"}, "spec": object{"ports": []any{object{"port": 70000}}}}
	// targetPort defaults to the port, so it is out of range too.
	checkStatus(t, "service port 70000", post(nsPath(e.ns, "services"), svc), invalid("Service", "", "s",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.ports[0].port", "Invalid value: 70000: "+validation.IsValidPortNum(70000)[0]),
		cause(metav1.CauseTypeFieldValueInvalid, "spec.ports[0].targetPort", "Invalid value: 70000: "+validation.IsValidPortNum(70000)[0])))

	dup := pod("p", "", object{"name": "c", "image": "busybox"}, object{"name": "c", "image": "busybox"})
	checkStatus(t, "duplicate container names", post(e.pods(), dup), invalid("Pod", "", "p",
		cause(metav1.CauseTypeFieldValueDuplicate, "spec.containers[1].name", `Duplicate value: "c"`)))

	sometimes := pod("p", "", object{"name": "c", "image": "busybox"})
	sometimes["spec"].(object)["restartPolicy"] = "Sometimes"
	checkStatus(t, "restartPolicy Sometimes", post(e.pods(), sometimes), invalid("Pod", "", "p",
		cause(metav1.CauseTypeFieldValueNotSupported, "spec.restartPolicy", `Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`)))

	gen := cm("", nil, "v")
	gen["metadata"] = object{"generateName": "Bad-"}
	r := post(e.cms(), gen)
	st := r.status(t)
	if r.Code != http.StatusUnprocessableEntity || st.Details == nil || len(st.Details.Causes) != 2 ||
		st.Details.Causes[0].Field != "metadata.generateName" || st.Details.Causes[1].Field != "metadata.name" {
		t.Errorf("generateName Bad-: %d %s, want 422 on metadata.generateName and metadata.name", r.Code, r.Body)
	}

	big := cm("a", nil, "v")
	big["metadata"].(object)["annotations"] = object{"k": strings.Repeat("x", 256*1024)}
	checkStatus(t, "annotations over 256 KiB", post(e.cms(), big), invalid("ConfigMap", "", "a",
		cause(metav1.CauseType("FieldValueTooLong"), "metadata.annotations", "Too long: may not be more than 262144 bytes")))
}
