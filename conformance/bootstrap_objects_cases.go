package conformance

// Cases for the objects kube-apiserver creates itself and the in-process
// controllers that keep them: the system namespaces, the Service
// default/kubernetes (kubernetes pkg/controlplane/controller/
// kubernetesservice), the API Priority and Fairness bootstrap
// configuration and its Dangling conditions (apiserver pkg/util/
// flowcontrol), and the local and CRD APIServices of
// apiregistration.k8s.io (kube-aggregator autoregister, kubernetes
// crdregistration). The reference server's field manager for them is its
// binary's name (tools/realapiserver: "realapiserver"; a cluster's
// "kube-apiserver"), so managers of server-written entries are not
// compared.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bootstrapObjectsCases are the cases of this file, in the order [Cases] runs them.
func bootstrapObjectsCases() []Case {
	return []Case{
		{Name: "KubernetesService", Run: runKubernetesService},
		{Name: "SystemNamespaces", Run: runSystemNamespaces},
		{Name: "BootstrapObjectsRecreated", Run: runBootstrapObjectsRecreated, Exclusive: true},
		{Name: "APFBootstrapConfiguration", Run: runAPFBootstrapConfiguration},
		{Name: "FlowSchemaDangling", Run: runFlowSchemaDangling},
	}
}

// controllerWait bounds the wait for an in-process controller's
// asynchronous write (an informer round trip on the real server).
const controllerWait = 30 * time.Second

// eventually polls cond in real time until it holds or d has passed,
// and reports whether it held. It never moves a target's clock: what it
// waits for follows a write, not a timer.
func eventually(ctx context.Context, d time.Duration, cond func() bool) bool {
	ok := false
	waitOn(ctx, nil, false, d, func() bool { ok = cond(); return ok })
	return ok
}

// getOK GETs path and returns the decoded object, or nil on 404.
func (e *env) getOK(ctx context.Context, path string) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Path: path})
	if r.Code == http.StatusNotFound {
		return nil
	}
	r.mustCode(e.t, http.StatusOK, "get "+path)
	return decoded(e.t, r)
}

// serverManagedEntry returns obj's managedFields entry with the given
// operation and subresource, without its manager and time, or nil.
func serverManagedEntry(obj object, operation, subresource string) map[string]any {
	entries, _ := metaOf(obj)["managedFields"].([]any)
	for _, en := range entries {
		m, _ := en.(map[string]any)
		sub, _ := m["subresource"].(string)
		if m["operation"] == operation && sub == subresource {
			return map[string]any{"apiVersion": m["apiVersion"], "fieldsType": m["fieldsType"], "fieldsV1": m["fieldsV1"]}
		}
	}
	return nil
}

// kubernetesServicePath is the Service default/kubernetes.
const kubernetesServicePath = "/api/v1/namespaces/default/services/kubernetes"

// checkKubernetesService checks the Service as the bootstrap controller
// creates it: port https 443 to a port number (the server's secure port
// when it was created), 10.0.0.1, the labels, no selector, the
// controller's fields owned by it.
func checkKubernetesService(t *testing.T, what string, svc object) {
	t.Helper()
	spec, _ := svc["spec"].(map[string]any)
	ports, _ := spec["ports"].([]any)
	var target float64
	if len(ports) == 1 {
		target, _ = ports[0].(map[string]any)["targetPort"].(float64)
	}
	if target < 1 || target > 65535 {
		t.Errorf("%s: ports = %v, want one port whose targetPort is a port number", what, spec["ports"])
	}
	want := map[string]any{
		"ports":     []any{map[string]any{"name": "https", "protocol": "TCP", "port": float64(443), "targetPort": target}},
		"clusterIP": "10.0.0.1", "clusterIPs": []any{"10.0.0.1"}, "type": "ClusterIP", "sessionAffinity": "None",
		"ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster",
	}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("%s: spec (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(map[string]any{"component": "apiserver", "provider": "kubernetes"}, metaOf(svc)["labels"]); diff != "" {
		t.Errorf("%s: labels (-want +got):\n%s", what, diff)
	}
	fields := map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}, "f:component": map[string]any{}, "f:provider": map[string]any{}}},
		"f:spec": map[string]any{"f:clusterIP": map[string]any{}, "f:internalTrafficPolicy": map[string]any{}, "f:ipFamilyPolicy": map[string]any{},
			"f:ports": map[string]any{".": map[string]any{}, `k:{"port":443,"protocol":"TCP"}`: map[string]any{".": map[string]any{},
				"f:name": map[string]any{}, "f:port": map[string]any{}, "f:protocol": map[string]any{}, "f:targetPort": map[string]any{}}},
			"f:sessionAffinity": map[string]any{}, "f:type": map[string]any{}}}
	want = map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields}
	if diff := cmp.Diff(want, serverManagedEntry(svc, "Update", "")); diff != "" {
		t.Errorf("%s: managedFields Update entry (-want +got):\n%s", what, diff)
	}
}

// runKubernetesService: the Service default/kubernetes exists as the
// bootstrap controller creates it, with its target port the server's port
// (on a server that has not restarted since); the reference server runs
// with --endpoint-reconciler-type=none, so there are no Endpoints nor
// EndpointSlices "kubernetes".
func runKubernetesService(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	svc := e.getOK(ctx, kubernetesServicePath)
	if svc == nil {
		t.Fatalf("GET %s = 404, want the Service", kubernetesServicePath)
	}
	checkKubernetesService(t, "Service default/kubernetes", svc)
	if u, err := url.Parse(target.RESTConfig().Host); err == nil {
		ports, _ := at(svc, "spec", "ports").([]any)
		if len(ports) == 1 && fmt.Sprint(ports[0].(map[string]any)["targetPort"]) != u.Port() {
			// kube-apiserver does not reconcile an existing Service.
			t.Logf("targetPort %v is not the server's port %s: the server restarted since it created the Service", ports[0], u.Port())
		}
	}
	for _, p := range []string{"/api/v1/namespaces/default/endpoints/kubernetes", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes"} {
		if got := e.getOK(ctx, p); got != nil {
			t.Errorf("GET %s = %v, want 404 (no endpoint reconciler)", p, got)
		}
	}
}

// runSystemNamespaces: default, kube-node-lease, kube-public and
// kube-system exist, Active, with the kubernetes finalizer and the name
// label, owned by the server; the immortal three cannot be deleted.
func runSystemNamespaces(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, name := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		ns := e.getOK(ctx, "/api/v1/namespaces/"+name)
		got := object{"labels": metaOf(ns)["labels"], "spec": ns["spec"], "status": ns["status"], "fields": serverManagedEntry(ns, "Update", "")}
		want := object{"labels": map[string]any{"kubernetes.io/metadata.name": name}, "spec": map[string]any{"finalizers": []any{"kubernetes"}},
			"status": map[string]any{"phase": "Active"}, "fields": map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}, "f:kubernetes.io/metadata.name": map[string]any{}}}}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("namespace %s (-want +got):\n%s", name, diff)
		}
	}
	for _, name := range []string{"default", "kube-public", "kube-system"} {
		r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: "/api/v1/namespaces/" + name, Query: dryRun()})
		checkStatus(t, "delete namespace "+name, r, wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", name), &metav1.StatusDetails{Name: name, Kind: "namespaces"}))
	}
}

// runBootstrapObjectsRecreated: a deleted Service default/kubernetes is
// created again, at the next tick of the bootstrap controller's 10 s
// period, with the same address; a deleted suggested FlowSchema and
// priority level come back with the APF producer's next minute.
func runBootstrapObjectsRecreated(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	old := e.getOK(ctx, kubernetesServicePath)
	fc := "/apis/flowcontrol.apiserver.k8s.io/v1/"
	paths := []string{kubernetesServicePath, fc + "flowschemas/service-accounts", fc + "prioritylevelconfigurations/workload-low"}
	for _, p := range paths {
		e.c.do(ctx, t, request{Method: http.MethodDelete, Path: p}).mustCode(t, http.StatusOK, "delete "+p)
	}
	back := func() bool {
		for _, p := range paths {
			if e.getOK(ctx, p) == nil {
				return false
			}
		}
		return true
	}
	if !waitDue(ctx, target, 90*time.Second, back) {
		t.Fatalf("after 90 s, not every one of %v was created again", paths)
	}
	svc := e.getOK(ctx, kubernetesServicePath)
	checkKubernetesService(t, "recreated Service", svc)
	if metaOf(svc)["uid"] == metaOf(old)["uid"] {
		t.Errorf("recreated Service has the deleted one's uid %v", metaOf(old)["uid"])
	}
}

// apfBootstrap are the FlowSchemas of the mandatory and suggested APF
// configuration: priority level and matching precedence.
var apfBootstrap = map[string][2]any{
	"catch-all": {"catch-all", float64(10000)}, "exempt": {"exempt", float64(1)},
	"global-default": {"global-default", float64(9900)}, "kube-controller-manager": {"workload-high", float64(800)},
	"kube-scheduler": {"workload-high", float64(800)}, "kube-system-service-accounts": {"workload-high", float64(900)},
	"probes": {"exempt", float64(2)}, "service-accounts": {"workload-low", float64(9000)},
	"system-leader-election": {"leader-election", float64(100)}, "system-node-high": {"node-high", float64(400)},
	"system-nodes": {"system", float64(500)},
}

// apfPriorityLevels are the bootstrap priority levels and their types.
var apfPriorityLevels = map[string]string{
	"catch-all": "Limited", "exempt": "Exempt", "global-default": "Limited", "leader-election": "Limited",
	"node-high": "Limited", "system": "Limited", "workload-high": "Limited", "workload-low": "Limited",
}

// runAPFBootstrapConfiguration: the mandatory and suggested FlowSchemas
// and priority levels exist, annotated for auto-update, at generation 1,
// each FlowSchema with the Dangling condition False "Found" applied by the
// config consumer on the status subresource.
func runAPFBootstrapConfiguration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	fc := "/apis/flowcontrol.apiserver.k8s.io/v1/"
	for name, want := range apfBootstrap {
		fs := e.getOK(ctx, fc+"flowschemas/"+name)
		if fs == nil {
			t.Errorf("FlowSchema %s missing", name)
			continue
		}
		got := [2]any{at(fs, "spec", "priorityLevelConfiguration", "name"), at(fs, "spec", "matchingPrecedence")}
		if got != want || metaOf(fs)["generation"] != float64(1) || at(fs, "metadata", "annotations", "apf.kubernetes.io/autoupdate-spec") != "true" {
			t.Errorf("FlowSchema %s = level/precedence %v generation %v annotations %v, want %v, 1, autoupdate-spec", name, got,
				metaOf(fs)["generation"], metaOf(fs)["annotations"], want)
		}
		conds, _ := at(fs, "status", "conditions").([]any)
		msg := fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", want[0])
		if len(conds) != 1 || at(conds[0].(map[string]any), "reason") != "Found" || at(conds[0].(map[string]any), "message") != msg {
			t.Errorf("FlowSchema %s conditions = %v, want Dangling False Found", name, conds)
		}
		if serverManagedEntry(fs, "Apply", "status") == nil {
			t.Errorf("FlowSchema %s has no Apply entry for its status", name)
		}
	}
	for name, typ := range apfPriorityLevels {
		pl := e.getOK(ctx, fc+"prioritylevelconfigurations/"+name)
		if pl == nil || at(pl, "spec", "type") != typ || metaOf(pl)["generation"] != float64(1) {
			t.Errorf("priority level %s = %v, want type %s at generation 1", name, pl, typ)
		}
	}
}

// danglingWant is the Dangling condition of a FlowSchema referencing
// level, which exists or not (lastTransitionTime left out).
func danglingWant(level string, exists bool) map[string]any {
	if exists {
		return map[string]any{"type": "Dangling", "status": "False", "reason": "Found",
			"message": fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level)}
	}
	return map[string]any{"type": "Dangling", "status": "True", "reason": "NotFound",
		"message": fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level)}
}

// danglingOf returns fs's only condition without its time.
func danglingOf(fs object) map[string]any {
	conds, _ := at(fs, "status", "conditions").([]any)
	if len(conds) != 1 {
		return nil
	}
	c, _ := conds[0].(map[string]any)
	out := map[string]any{}
	for k, v := range c {
		if k != "lastTransitionTime" {
			out[k] = v
		}
	}
	return out
}

// runFlowSchemaDangling: a FlowSchema whose priority level does not exist
// gets, soon after its create, the Dangling condition True "NotFound",
// applied to its status by the config consumer (its own managedFields
// entry); creating the level turns it False "Found", deleting it True
// again.
func runFlowSchemaDangling(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	fc := "/apis/flowcontrol.apiserver.k8s.io/v1/"
	name, level := e.ns, e.ns+"-level"
	fsPath, plPath := fc+"flowschemas/"+name, fc+"prioritylevelconfigurations/"+level
	e.createClusterStored(ctx, fc+"flowschemas", object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
		"metadata": object{"name": name}, "spec": object{"priorityLevelConfiguration": object{"name": level}}})
	waitDangling := func(what string, want map[string]any) object {
		t.Helper()
		var fs object
		eventually(ctx, controllerWait, func() bool { fs = e.getOK(ctx, fsPath); return cmp.Equal(want, danglingOf(fs)) })
		if diff := cmp.Diff(want, danglingOf(fs)); diff != "" {
			t.Fatalf("%s: Dangling condition after %v (-want +got):\n%s", what, controllerWait, diff)
		}
		return fs
	}
	fs := waitDangling("missing level", danglingWant(level, false))
	cond := map[string]any{".": map[string]any{}, "f:lastTransitionTime": map[string]any{}, "f:message": map[string]any{},
		"f:reason": map[string]any{}, "f:status": map[string]any{}, "f:type": map[string]any{}}
	want := map[string]any{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:status": map[string]any{"f:conditions": map[string]any{`k:{"type":"Dangling"}`: cond}}}}
	if diff := cmp.Diff(want, serverManagedEntry(fs, "Apply", "status")); diff != "" {
		t.Errorf("the condition's managedFields entry (-want +got):\n%s", diff)
	}
	if mf, _ := metaOf(fs)["managedFields"].([]any); !slices.ContainsFunc(mf, func(en any) bool {
		return en.(map[string]any)["manager"] == "api-priority-and-fairness-config-consumer-v1"
	}) {
		t.Errorf("managedFields %v: no entry of api-priority-and-fairness-config-consumer-v1", mf)
	}

	e.createClusterStored(ctx, fc+"prioritylevelconfigurations", object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
		"kind": "PriorityLevelConfiguration", "metadata": object{"name": level},
		"spec": object{"type": "Limited", "limited": object{"limitResponse": object{"type": "Reject"}}}})
	waitDangling("level created", danglingWant(level, true))
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: plPath}).mustCode(t, http.StatusOK, "delete the level")
	waitDangling("level deleted", danglingWant(level, false))
}
