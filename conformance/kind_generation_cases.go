package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The networking.k8s.io strategies keep metadata.generation as the
// workloads' do (kubernetes pkg/registry/networking/ingress/strategy.go,
// networkpolicy/strategy.go, ingressclass/strategy.go: PrepareForCreate
// sets 1, PrepareForUpdate bumps it when the spec changes), so a
// controller can tell whether its status has caught up with the spec.

// generationStep is one write of a generation case and the generation
// it leaves.
type generationStep struct {
	what  string
	patch object
	want  int64
}

// kindGenerationCases are the cases of this file, in the order [Cases] runs them.
func kindGenerationCases() []Case {
	return []Case{
		{Name: "NetworkingGeneration", Run: runNetworkingGeneration},
		{Name: "SpecGeneration", Run: runSpecGeneration},
		{Name: "RuleGeneration", Run: runRuleGeneration},
	}
}

// runNetworkingGeneration: an Ingress, a NetworkPolicy and an
// IngressClass start at generation 1; a spec change bumps it, a label
// change does not.
func runNetworkingGeneration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	class := "cf-gen-" + randomSuffix()
	classes := "/apis/networking.k8s.io/v1/ingressclasses"
	e.createClusterObject(ctx, classes, class, object{"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
		"metadata": object{"name": class}, "spec": object{"controller": "example.com/a"}})
	objects := []struct {
		path  string
		body  object
		patch object // a spec change
	}{
		{networkingPath(e.ns, "ingresses"), object{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": object{"name": "g"},
			"spec": object{"defaultBackend": object{"service": object{"name": "s", "port": object{"number": 80}}}}},
			object{"spec": object{"defaultBackend": object{"service": object{"port": object{"number": 81}}}}}},
		{networkingPath(e.ns, "networkpolicies"), object{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": object{"name": "g"},
			"spec": object{"podSelector": object{}}},
			object{"spec": object{"podSelector": object{"matchLabels": object{"app": "a"}}}}},
		{classes, nil, object{"spec": object{"parameters": object{"kind": "K", "name": "p", "apiGroup": "example.com", "scope": "Cluster"}}}},
	}
	for _, o := range objects {
		path := o.path + "/g"
		if o.body != nil {
			e.mustCreate(ctx, o.path, o.body)
		} else {
			path = o.path + "/" + class
		}
		e.checkGenerationSteps(ctx, path, o.patch)
	}
}

// runSpecGeneration: the other default kinds whose strategies keep
// metadata.generation from their spec (kubernetes pkg/registry/
// policy/poddisruptionbudget, admissionregistration/
// validatingadmissionpolicy and validatingadmissionpolicybinding,
// resource/deviceclass and resource/resourceslice strategy.go) start at
// 1; a label change keeps it, a spec change bumps it.
func runSpecGeneration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "cf-gen-" + randomSuffix()
	const admission, resource = "/apis/admissionregistration.k8s.io/v1/", "/apis/resource.k8s.io/v1/"
	objects := []struct {
		collection string
		body       object
		patch      object // a spec change
	}{
		{"/apis/policy/v1/namespaces/" + e.ns + "/poddisruptionbudgets", object{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
			"metadata": object{"name": name}, "spec": object{"minAvailable": 1}},
			object{"spec": object{"minAvailable": 2}}},
		{admission + "validatingadmissionpolicies", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": object{"name": name}, "spec": object{
				"matchConstraints": object{"resourceRules": []any{object{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
					"operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
				"validations": []any{object{"expression": "true"}}}},
			object{"spec": object{"failurePolicy": "Ignore"}}},
		{admission + "validatingadmissionpolicybindings", object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": object{"name": name}, "spec": object{"policyName": name, "validationActions": []any{"Deny"}}},
			object{"spec": object{"validationActions": []any{"Warn"}}}},
		{resource + "deviceclasses", object{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
			"metadata": object{"name": name}, "spec": object{}},
			object{"spec": object{"selectors": []any{object{"cel": object{"expression": "true"}}}}}},
		{resource + "resourceslices", object{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
			"metadata": object{"name": name}, "spec": object{"driver": "gen.example.com", "allNodes": true,
				"pool": object{"name": "p", "generation": 1, "resourceSliceCount": 1}}},
			object{"spec": object{"pool": object{"generation": 2}}}},
	}
	for _, o := range objects {
		if strings.Contains(o.collection, "/namespaces/") {
			e.mustCreate(ctx, o.collection, o.body)
		} else {
			e.createClusterObject(ctx, o.collection, name, o.body)
		}
		path := o.collection + "/" + name
		e.checkGenerationSteps(ctx, path, o.patch)
	}
}

// runRuleGeneration: the default kinds whose strategies keep
// metadata.generation by a rule of their own start at 1 and then follow
// it. A webhook configuration's follows its webhooks (kubernetes
// pkg/registry/admissionregistration/mutatingwebhookconfiguration and
// validatingwebhookconfiguration strategy.go), an EndpointSlice's
// everything but its metadata, and its labels
// (discovery/endpointslice/strategy.go), and a PriorityClass's never
// moves (scheduling/priorityclass/strategy.go sets it on create only).
func runRuleGeneration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "cf-gen-" + randomSuffix()
	label := generationStep{"label", object{"metadata": object{"labels": object{"l": "v"}}}, 1}
	const admission = "/apis/admissionregistration.k8s.io/v1/"
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		collection := admission + strings.ToLower(kind) + "s"
		e.createClusterObject(ctx, collection, name, object{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
			"metadata": object{"name": name}, "webhooks": []any{generationWebhook(5)}})
		e.checkGenerations(ctx, collection+"/"+name, []generationStep{label,
			{"annotation", object{"metadata": object{"annotations": object{"a": "v"}}}, 1},
			{"webhooks", object{"webhooks": []any{generationWebhook(6)}}, 2}})
	}
	endpointSlices := "/apis/discovery.k8s.io/v1/namespaces/" + e.ns + "/endpointslices"
	e.mustCreate(ctx, endpointSlices, object{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata": object{"name": name}, "addressType": "IPv4", "endpoints": []any{}})
	e.checkGenerations(ctx, endpointSlices+"/"+name, []generationStep{
		{"label", object{"metadata": object{"labels": object{"l": "v"}}}, 2},
		{"annotation", object{"metadata": object{"annotations": object{"a": "v"}}}, 2},
		{"ports", object{"ports": []any{object{"name": "http", "port": 80}}}, 3}})
	classes := "/apis/scheduling.k8s.io/v1/priorityclasses"
	e.createClusterObject(ctx, classes, name, object{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
		"metadata": object{"name": name}, "value": 1000, "description": "a"})
	e.checkGenerations(ctx, classes+"/"+name, []generationStep{label,
		{"description", object{"description": "b"}, 1}})
}

// generationWebhook is a webhook that matches no request a cluster
// makes (a group nothing serves) and is ignored should it fail; timeout
// tells two apart.
func generationWebhook(timeout int) object {
	return object{"name": "gen.example.com", "admissionReviewVersions": []any{"v1"}, "sideEffects": "None",
		"failurePolicy": "Ignore", "timeoutSeconds": timeout,
		"clientConfig": object{"url": "https://gen.example.com/hook"},
		"rules": []any{object{"apiGroups": []any{"gen.example.com"}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE"}, "resources": []any{"things"}}}}
}

// checkGenerationSteps checks the generation of the object at path: 1 as
// created, still 1 after a label change, 2 after specPatch (a merge
// patch).
func (e *env) checkGenerationSteps(ctx context.Context, path string, specPatch object) {
	e.t.Helper()
	e.checkGenerations(ctx, path, []generationStep{
		{"label", object{"metadata": object{"labels": object{"l": "v"}}}, 1},
		{"spec", specPatch, 2},
	})
}

// checkGenerations checks the generation of the object at path: 1 as
// created, then the generation each step's merge patch leaves.
func (e *env) checkGenerations(ctx context.Context, path string, after []generationStep) {
	e.t.Helper()
	steps := append([]generationStep{{"create", nil, 1}}, after...)
	for _, s := range steps {
		if s.patch != nil {
			r := e.c.do(ctx, e.t, request{Method: http.MethodPatch, Path: path, Body: s.patch, ContentType: "application/merge-patch+json"})
			r.mustCode(e.t, http.StatusOK, s.what+" patch of "+path)
		}
		got := metaOf(e.getObject(ctx, path))["generation"]
		if diff := cmp.Diff(any(float64(s.want)), got); diff != "" {
			e.t.Errorf("%s after %s: generation (-want +got):\n%s", path, s.what, diff)
		}
	}
}

// networkingPath is the collection path of a namespaced
// networking.k8s.io/v1 resource.
func networkingPath(ns, resource string) string {
	return "/apis/networking.k8s.io/v1/namespaces/" + ns + "/" + resource
}
