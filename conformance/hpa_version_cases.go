package conformance

// Cases for the versions of a built-in resource stored once: kube-apiserver
// keeps HorizontalPodAutoscalers as autoscaling/v2 and serves
// autoscaling/v1 through conversion (kubernetes pkg/apis/autoscaling/v1
// conversion.go), so an HPA written through either version is read
// through the other, v1 keeping what it has no field for in the
// autoscaling.alpha.kubernetes.io annotations; a watch of one version sees
// the writes of the other; and an admission webhook whose rule names
// autoscaling/v1 with matchPolicy Equivalent is shown a v2 request's
// object converted to v1, while Exact does not match it.

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hpaVersionCases are the cases of this file, in the order [Cases] runs
// them.
func hpaVersionCases() []Case {
	return []Case{
		{Name: "HPAV1ReadAsV2", Run: runHPAV1ReadAsV2},
		{Name: "HPAV2ReadAsV1", Run: runHPAV2ReadAsV1},
		{Name: "HPAWatchAcrossVersions", Run: runHPAWatchAcrossVersions},
		{Name: "HPAWritesAcrossVersions", Run: runHPAWritesAcrossVersions},
		{Name: "WebhookHPAEquivalent", Run: runWebhookHPAEquivalent},
	}
}

// hpasIn is the HPA collection of e's namespace in version v of autoscaling.
func (e *env) hpasIn(v string) string {
	return "/apis/autoscaling/" + v + "/namespaces/" + e.ns + "/horizontalpodautoscalers"
}

// hpaShape is an HPA as two servers agree on it: its apiVersion, name,
// labels, annotations, spec, status and who manages it (manager,
// operation, apiVersion and subresource of each managedFields entry).
func hpaShape(t *testing.T, o object) object {
	t.Helper()
	m := metaOf(o)
	var managers []string
	if mf, ok := m["managedFields"].([]any); ok {
		for _, e := range mf {
			f, _ := e.(map[string]any)
			s, _ := json.Marshal([]any{f["operation"], f["apiVersion"], f["subresource"]})
			managers = append(managers, string(s))
		}
	}
	return object{
		"apiVersion": o["apiVersion"], "name": m["name"], "labels": m["labels"], "annotations": m["annotations"],
		"spec": o["spec"], "status": o["status"], "managers": managers,
	}
}

// parseJSON is s decoded, for the expected shapes.
func parseJSON(t *testing.T, s string) object {
	t.Helper()
	var o object
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("expected JSON %s: %v", s, err)
	}
	return o
}

// hpaV1Body is the v1 HPA the v1 cases create: a CPU target and, in the
// annotations v1 reads back, a Pods metric and a scale-down rule.
func hpaV1Body(name string) object {
	return object{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": object{
		"name": name, "labels": object{"app": "x"}, "annotations": object{
			"note": "kept",
			"autoscaling.alpha.kubernetes.io/metrics":  `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`,
			"autoscaling.alpha.kubernetes.io/behavior": `{"ScaleDown":{"StabilizationWindowSeconds":60,"Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":30}]}}`,
		},
	}, "spec": object{"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 5, "targetCPUUtilizationPercentage": 50}}
}

// The shapes of hpaV1Body("h1") as stored (v2) and as v1 answers it.
const (
	hpaV1AsV2 = `{"apiVersion":"autoscaling/v2","name":"h1","labels":{"app":"x"},"annotations":{"note":"kept"},
	"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":1,"maxReplicas":5,
	"metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}},
	{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}],
	"behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},
	"scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max","policies":[{"type":"Pods","value":2,"periodSeconds":30}]}}},
	"status":{"currentMetrics":null,"desiredReplicas":0},"managers":["[\"Update\",\"autoscaling/v1\",null]"]}`
	hpaV1AsV1 = `{"apiVersion":"autoscaling/v1","name":"h1","labels":{"app":"x"},"annotations":{"note":"kept",
	"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"10\"}}]",
	"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null},\"ScaleDown\":{\"StabilizationWindowSeconds\":60,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":2,\"PeriodSeconds\":30}],\"Tolerance\":null}}"},
	"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":1,"maxReplicas":5,"targetCPUUtilizationPercentage":50},
	"status":{"currentReplicas":0,"desiredReplicas":0},"managers":["[\"Update\",\"autoscaling/v1\",null]"]}`
)

// checkHPAShape compares o's shape with want (JSON).
func checkHPAShape(t *testing.T, what string, o object, want string) {
	t.Helper()
	if diff := cmp.Diff(parseJSON(t, want), normalJSON(t, hpaShape(t, o))); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// normalJSON is o through JSON, so its numbers and lists compare with an
// expected shape decoded from JSON.
func normalJSON(t *testing.T, o object) object {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return parseJSON(t, string(b))
}

// runHPAV1ReadAsV2: an HPA created through autoscaling/v1 with a CPU
// target and, in its annotations, a Pods metric and a scale-down rule is
// answered in v1 with the annotations rewritten from what was stored
// (the behavior defaulted, in the internal type's JSON); GET and a LIST
// with label and field selectors through v2 show it as stored: the Pods
// metric first, the CPU target last, the behavior defaulted, the
// round-trip annotations gone, managed by a v1 Update. A PUT through v1
// of what v1 answered is a write (a new resourceVersion): the stored
// object lacked the behavior's defaults a read adds; v1's table prints
// the annotation's metric in Targets.
func runHPAV1ReadAsV2(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.hpasIn("v1"), Body: hpaV1Body("h1")})
	r.mustCode(t, http.StatusCreated, "create through v1")
	created := decoded(t, r)
	checkHPAShape(t, "create answer (v1)", created, hpaV1AsV1)

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v2") + "/h1"})
	r.mustCode(t, http.StatusOK, "get through v2")
	checkHPAShape(t, "get through v2", decoded(t, r), hpaV1AsV2)

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v2"), Query: q("labelSelector", "app=x", "fieldSelector", "metadata.name=h1", "limit", "1")})
	r.mustCode(t, http.StatusOK, "list through v2")
	var l struct {
		Items []object `json:"items"`
	}
	r.decode(t, &l)
	if len(l.Items) != 1 {
		t.Fatalf("list through v2 has %d items, want 1", len(l.Items))
	}
	l.Items[0]["apiVersion"] = "autoscaling/v2" // a list's items carry none
	checkHPAShape(t, "list item through v2", l.Items[0], hpaV1AsV2)

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v1") + "/h1"})
	r.mustCode(t, http.StatusOK, "get through v1")
	got := decoded(t, r)
	checkHPAShape(t, "get through v1", got, hpaV1AsV1)
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.hpasIn("v1") + "/h1", Body: got})
	r.mustCode(t, http.StatusOK, "put back through v1")
	if before, after := metaOf(got)["resourceVersion"], metaOf(decoded(t, r))["resourceVersion"]; before == after {
		t.Errorf("a PUT through v1 of the v1 answer kept the resourceVersion %v: the stored object had the behavior's defaults", before)
	}
	r = e.c.do(ctx, t, request{Path: e.hpasIn("v2") + "/h1"})
	r.mustCode(t, http.StatusOK, "get through v2 after the PUT")
	checkHPAShape(t, "get through v2 after the PUT", decoded(t, r), hpaV1AsV2)
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.hpasIn("v1") + "/h1", Body: got})
	r.mustCode(t, http.StatusConflict, "the same PUT again (its resourceVersion is gone)")

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v1") + "/h1", Accept: tableAccept})
	r.mustCode(t, http.StatusOK, "table through v1")
	var table metav1.Table
	r.decode(t, &table)
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) < 3 {
		t.Fatalf("table through v1: %+v", table.Rows)
	}
	if got, want := table.Rows[0].Cells[2], "<unknown>/10, cpu: <unknown>/50%"; got != want {
		t.Errorf("v1 table Targets = %q, want %q", got, want)
	}
}

// hpaV2Body is the v2 HPA the v2 cases create: an External metric with a
// selector, a CPU target and a scale-up rule.
func hpaV2Body(name string) object {
	return object{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": object{"name": name},
		"spec": object{
			"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "minReplicas": 2, "maxReplicas": 6,
			"metrics": []any{
				object{"type": "Resource", "resource": object{"name": "cpu", "target": object{"type": "Utilization", "averageUtilization": 60}}},
				object{"type": "External", "external": object{"metric": object{"name": "queue", "selector": object{"matchLabels": object{"q": "jobs"}}},
					"target": object{"type": "Value", "value": "3"}}},
			},
			"behavior": object{"scaleUp": object{"selectPolicy": "Disabled"}},
		}}
}

// runHPAV2ReadAsV1: an HPA created through autoscaling/v2 with a CPU
// target, an External metric and a behavior, then given a status through
// v2's status subresource (current metrics, a condition), reads through
// v1 with the CPU target and utilization in their fields and the other
// metric, the current metrics, the behavior and the conditions in the
// annotations; annotations of that name written through v2 are dropped.
func runHPAV2ReadAsV1(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := hpaV2Body("h2")
	body["metadata"].(object)["annotations"] = object{"autoscaling.alpha.kubernetes.io/conditions": "[]", "note": "kept"}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.hpasIn("v2"), Body: body})
	r.mustCode(t, http.StatusCreated, "create through v2")
	if diff := cmp.Diff(map[string]any{"note": "kept"}, metaOf(decoded(t, r))["annotations"]); diff != "" {
		t.Errorf("annotations of the v2 create (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.hpasIn("v2") + "/h2/status", ContentType: mergePatchType, Body: object{"status": object{
		"currentReplicas": 2, "desiredReplicas": 3,
		"currentMetrics": []any{object{"type": "Resource", "resource": object{"name": "cpu", "current": object{"averageUtilization": 40, "averageValue": "200m"}}}},
		"conditions":     []any{object{"type": "AbleToScale", "status": "True", "reason": "Ready", "message": "ok", "lastTransitionTime": "2026-01-02T03:04:05Z"}},
	}}})
	r.mustCode(t, http.StatusOK, "status through v2")

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v1") + "/h2"})
	r.mustCode(t, http.StatusOK, "get through v1")
	checkHPAShape(t, "get through v1", decoded(t, r), `{"apiVersion":"autoscaling/v1","name":"h2","labels":null,"annotations":{"note":"kept",
	"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"metricSelector\":{\"matchLabels\":{\"q\":\"jobs\"}},\"targetValue\":\"3\"}}]",
	"autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":40,\"currentAverageValue\":\"200m\"}}]",
	"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Disabled\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null},\"ScaleDown\":{\"StabilizationWindowSeconds\":null,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null}}",
	"autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\",\"lastTransitionTime\":\"2026-01-02T03:04:05Z\",\"reason\":\"Ready\",\"message\":\"ok\"}]"},
	"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":2,"maxReplicas":6,"targetCPUUtilizationPercentage":60},
	"status":{"currentReplicas":2,"desiredReplicas":3,"currentCPUUtilizationPercentage":40},
	"managers":["[\"Update\",\"autoscaling/v2\",null]","[\"Update\",\"autoscaling/v2\",\"status\"]"]}`)

	r = e.c.do(ctx, t, request{Path: e.hpasIn("v1"), Query: q("fieldSelector", "metadata.name=h2")})
	r.mustCode(t, http.StatusOK, "list through v1")
	var l struct {
		Items []object `json:"items"`
	}
	r.decode(t, &l)
	r = e.c.do(ctx, t, request{Path: e.hpasIn("v1") + "/h2"})
	if len(l.Items) != 1 {
		t.Fatalf("list through v1 has %d items, want 1", len(l.Items))
	}
	got := decoded(t, r)
	delete(got, "apiVersion") // a list's items carry no type
	delete(got, "kind")
	if diff := cmp.Diff(got, l.Items[0]); diff != "" {
		t.Errorf("list item through v1 differs from the GET (-get +item):\n%s", diff)
	}
}

// runHPAWatchAcrossVersions: a watch through v2 and one through v1 from
// one resourceVersion see the create, the patch and the delete of an HPA
// written through the other version, each in its own version.
func runHPAWatchAcrossVersions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: e.hpasIn("v2")})
	r.mustCode(t, http.StatusOK, "list through v2")
	var l list
	r.decode(t, &l)
	w2 := e.c.watch(ctx, t, request{Path: e.hpasIn("v2"), Query: q("resourceVersion", l.Metadata.ResourceVersion)})
	defer w2.stop()
	w1 := e.c.watch(ctx, t, request{Path: e.hpasIn("v1"), Query: q("resourceVersion", l.Metadata.ResourceVersion)})
	defer w1.stop()

	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.hpasIn("v1"), Body: hpaV1Body("h1")})
	r.mustCode(t, http.StatusCreated, "create through v1")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.hpasIn("v2") + "/h1", ContentType: mergePatchType, Body: object{"spec": object{"maxReplicas": 7}}})
	r.mustCode(t, http.StatusOK, "patch through v2")
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.hpasIn("v1") + "/h1"})
	r.mustCode(t, http.StatusOK, "delete through v1")

	shape := func(ev event) string {
		spec, _ := ev.Object["spec"].(map[string]any)
		metrics, _ := json.Marshal(spec["metrics"])
		_, annotated := metaOf(ev.Object)["annotations"].(map[string]any)["autoscaling.alpha.kubernetes.io/metrics"]
		return ev.Type + " " + ev.Object["apiVersion"].(string) + " " + string(mustJSON(t, spec["maxReplicas"])) +
			" cpu=" + string(mustJSON(t, spec["targetCPUUtilizationPercentage"])) + " metrics=" + string(metrics) + " annotated=" + string(mustJSON(t, annotated))
	}
	var got2, got1 []string
	for range 3 {
		got2 = append(got2, shape(w2.mustNext(ctx, "v2 event")))
		got1 = append(got1, shape(w1.mustNext(ctx, "v1 event")))
	}
	v2Metrics := `[{"pods":{"metric":{"name":"qps"},"target":{"averageValue":"10","type":"AverageValue"}},"type":"Pods"},{"resource":{"name":"cpu","target":{"averageUtilization":50,"type":"Utilization"}},"type":"Resource"}]`
	want2 := []string{
		"ADDED autoscaling/v2 5 cpu=null metrics=" + v2Metrics + " annotated=false",
		"MODIFIED autoscaling/v2 7 cpu=null metrics=" + v2Metrics + " annotated=false",
		"DELETED autoscaling/v2 7 cpu=null metrics=" + v2Metrics + " annotated=false",
	}
	want1 := []string{
		"ADDED autoscaling/v1 5 cpu=50 metrics=null annotated=true",
		"MODIFIED autoscaling/v1 7 cpu=50 metrics=null annotated=true",
		"DELETED autoscaling/v1 7 cpu=50 metrics=null annotated=true",
	}
	if diff := cmp.Diff(want2, got2); diff != "" {
		t.Errorf("events through v2 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want1, got1); diff != "" {
		t.Errorf("events through v1 (-want +got):\n%s", diff)
	}
}

// runWebhookHPAEquivalent: a create through autoscaling/v2 is admitted by
// a webhook whose rule names autoscaling/v1 horizontalpodautoscalers with
// matchPolicy Equivalent (the default), which is sent the object
// converted to v1 (kind and resource v1, requestKind and requestResource
// v2); the same rule with matchPolicy Exact does not match it.
func runWebhookHPAEquivalent(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	v1Rule := object{"operations": []string{"CREATE"}, "apiGroups": []string{"autoscaling"}, "apiVersions": []string{"v1"}, "resources": []string{"horizontalpodautoscalers"}}
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "exact", path: "/deny", rules: []object{v1Rule}, matchPolicy: "Exact"},
		hook{name: "equivalent", path: "/allow", rules: []object{v1Rule}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.hpasIn("v2"), Body: hpaV2Body("h2")})
	r.mustCode(t, http.StatusCreated, "create through v2")
	if n := len(wh.requests("/deny", e.ns)); n != 0 {
		t.Errorf("the Exact webhook was called %d times", n)
	}
	reqs := wh.requests("/allow", e.ns)
	if len(reqs) != 1 {
		t.Fatalf("the Equivalent webhook was called %d times, want 1", len(reqs))
	}
	req := reqs[0]
	type seen struct {
		Kind, RequestKind         metav1.GroupVersionKind
		Resource, RequestResource metav1.GroupVersionResource
	}
	got := seen{Kind: req.Kind, Resource: req.Resource}
	if req.RequestKind != nil && req.RequestResource != nil {
		got.RequestKind, got.RequestResource = *req.RequestKind, *req.RequestResource
	}
	want := seen{
		Kind:            metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"},
		RequestKind:     metav1.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		Resource:        metav1.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
		RequestResource: metav1.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request of the Equivalent webhook (-want +got):\n%s", diff)
	}
	var obj object
	if err := json.Unmarshal(req.Object.Raw, &obj); err != nil {
		t.Fatalf("webhook object: %v", err)
	}
	checkHPAShape(t, "object the Equivalent webhook saw", obj, `{"apiVersion":"autoscaling/v1","name":"h2","labels":null,"annotations":{
	"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"metricSelector\":{\"matchLabels\":{\"q\":\"jobs\"}},\"targetValue\":\"3\"}}]",
	"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Disabled\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null},\"ScaleDown\":{\"StabilizationWindowSeconds\":null,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null}}"},
	"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":2,"maxReplicas":6,"targetCPUUtilizationPercentage":60},
	"status":{"currentReplicas":0,"desiredReplicas":0},
	"managers":["[\"Update\",\"autoscaling/v2\",null]"]}`)
}

// hpaManagers is the managers of the HPA at path (operation, apiVersion,
// subresource, manager).
func (e *env) hpaManagers(ctx context.Context, t *testing.T, path string) []string {
	t.Helper()
	r := e.c.do(ctx, t, request{Path: path})
	r.mustCode(t, http.StatusOK, "get "+path)
	var out []string
	for _, f := range managedFieldsOf(t, decoded(t, r)) {
		out = append(out, f.Operation+" "+f.APIVersion+" "+f.Subresource+" "+f.Manager)
	}
	return out
}

// runHPAWritesAcrossVersions: writes through autoscaling/v1 to an HPA
// created through v2 (by manager "creator"): a server-side apply of
// maxReplicas conflicts with the v2 creator ("using autoscaling/v2"),
// forced it takes the field and is recorded with apiVersion
// autoscaling/v1; a JSON patch and a strategic merge patch through v1
// keep the v2-only metric (its annotation is read back); a status write
// through v1 sets currentReplicas read through v2; a dry-run update
// through v1 answers v1 and stores nothing; a deletecollection through v1
// answers the v1 objects.
func runHPAWritesAcrossVersions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.hpasIn("v2"), Query: q("fieldManager", "creator"), Body: hpaV2Body("h2")})
	r.mustCode(t, http.StatusCreated, "create through v2")
	v1, v2 := e.hpasIn("v1")+"/h2", e.hpasIn("v2")+"/h2"
	applied := "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h2\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: d\n  maxReplicas: 9\n"
	r = e.apply(ctx, v1, applied, "fieldManager", "applier")
	checkStatus(t, "conflicting apply through v1", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "creator" using autoscaling/v2: .spec.maxReplicas`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "creator" using autoscaling/v2`, Field: ".spec.maxReplicas"}}}))
	r = e.apply(ctx, v1, applied, "fieldManager", "applier", "force", "true")
	r.mustCode(t, http.StatusOK, "forced apply through v1")
	if diff := cmp.Diff([]string{"Apply autoscaling/v1  applier", "Update autoscaling/v2  creator"}, e.hpaManagers(ctx, t, v2)); diff != "" {
		t.Errorf("managers after the forced apply (-want +got):\n%s", diff)
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: v1, Query: q("fieldManager", "jsonpatcher"), ContentType: "application/json-patch+json",
		Body: []any{object{"op": "replace", "path": "/spec/minReplicas", "value": 3}}})
	r.mustCode(t, http.StatusOK, "JSON patch through v1")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: v1, Query: q("fieldManager", "smp"), ContentType: "application/strategic-merge-patch+json",
		Body: object{"metadata": object{"labels": object{"via": "smp"}}, "spec": object{"targetCPUUtilizationPercentage": 70}}})
	r.mustCode(t, http.StatusOK, "strategic merge patch through v1")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: v1 + "/status", Query: q("fieldManager", "status-v1"), ContentType: mergePatchType,
		Body: object{"status": object{"currentReplicas": 4, "desiredReplicas": 4}}})
	r.mustCode(t, http.StatusOK, "status patch through v1")
	r = e.c.do(ctx, t, request{Path: v2})
	r.mustCode(t, http.StatusOK, "get through v2")
	got := decoded(t, r)
	spec, _ := got["spec"].(map[string]any)
	if diff := cmp.Diff(parseJSON(t, `{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":3,"maxReplicas":9,
	"metrics":[{"type":"External","external":{"metric":{"name":"queue","selector":{"matchLabels":{"q":"jobs"}}},"target":{"type":"Value","value":"3"}}},
	{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}],
	"behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Disabled","policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},
	"scaleDown":{"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}}`), object(spec)); diff != "" {
		t.Errorf("spec through v2 after the v1 writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"currentReplicas": float64(4), "desiredReplicas": float64(4), "currentMetrics": nil}, got["status"]); diff != "" {
		t.Errorf("status through v2 after the v1 status write (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"via": "smp"}, metaOf(got)["labels"]); diff != "" {
		t.Errorf("labels through v2 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Apply autoscaling/v1  applier", "Update autoscaling/v2  creator", "Update autoscaling/v1  jsonpatcher",
		"Update autoscaling/v1  smp", "Update autoscaling/v1 status status-v1"}, e.hpaManagers(ctx, t, v2)); diff != "" {
		t.Errorf("managers after the v1 writes (-want +got):\n%s", diff)
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: v1, Query: q("dryRun", "All"), ContentType: mergePatchType, Body: object{"spec": object{"maxReplicas": 10}}})
	r.mustCode(t, http.StatusOK, "dry-run patch through v1")
	dry := decoded(t, r)
	if dry["apiVersion"] != "autoscaling/v1" || dry["spec"].(map[string]any)["maxReplicas"] != float64(10) {
		t.Errorf("dry-run answer: apiVersion %v, spec %v", dry["apiVersion"], dry["spec"])
	}
	if _, ok := metaOf(dry)["annotations"].(map[string]any)["autoscaling.alpha.kubernetes.io/metrics"]; !ok {
		t.Errorf("dry-run answer has no metrics annotation: %v", metaOf(dry)["annotations"])
	}
	r = e.c.do(ctx, t, request{Path: v2})
	if spec, _ := decoded(t, r)["spec"].(map[string]any); spec["maxReplicas"] != float64(9) {
		t.Errorf("maxReplicas after the dry run = %v, want 9", spec["maxReplicas"])
	}

	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.hpasIn("v1")})
	r.mustCode(t, http.StatusOK, "deletecollection through v1")
	var l struct {
		APIVersion string   `json:"apiVersion"`
		Items      []object `json:"items"`
	}
	r.decode(t, &l)
	if len(l.Items) != 1 || l.APIVersion != "autoscaling/v1" {
		t.Fatalf("deletecollection answered %s with %d items", l.APIVersion, len(l.Items))
	}
	if spec, _ := l.Items[0]["spec"].(map[string]any); spec["targetCPUUtilizationPercentage"] != float64(70) {
		t.Errorf("deleted item spec = %v, want targetCPUUtilizationPercentage 70", spec)
	}
	e.c.do(ctx, t, request{Path: v2}).mustCode(t, http.StatusNotFound, "get through v2 after the deletecollection")
}
