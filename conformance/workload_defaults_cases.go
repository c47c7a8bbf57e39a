package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// workloadDefaultsCases are the cases of this file, in the order [Cases] runs them.
func workloadDefaultsCases() []Case {
	return []Case{
		{Name: "WorkloadDefaultsApps", Run: runWorkloadDefaultsApps},
		{Name: "WorkloadDefaultsBatch", Run: runWorkloadDefaultsBatch},
		{Name: "WorkloadDefaultsCore", Run: runWorkloadDefaultsCore},
		{Name: "WorkloadDefaultsWrites", Run: runWorkloadDefaultsWrites},
		{Name: "WorkloadDefaultsVolumes", Run: runWorkloadDefaultsVolumes},
		{Name: "PodDefaultsNested", Run: runPodDefaultsNested},
	}
}

// The decoder defaults and create-time fields of the workload kinds
// (apps/v1, batch/v1, core/v1 ReplicationController and PodTemplate): a
// minimal body is stored with every default kube-apiserver v1.37 fills
// in, its pod template's included, and writes of every kind (update,
// patch, apply) are defaulted again.

// wlTemplate is a pod template that exercises the nested defaults:
// container ports, env field references, probes (HTTP and gRPC),
// lifecycle handlers, resource rounding (limits are not copied into
// requests, unlike a pod's) and volume sources.
func wlTemplate(restartPolicy string) object {
	spec := object{
		"containers": []any{object{
			"name": "c", "image": "nginx",
			"ports":          []any{object{"containerPort": 80}},
			"env":            []any{object{"name": "N", "valueFrom": object{"fieldRef": object{"fieldPath": "metadata.name"}}}},
			"resources":      object{"limits": object{"cpu": "0.0001"}},
			"livenessProbe":  object{"httpGet": object{"port": 80}},
			"readinessProbe": object{"grpc": object{"port": 9000}},
			"lifecycle":      object{"preStop": object{"httpGet": object{"port": 80}}},
		}},
		"volumes": []any{
			object{"name": "e"},
			object{"name": "s", "secret": object{"secretName": "x"}},
			object{"name": "p", "projected": object{"sources": []any{object{"serviceAccountToken": object{"path": "t"}}}}},
			object{"name": "h", "hostPath": object{"path": "/tmp"}},
		},
	}
	if restartPolicy != "" {
		spec["restartPolicy"] = restartPolicy
	}
	return object{"metadata": object{"labels": object{"app": "a"}}, "spec": spec}
}

// wlTemplateWant is wlTemplate as stored, in JSON.
func wlTemplateWant(restartPolicy string) string {
	return `{"metadata":{"labels":{"app":"a"}},"spec":{
		"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always",
			"ports":[{"containerPort":80,"protocol":"TCP"}],
			"env":[{"name":"N","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
			"resources":{"limits":{"cpu":"1m"}},
			"livenessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
			"readinessProbe":{"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
			"lifecycle":{"preStop":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"}}},
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
		"volumes":[{"name":"e","emptyDir":{}},{"name":"s","secret":{"secretName":"x","defaultMode":420}},
			{"name":"p","projected":{"sources":[{"serviceAccountToken":{"path":"t","expirationSeconds":3600}}],"defaultMode":420}},
			{"name":"h","hostPath":{"path":"/tmp","type":""}}],
		"restartPolicy":"` + restartPolicy + `","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
		"securityContext":{},"schedulerName":"default-scheduler"}}`
}

// wlSelector selects wlTemplate's pods.
func wlSelector() object { return object{"matchLabels": object{"app": "a"}} }

// checkStored compares the stored object's labels, annotations,
// generation, spec (or template) and status with want (JSON), the uid
// and name replaced by UID and NAME wherever they occur.
func checkStored(t *testing.T, what string, got object, want string) {
	t.Helper()
	m := metaOf(got)
	shape := object{}
	for _, k := range []string{"labels", "annotations", "generation"} {
		if v, ok := m[k]; ok {
			shape[k] = v
		}
	}
	for _, k := range []string{"spec", "template", "status"} {
		if v, ok := got[k]; ok {
			shape[k] = v
		}
	}
	b, err := json.Marshal(shape)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	s := string(b)
	if uid, _ := m["uid"].(string); uid != "" {
		s = strings.ReplaceAll(s, uid, "UID")
	}
	if name, _ := m["name"].(string); name != "" {
		s = strings.ReplaceAll(s, `"`+name+`"`, `"NAME"`)
	}
	var gotV, wantV any
	if err := json.Unmarshal([]byte(s), &gotV); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("%s: stored object (-want +got):\n%s", what, diff)
	}
}

// createStored POSTs body to the collection path and returns the object
// as a GET then sees it.
func (e *env) createStored(ctx context.Context, path string, body object) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: path, Body: body})
	r.mustCode(e.t, http.StatusCreated, "create at "+path)
	created := decoded(e.t, r)
	return e.getObject(ctx, path+"/"+nameOf(created))
}

// runWorkloadDefaultsApps: a Deployment, ReplicaSet, StatefulSet and
// DaemonSet created with only a selector and template get their
// strategies, replicas, history limits and the template's defaults; a
// StatefulSet's claim templates are defaulted as claims (phase Pending);
// a DaemonSet starts at template generation 1 (an annotation in apps/v1).
func runWorkloadDefaultsApps(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	tmpl := wlTemplateWant("Always")
	base := func(kind string) object {
		return object{"apiVersion": "apps/v1", "kind": kind, "metadata": object{"name": "w"},
			"spec": object{"selector": wlSelector(), "template": wlTemplate("")}}
	}
	d := e.createStored(ctx, e.appsPath("deployments"), base("Deployment"))
	checkStored(t, "Deployment", d, `{"generation":1,"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},
		"template":`+tmpl+`,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},
		"revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}}`)

	rs := e.createStored(ctx, e.appsPath("replicasets"), base("ReplicaSet"))
	checkStored(t, "ReplicaSet", rs, `{"generation":1,"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},
		"template":`+tmpl+`},"status":{"replicas":0}}`)

	sts := base("StatefulSet")
	sts["spec"].(object)["volumeClaimTemplates"] = []any{object{"metadata": object{"name": "data"},
		"spec": object{"accessModes": []any{"ReadWriteOnce"}, "resources": object{"requests": object{"storage": "1Gi"}}}}}
	got := e.createStored(ctx, e.appsPath("statefulsets"), sts)
	checkStored(t, "StatefulSet", got, `{"generation":1,"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},
		"template":`+tmpl+`,"serviceName":"","podManagementPolicy":"OrderedReady",
		"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0,"maxUnavailable":1}},
		"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},
		"volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
			"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},
			"status":{"phase":"Pending"}}]},"status":{"replicas":0,"availableReplicas":0}}`)

	ds := e.createStored(ctx, e.appsPath("daemonsets"), base("DaemonSet"))
	checkStored(t, "DaemonSet", ds, `{"generation":1,"annotations":{"deprecated.daemonset.template.generation":"1"},
		"spec":{"selector":{"matchLabels":{"app":"a"}},"template":`+tmpl+`,
		"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},"revisionHistoryLimit":10},
		"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}}`)

	// Explicit strategies are kept: Recreate gets no rollingUpdate, an
	// OnDelete StatefulSet no partition.
	d2 := base("Deployment")
	d2["metadata"] = object{"name": "recreate"}
	d2["spec"].(object)["strategy"] = object{"type": "Recreate"}
	got = e.createStored(ctx, e.appsPath("deployments"), d2)
	if diff := cmp.Diff(object{"type": "Recreate"}, at(got, "spec", "strategy")); diff != "" {
		t.Errorf("Recreate Deployment's strategy (-want +got):\n%s", diff)
	}
	s2 := base("StatefulSet")
	s2["metadata"] = object{"name": "ondelete"}
	s2["spec"].(object)["updateStrategy"] = object{"type": "OnDelete"}
	got = e.createStored(ctx, e.appsPath("statefulsets"), s2)
	if diff := cmp.Diff(object{"type": "OnDelete"}, at(got, "spec", "updateStrategy")); diff != "" {
		t.Errorf("OnDelete StatefulSet's updateStrategy (-want +got):\n%s", diff)
	}
}

// runWorkloadDefaultsBatch: a Job gets its counts, completion mode,
// replacement policy and, without manualSelector, the generated selector
// and template labels (uid and name); its labels come from the template
// (sharing the template's labels, they carry the generated ones too,
// except with a generated name, whose retry copy breaks the sharing); a
// CronJob gets its policy and history limits and its job template's pod
// template defaults, not a Job's.
func runWorkloadDefaultsBatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	jobs := "/apis/batch/v1/namespaces/" + e.ns + "/jobs"
	tmpl := wlTemplateWant("Never")
	genLabels := `"app":"a","batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"NAME","controller-uid":"UID","job-name":"NAME"`
	jobTmpl := strings.Replace(tmpl, `"labels":{"app":"a"}`, `"labels":{`+genLabels+`}`, 1)
	jobSpec := `"parallelism":1,"completions":1,"backoffLimit":6,"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"UID"}},
		"manualSelector":false,"template":` + jobTmpl + `,"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed"`
	job := func(meta object) object {
		return object{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": object{"template": wlTemplate("Never")}}
	}
	got := e.createStored(ctx, jobs, job(object{"name": "j"}))
	checkStored(t, "Job", got, `{"generation":1,"labels":{`+genLabels+`},"spec":{`+jobSpec+`},"status":{}}`)
	got = e.createStored(ctx, jobs, job(object{"generateName": "j-"}))
	checkStored(t, "Job with generateName", got, `{"generation":1,"labels":{"app":"a"},"spec":{`+jobSpec+`},"status":{}}`)

	// Own labels are kept; parallelism alone leaves completions unset;
	// a failure policy makes pods replaced once Failed and its condition
	// patterns match status True.
	j := job(object{"name": "policy", "labels": object{"own": "x"}})
	j["spec"].(object)["parallelism"] = 2
	j["spec"].(object)["podFailurePolicy"] = object{"rules": []any{object{"action": "Ignore",
		"onPodConditions": []any{object{"type": "DisruptionTarget"}}}}}
	got = e.createStored(ctx, jobs, j)
	checkStored(t, "Job with a failure policy", got, `{"generation":1,"labels":{"own":"x"},"spec":{"parallelism":2,"backoffLimit":6,
		"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"UID"}},"manualSelector":false,"template":`+jobTmpl+`,
		"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"Failed",
		"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]}},"status":{}}`)

	cj := object{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": object{"name": "cj"},
		"spec": object{"schedule": "*/5 * * * *", "jobTemplate": object{"spec": object{"template": wlTemplate("OnFailure")}}}}
	got = e.createStored(ctx, "/apis/batch/v1/namespaces/"+e.ns+"/cronjobs", cj)
	checkStored(t, "CronJob", got, `{"generation":1,"spec":{"schedule":"*/5 * * * *","concurrencyPolicy":"Allow","suspend":false,
		"jobTemplate":{"metadata":{},"spec":{"template":`+wlTemplateWant("OnFailure")+`}},
		"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1},"status":{}}`)
}

// runWorkloadDefaultsCore: a ReplicationController takes its selector and
// labels from its template and one replica (without template labels its
// selector is missing: 422); a PodTemplate's template is
// defaulted and it starts at generation 1.
func runWorkloadDefaultsCore(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	tmpl := wlTemplateWant("Always")
	got := e.createStored(ctx, nsPath(e.ns, "replicationcontrollers"), object{"apiVersion": "v1", "kind": "ReplicationController",
		"metadata": object{"name": "rc"}, "spec": object{"template": wlTemplate("")}})
	checkStored(t, "ReplicationController", got, `{"generation":1,"labels":{"app":"a"},
		"spec":{"replicas":1,"selector":{"app":"a"},"template":`+tmpl+`},"status":{"replicas":0}}`)
	// Without template labels there is no selector to default: the
	// selector is reported missing.
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "replicationcontrollers"), Body: object{"apiVersion": "v1",
		"kind": "ReplicationController", "metadata": object{"name": "nolabels"}, "spec": object{"template": object{"spec": at(wlTemplate(""), "spec")}}}})
	checkStatus(t, "ReplicationController without labels", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`ReplicationController "nolabels" is invalid: spec.selector: Required value`, &metav1.StatusDetails{Name: "nolabels", Kind: "ReplicationController",
			Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.selector"}}}))
	got = e.createStored(ctx, nsPath(e.ns, "podtemplates"), object{"apiVersion": "v1", "kind": "PodTemplate",
		"metadata": object{"name": "pt"}, "template": wlTemplate("")})
	checkStored(t, "PodTemplate", got, `{"generation":1,"template":`+tmpl+`}`)
}

// runWorkloadDefaultsWrites: every write is defaulted, not only a create:
// a PUT that drops defaulted fields gets them back, a patch's new
// container gets its defaults, an apply creates and changes a defaulted
// object; a DaemonSet's template generation follows template changes
// only, and a PodTemplate's generation its template's.
func runWorkloadDefaultsWrites(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	deps := e.appsPath("deployments")
	e.createAt(ctx, deps, object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": object{"name": "d"},
		"spec": object{"selector": wlSelector(), "template": wlTemplate("")}}, "create Deployment")
	d := e.getObject(ctx, deps+"/d")
	spec := d["spec"].(map[string]any)
	delete(spec, "revisionHistoryLimit")
	spec["strategy"] = object{"type": "RollingUpdate", "rollingUpdate": object{"maxSurge": 2}}
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: deps + "/d", Body: d})
	r.mustCode(t, http.StatusOK, "PUT without revisionHistoryLimit")
	d = decoded(t, r)
	if diff := cmp.Diff([]any{float64(10), object{"type": "RollingUpdate", "rollingUpdate": object{"maxSurge": float64(2), "maxUnavailable": "25%"}}, float64(2)},
		[]any{at(d, "spec", "revisionHistoryLimit"), at(d, "spec", "strategy"), at(d, "metadata", "generation")}); diff != "" {
		t.Errorf("after PUT: revisionHistoryLimit, strategy, generation (-want +got):\n%s", diff)
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: deps + "/d", ContentType: "application/strategic-merge-patch+json",
		Body: object{"spec": object{"template": object{"spec": object{"containers": []any{object{"name": "c2", "image": "busybox:1.36"}}}}}}})
	r.mustCode(t, http.StatusOK, "patch adding a container")
	d = decoded(t, r)
	cs, _ := at(d, "spec", "template", "spec", "containers").([]any)
	var c2 any
	for _, c := range cs {
		if at(c.(map[string]any), "name") == "c2" {
			c2 = c
		}
	}
	if diff := cmp.Diff(object{"name": "c2", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent", "resources": object{},
		"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}, c2); diff != "" {
		t.Errorf("patched-in container (-want +got):\n%s", diff)
	}
	if g := at(d, "metadata", "generation"); g != float64(3) {
		t.Errorf("generation after a template patch = %v, want 3", g)
	}

	dss := e.appsPath("daemonsets")
	apply := func(image string) object {
		r := e.apply(ctx, dss+"/ds", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: ds\nspec:\n  selector:\n    matchLabels:\n      app: a\n"+
			"  template:\n    metadata:\n      labels:\n        app: a\n    spec:\n      containers:\n      - name: c\n        image: "+image+"\n", "fieldManager", "m")
		if r.Code != http.StatusOK && r.Code != http.StatusCreated {
			t.Fatalf("apply DaemonSet with image %s: %d %s", image, r.Code, r.Body)
		}
		return e.getObject(ctx, dss+"/ds")
	}
	ds := apply("nginx:1")
	checkStored(t, "applied DaemonSet", ds, `{"generation":1,"annotations":{"deprecated.daemonset.template.generation":"1"},
		"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{
			"containers":[{"name":"c","image":"nginx:1","imagePullPolicy":"IfNotPresent","resources":{},
				"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
			"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},
		"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},"revisionHistoryLimit":10},
		"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}}`)
	ds = apply("nginx:2")
	if diff := cmp.Diff([]any{"2", float64(2)}, []any{at(ds, "metadata", "annotations", "deprecated.daemonset.template.generation"), at(ds, "metadata", "generation")}); diff != "" {
		t.Errorf("after a template change: template generation, generation (-want +got):\n%s", diff)
	}
	// A client cannot move the template generation; a change outside the
	// template moves only the generation.
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: dss + "/ds", ContentType: mergePatchType,
		Body: object{"metadata": object{"annotations": object{"deprecated.daemonset.template.generation": "7"}}, "spec": object{"minReadySeconds": 5}}})
	r.mustCode(t, http.StatusOK, "patch template generation and minReadySeconds")
	ds = decoded(t, r)
	if diff := cmp.Diff([]any{"2", float64(3)}, []any{at(ds, "metadata", "annotations", "deprecated.daemonset.template.generation"), at(ds, "metadata", "generation")}); diff != "" {
		t.Errorf("after a spec change outside the template: template generation, generation (-want +got):\n%s", diff)
	}

	pts := nsPath(e.ns, "podtemplates")
	e.createAt(ctx, pts, object{"apiVersion": "v1", "kind": "PodTemplate", "metadata": object{"name": "pt"}, "template": wlTemplate("")}, "create PodTemplate")
	for i, c := range []struct {
		patch object
		want  float64
	}{
		{object{"metadata": object{"labels": object{"x": "y"}}}, 1},
		{object{"template": object{"spec": object{"activeDeadlineSeconds": 5}}}, 2},
	} {
		r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: pts + "/pt", ContentType: mergePatchType, Body: c.patch})
		r.mustCode(t, http.StatusOK, "patch PodTemplate")
		if g := at(decoded(t, r), "metadata", "generation"); g != c.want {
			t.Errorf("PodTemplate patch %d: generation %v, want %v", i, g, c.want)
		}
	}
}

// runWorkloadDefaultsVolumes: a template's volume sources, init
// containers and pod overhead get the generated defaults (file modes,
// field reference versions, image pull policies, claim templates, the
// in-tree sources' legacy defaults), shown on a PodTemplate.
func runWorkloadDefaultsVolumes(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	fieldRef := object{"fieldPath": "metadata.name"}
	spec := object{
		"initContainers": []any{object{"name": "i", "image": "busybox@sha256:" + strings.Repeat("a", 64),
			"resources": object{"requests": object{"memory": "1.5"}}}},
		"containers": []any{object{"name": "c", "image": "nginx:1.27"}},
		"volumes": []any{
			object{"name": "cm", "configMap": object{"name": "x"}},
			object{"name": "da", "downwardAPI": object{"items": []any{object{"path": "n", "fieldRef": fieldRef}}}},
			object{"name": "pr", "projected": object{"defaultMode": 256, "sources": []any{object{"downwardAPI": object{"items": []any{object{"path": "n", "fieldRef": fieldRef}}}}}}},
			object{"name": "im", "image": object{"reference": "repo/img"}},
			object{"name": "im2", "image": object{"reference": "repo/img:v1"}},
			object{"name": "ep", "ephemeral": object{"volumeClaimTemplate": object{"spec": object{"accessModes": []any{"ReadWriteOnce"},
				"resources": object{"requests": object{"storage": "1Gi"}}}}}},
			object{"name": "is", "iscsi": object{"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}},
			object{"name": "rb", "rbd": object{"monitors": []any{"10.0.0.1:6789"}, "image": "img"}},
			object{"name": "az", "azureDisk": object{"diskName": "d", "diskURI": "https://example.com/d.vhd"}},
			object{"name": "sc", "scaleIO": object{"gateway": "https://gw", "system": "s", "volumeName": "v", "secretRef": object{"name": "x"}}},
		},
	}
	got := e.createStored(ctx, nsPath(e.ns, "podtemplates"), object{"apiVersion": "v1", "kind": "PodTemplate",
		"metadata": object{"name": "pt"}, "template": object{"spec": spec}})
	checkStored(t, "PodTemplate with volumes", got, `{"generation":1,"template":{"metadata":{},"spec":{
		"initContainers":[{"name":"i","image":"busybox@sha256:`+strings.Repeat("a", 64)+`","imagePullPolicy":"IfNotPresent",
			"resources":{"requests":{"memory":"1500m"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
		"containers":[{"name":"c","image":"nginx:1.27","imagePullPolicy":"IfNotPresent","resources":{},
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
		"volumes":[
			{"name":"cm","configMap":{"name":"x","defaultMode":420}},
			{"name":"da","downwardAPI":{"items":[{"path":"n","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}],"defaultMode":420}},
			{"name":"pr","projected":{"sources":[{"downwardAPI":{"items":[{"path":"n","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]}}],"defaultMode":256}},
			{"name":"im","image":{"reference":"repo/img","pullPolicy":"Always"}},
			{"name":"im2","image":{"reference":"repo/img:v1","pullPolicy":"IfNotPresent"}},
			{"name":"ep","ephemeral":{"volumeClaimTemplate":{"metadata":{},"spec":{"accessModes":["ReadWriteOnce"],
				"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"}}}},
			{"name":"is","iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.2001-04.com.example:storage","lun":0,"iscsiInterface":"default"}},
			{"name":"rb","rbd":{"monitors":["10.0.0.1:6789"],"image":"img","pool":"rbd","user":"admin","keyring":"/etc/ceph/keyring"}},
			{"name":"az","azureDisk":{"diskName":"d","diskURI":"https://example.com/d.vhd","cachingMode":"ReadWrite","fsType":"ext4","readOnly":false,"kind":"Shared"}},
			{"name":"sc","scaleIO":{"gateway":"https://gw","system":"s","volumeName":"v","secretRef":{"name":"x"},"storageMode":"ThinProvisioned","fsType":"xfs"}}],
		"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}}`)
}

// runPodDefaultsNested: a pod gets the nested defaults a template gets
// (volumes, gRPC probe service, lifecycle handlers, rounding) plus its
// own: requests copied from limits, host ports under host networking; no
// HTTP handler protocol (H2CContainerProbe is alpha in v1.37).
func runPodDefaultsNested(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	tmpl := wlTemplate("")
	spec := tmpl["spec"].(object)
	spec["hostNetwork"] = true
	spec["serviceAccountName"] = "sa" // a token volume needs one
	p := e.createPod(ctx, object{"apiVersion": "v1", "kind": "Pod", "metadata": object{"name": "p"}, "spec": spec})
	p = e.getObject(ctx, e.pods()+"/"+nameOf(p))
	c, _ := at(p, "spec", "containers").([]any)
	vols, _ := at(p, "spec", "volumes").([]any)
	if len(c) != 1 || len(vols) < 4 {
		t.Fatalf("pod containers %v, volumes %v: want 1 container, 4 volumes or more", c, vols)
	}
	got := object{"container": c[0], "volumes": vols[:4]}
	want := `{"container":{"name":"c","image":"nginx","imagePullPolicy":"Always",
			"ports":[{"containerPort":80,"hostPort":80,"protocol":"TCP"}],
			"env":[{"name":"N","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
			"resources":{"limits":{"cpu":"1m"},"requests":{"cpu":"1m"}},
			"livenessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
			"readinessProbe":{"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
			"lifecycle":{"preStop":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"}}},
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},
		"volumes":[{"name":"e","emptyDir":{}},{"name":"s","secret":{"secretName":"x","defaultMode":420}},
			{"name":"p","projected":{"sources":[{"serviceAccountToken":{"path":"t","expirationSeconds":3600}}],"defaultMode":420}},
			{"name":"h","hostPath":{"path":"/tmp","type":""}}]}`
	var wantV, gotV any
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustJSON(t, got), &gotV); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("pod's container and volumes (-want +got):\n%s", diff)
	}
}
