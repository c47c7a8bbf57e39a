package conformance

// The decoder defaults of the built-in kinds with a few scalar rules each
// (kubernetes pkg/apis/<group>/v1/defaults.go): a minimal body is stored
// with what kube-apiserver v1.37 fills in.

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decoderDefaultsCases are the cases of this file, in the order [Cases] runs them.
func decoderDefaultsCases() []Case {
	return []Case{
		{Name: "DecoderDefaultsNamespaced", Run: runDecoderDefaultsNamespaced},
		{Name: "DecoderDefaultsClusterScoped", Run: runDecoderDefaultsClusterScoped},
	}
}

// checkFields compares the top-level fields keys of got (as stored) with
// want, a JSON object of those fields.
func checkFields(t *testing.T, what string, got object, want string, keys ...string) {
	t.Helper()
	shape := object{}
	for _, k := range keys {
		if v, ok := got[k]; ok {
			shape[k] = v
		}
	}
	var wantV object
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if diff := cmp.Diff(wantV, shape); diff != "" {
		t.Errorf("%s: stored fields %v (-want +got):\n%s", what, keys, diff)
	}
}

// createClusterStored is createStored for a cluster-scoped object, which
// is deleted when the case ends.
func (e *env) createClusterStored(ctx context.Context, path string, body object) object {
	e.t.Helper()
	got := e.createStored(ctx, path, body)
	e.t.Cleanup(func() {
		e.c.do(context.Background(), e.t, request{Method: http.MethodDelete, Path: path + "/" + nameOf(got)})
	})
	return got
}

// runDecoderDefaultsNamespaced: a Secret without a type is Opaque; an
// Endpoints subset's and an EndpointSlice's ports are TCP (the slice's
// named ""); a Container LimitRange's default limit is its max and its
// default request the default limit, else its min; a NetworkPolicy's
// policy types follow its rules and its rule ports are TCP; a RoleBinding
// refers to rbac.authorization.k8s.io roles and User and Group subjects;
// a ResourceClaim's device requests count one device exactly unless told
// otherwise, and their tolerations are Equal; an autoscaling/v1 HPA gets
// one minimum replica and an 80% CPU target, a v2 HPA the same as a metric
// and its behavior's missing rules.
func runDecoderDefaultsNamespaced(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	core := func(kind string, fields object) object {
		body := object{"apiVersion": "v1", "kind": kind, "metadata": object{"name": "d"}}
		for k, v := range fields {
			body[k] = v
		}
		return body
	}
	got := e.createStored(ctx, nsPath(e.ns, "secrets"), core("Secret", object{"stringData": object{"k": "v"}}))
	checkFields(t, "Secret", got, `{"type":"Opaque","data":{"k":"dg=="}}`, "type", "data")
	got = e.createStored(ctx, nsPath(e.ns, "endpoints"), core("Endpoints", object{"subsets": []any{object{
		"addresses": []any{object{"ip": "10.1.2.3"}}, "ports": []any{object{"port": 80}}}}}))
	checkFields(t, "Endpoints", got, `{"subsets":[{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80,"protocol":"TCP"}]}]}`, "subsets")
	got = e.createStored(ctx, nsPath(e.ns, "limitranges"), core("LimitRange", object{"spec": object{"limits": []any{
		object{"type": "Container", "max": object{"cpu": "2"}, "min": object{"memory": "1Mi"}},
		object{"type": "Pod", "max": object{"cpu": "4"}}}}}))
	checkFields(t, "LimitRange", got, `{"spec":{"limits":[
		{"type":"Container","max":{"cpu":"2"},"min":{"memory":"1Mi"},"default":{"cpu":"2"},"defaultRequest":{"cpu":"2","memory":"1Mi"}},
		{"type":"Pod","max":{"cpu":"4"}}]}}`, "spec")

	got = e.createStored(ctx, "/apis/discovery.k8s.io/v1/namespaces/"+e.ns+"/endpointslices", object{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": object{"name": "d"},
		"addressType": "IPv4", "endpoints": []any{object{"addresses": []any{"10.1.2.3"}}}, "ports": []any{object{"port": 80}}})
	checkFields(t, "EndpointSlice", got, `{"ports":[{"name":"","port":80,"protocol":"TCP"}]}`, "ports")

	nps := "/apis/networking.k8s.io/v1/namespaces/" + e.ns + "/networkpolicies"
	np := func(name string, spec object) object {
		return object{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": object{"name": name}, "spec": spec}
	}
	got = e.createStored(ctx, nps, np("in", object{"podSelector": object{}, "ingress": []any{object{"ports": []any{object{"port": 80}}}}}))
	checkFields(t, "NetworkPolicy with ingress", got, `{"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80,"protocol":"TCP"}]}],
		"policyTypes":["Ingress"]}}`, "spec")
	got = e.createStored(ctx, nps, np("out", object{"podSelector": object{}, "egress": []any{object{"ports": []any{object{"port": 53, "protocol": "UDP"}}}}}))
	checkFields(t, "NetworkPolicy with egress", got, `{"spec":{"podSelector":{},"egress":[{"ports":[{"port":53,"protocol":"UDP"}]}],
		"policyTypes":["Ingress","Egress"]}}`, "spec")

	got = e.createStored(ctx, "/apis/rbac.authorization.k8s.io/v1/namespaces/"+e.ns+"/rolebindings", object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": object{"name": "d"},
		"roleRef": object{"kind": "Role", "name": "r"},
		"subjects": []any{object{"kind": "User", "name": "u"}, object{"kind": "Group", "name": "g"},
			object{"kind": "ServiceAccount", "name": "sa", "namespace": e.ns}}})
	checkFields(t, "RoleBinding", got, `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},
		"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"},
		{"kind":"ServiceAccount","name":"sa","namespace":"`+e.ns+`"}]}`, "roleRef", "subjects")

	got = e.createStored(ctx, "/apis/resource.k8s.io/v1/namespaces/"+e.ns+"/resourceclaims", object{
		"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": object{"name": "d"},
		"spec": object{"devices": object{"requests": []any{
			object{"name": "one", "exactly": object{"deviceClassName": "gpu.example.com", "tolerations": []any{object{"key": "k", "value": "v"}}}},
			object{"name": "alt", "firstAvailable": []any{object{"name": "a", "deviceClassName": "gpu.example.com"},
				object{"name": "b", "deviceClassName": "gpu.example.com", "allocationMode": "All"}}},
		}}}})
	checkFields(t, "ResourceClaim", got, `{"spec":{"devices":{"requests":[
		{"name":"one","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1,
			"tolerations":[{"key":"k","operator":"Equal","value":"v"}]}},
		{"name":"alt","firstAvailable":[{"name":"a","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1},
			{"name":"b","deviceClassName":"gpu.example.com","allocationMode":"All"}]}]}}}`, "spec")

	target2 := object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}
	got = e.createStored(ctx, "/apis/autoscaling/v1/namespaces/"+e.ns+"/horizontalpodautoscalers", object{
		"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": object{"name": "one"},
		"spec": object{"maxReplicas": 3, "scaleTargetRef": target2}})
	checkFields(t, "autoscaling/v1 HPA", got, `{"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"x"},
		"minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":80}}`, "spec")
	got = e.createStored(ctx, "/apis/autoscaling/v2/namespaces/"+e.ns+"/horizontalpodautoscalers", object{
		"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": object{"name": "two"},
		"spec": object{"maxReplicas": 3, "scaleTargetRef": target2, "behavior": object{"scaleUp": object{"stabilizationWindowSeconds": 5}}}})
	checkFields(t, "autoscaling/v2 HPA", got, `{"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"x"},
		"minReplicas":1,"maxReplicas":3,
		"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}],
		"behavior":{"scaleUp":{"stabilizationWindowSeconds":5,"selectPolicy":"Max",
			"policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},
			"scaleDown":{"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}}}`, "spec")
}

// runDecoderDefaultsClusterScoped: a ClusterRoleBinding's role reference
// and subjects as a RoleBinding's; a StorageClass reclaims with Delete
// and binds Immediately; a CSIDriver's flags, fsGroupPolicy and modes; a
// PriorityClass preempts lower priorities; an IngressClass's parameters
// are cluster-scoped; a FlowSchema's matching precedence is 1000; a
// Limited priority level gets its shares, lending and queuing (only the
// mandatory "exempt" level may be Exempt); a
// webhook (validating or mutating) fails closed, matches equivalent
// requests, selects everything, waits 10 s, calls port 443 and its rules
// cover every scope, and a mutating one is never reinvoked; an admission
// policy fails closed and its binding's and its match constraints get the
// same match defaults.
func runDecoderDefaultsClusterScoped(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := e.ns // unique, and a valid name of every kind
	meta := object{"name": name}
	got := e.createClusterStored(ctx, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": meta,
		"roleRef": object{"kind": "ClusterRole", "name": "view"}, "subjects": []any{object{"kind": "Group", "name": "g"}}})
	checkFields(t, "ClusterRoleBinding", got, `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
		"subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"}]}`, "roleRef", "subjects")
	got = e.createClusterStored(ctx, "/apis/storage.k8s.io/v1/storageclasses", object{
		"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": "example.com/p"})
	checkFields(t, "StorageClass", got, `{"provisioner":"example.com/p","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`,
		"provisioner", "reclaimPolicy", "volumeBindingMode")
	got = e.createClusterStored(ctx, "/apis/storage.k8s.io/v1/csidrivers", object{
		"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": object{"name": name + ".example.com"}, "spec": object{}})
	checkFields(t, "CSIDriver", got, `{"spec":{"attachRequired":true,"podInfoOnMount":false,"storageCapacity":false,
		"fsGroupPolicy":"ReadWriteOnceWithFSType","volumeLifecycleModes":["Persistent"],"requiresRepublish":false,
		"seLinuxMount":false,"preventPodSchedulingIfMissing":false}}`, "spec")
	got = e.createClusterStored(ctx, "/apis/scheduling.k8s.io/v1/priorityclasses", object{
		"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": meta, "value": 7})
	checkFields(t, "PriorityClass", got, `{"value":7,"preemptionPolicy":"PreemptLowerPriority"}`, "value", "preemptionPolicy", "globalDefault")
	got = e.createClusterStored(ctx, "/apis/networking.k8s.io/v1/ingressclasses", object{
		"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta,
		"spec": object{"controller": "example.com/c", "parameters": object{"kind": "K", "name": "p"}}})
	checkFields(t, "IngressClass", got, `{"spec":{"controller":"example.com/c","parameters":{"kind":"K","name":"p","scope":"Cluster"}}}`, "spec")

	fc := "/apis/flowcontrol.apiserver.k8s.io/v1/"
	got = e.createClusterStored(ctx, fc+"prioritylevelconfigurations", object{
		"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": meta,
		"spec": object{"type": "Limited", "limited": object{"limitResponse": object{"type": "Queue", "queuing": object{}}}}})
	checkFields(t, "Limited PriorityLevelConfiguration", got, `{"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":30,
		"lendablePercent":0,"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":8,"queueLengthLimit":50}}}}}`, "spec")
	got = e.createClusterStored(ctx, fc+"flowschemas", object{
		"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": meta,
		"spec": object{"priorityLevelConfiguration": object{"name": name}}})
	checkFields(t, "FlowSchema", got, `{"spec":{"priorityLevelConfiguration":{"name":"`+name+`"},"matchingPrecedence":1000}}`, "spec")

	adm := "/apis/admissionregistration.k8s.io/v1/"
	webhook := func(kind string) object {
		return object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": meta, "webhooks": []any{object{
			"name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": []any{"v1"},
			"clientConfig": object{"service": object{"namespace": e.ns, "name": "s"}},
			// Rules for a resource no server has, so no request is sent.
			"rules": []any{object{"operations": []any{"CREATE"}, "apiGroups": []any{"none.example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"things"}}},
		}}}
	}
	hook := `"name":"w.example.com","clientConfig":{"service":{"namespace":"` + e.ns + `","name":"s","port":443}},
		"rules":[{"operations":["CREATE"],"apiGroups":["none.example.com"],"apiVersions":["v1"],"resources":["things"],"scope":"*"}],
		"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"sideEffects":"None",
		"timeoutSeconds":10,"admissionReviewVersions":["v1"]`
	got = e.createClusterStored(ctx, adm+"validatingwebhookconfigurations", webhook("ValidatingWebhookConfiguration"))
	checkFields(t, "ValidatingWebhookConfiguration", got, `{"webhooks":[{`+hook+`}]}`, "webhooks")
	got = e.createClusterStored(ctx, adm+"mutatingwebhookconfigurations", webhook("MutatingWebhookConfiguration"))
	checkFields(t, "MutatingWebhookConfiguration", got, `{"webhooks":[{`+hook+`,"reinvocationPolicy":"Never"}]}`, "webhooks")

	rules := []any{object{"operations": []any{"CREATE"}, "apiGroups": []any{"none.example.com"}, "apiVersions": []any{"v1"}, "resources": []any{"things"}}}
	match := `{"namespaceSelector":{},"objectSelector":{},"matchPolicy":"Equivalent",
		"resourceRules":[{"operations":["CREATE"],"apiGroups":["none.example.com"],"apiVersions":["v1"],"resources":["things"],"scope":"*"}]}`
	got = e.createClusterStored(ctx, adm+"validatingadmissionpolicies", object{"apiVersion": "admissionregistration.k8s.io/v1",
		"kind": "ValidatingAdmissionPolicy", "metadata": meta,
		"spec": object{"matchConstraints": object{"resourceRules": rules}, "validations": []any{object{"expression": "true"}}}})
	checkFields(t, "ValidatingAdmissionPolicy", got, `{"spec":{"matchConstraints":`+match+`,"validations":[{"expression":"true"}],"failurePolicy":"Fail"}}`, "spec")
	got = e.createClusterStored(ctx, adm+"validatingadmissionpolicybindings", object{"apiVersion": "admissionregistration.k8s.io/v1",
		"kind": "ValidatingAdmissionPolicyBinding", "metadata": meta,
		"spec": object{"policyName": name, "validationActions": []any{"Deny"}, "matchResources": object{"resourceRules": rules}}})
	checkFields(t, "ValidatingAdmissionPolicyBinding", got, `{"spec":{"policyName":"`+name+`","validationActions":["Deny"],"matchResources":`+match+`}}`, "spec")
}
