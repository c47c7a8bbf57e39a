package conformance

// Cases for apiregistration.k8s.io/v1 APIServices: the local ones
// kube-apiserver registers for its group-versions, those of CRDs, writes
// of the kind, and its place in discovery.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiservicesCases are the cases of this file, in the order [Cases] runs them.
func apiservicesCases() []Case {
	return []Case{
		{Name: "APIServicesLocal", Run: runAPIServicesLocal},
		{Name: "APIServicesCRD", Run: runAPIServicesCRD},
		{Name: "APIServiceWrites", Run: runAPIServiceWrites, Exclusive: true},
	}
}

// apiServicesPath is the APIService collection.
const apiServicesPath = "/apis/apiregistration.k8s.io/v1/apiservices"

// localAPIServices are kube-apiserver v1.37.2's local APIServices with
// their group and version priorities (observed; kubernetes
// cmd/kube-apiserver/app/aggregator.go): none for apiregistration.k8s.io
// itself.
var localAPIServices = map[string][2]float64{
	"v1.": {18000, 1}, "v1.admissionregistration.k8s.io": {16700, 15}, "v1.apiextensions.k8s.io": {16700, 15},
	"v1.apps": {17800, 15}, "v1.authentication.k8s.io": {17700, 15}, "v1.authorization.k8s.io": {17600, 15},
	"v1.autoscaling": {17500, 15}, "v2.autoscaling": {17500, 30}, "v1.batch": {17400, 15},
	"v1.certificates.k8s.io": {17300, 15}, "v1.coordination.k8s.io": {16500, 15}, "v1.discovery.k8s.io": {16200, 15},
	"v1.events.k8s.io": {17750, 15}, "v1.flowcontrol.apiserver.k8s.io": {16100, 21}, "v1.networking.k8s.io": {17200, 15},
	"v1.node.k8s.io": {16300, 15}, "v1.policy": {17100, 15}, "v1.rbac.authorization.k8s.io": {17000, 15},
	"v1.resource.k8s.io": {16200, 21}, "v1.scheduling.k8s.io": {16600, 15}, "v1.storage.k8s.io": {16800, 15},
	"v1.storagemigration.k8s.io": {15800, 15},
}

// availableLocal is the status condition of a local APIService, without
// its time.
var availableLocal = map[string]any{"type": "Available", "status": "True", "reason": "Local", "message": "Local APIServices are always available"}

// conditionsWithoutTime returns obj's status conditions without their
// lastTransitionTime.
func conditionsWithoutTime(obj object) []any {
	conds, _ := at(obj, "status", "conditions").([]any)
	out := make([]any, len(conds))
	for i, c := range conds {
		m := map[string]any{}
		for k, v := range c.(map[string]any) {
			if k != "lastTransitionTime" {
				m[k] = v
			}
		}
		out[i] = m
	}
	return out
}

// listAPIServices lists APIServices with the automanaged label value
// sync, by name.
func (e *env) listAPIServices(ctx context.Context, sync string) map[string]object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Path: apiServicesPath, Query: q("labelSelector", "kube-aggregator.kubernetes.io/automanaged="+sync)})
	r.mustCode(e.t, http.StatusOK, "list APIServices")
	var l list
	r.decode(e.t, &l)
	out := map[string]object{}
	for _, it := range l.Items {
		out[nameOf(it)] = it
	}
	return out
}

// runAPIServicesLocal: one local APIService per built-in group-version
// (named version.group, "v1." for core), automanaged on start, with the
// built-in priorities, no service, and Available "Local"; they print as
// a Table with Service "Local" and Available "True"; apiregistration.k8s.io
// is first in /apis, in both discovery forms.
func runAPIServicesLocal(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	got := e.listAPIServices(ctx, "onstart")
	var names []string
	for name, svc := range got {
		names = append(names, name)
		p := localAPIServices[name]
		wantSpec := map[string]any{"version": at(svc, "spec", "version"), "groupPriorityMinimum": p[0], "versionPriority": p[1]}
		if g := at(svc, "spec", "group"); g != nil {
			wantSpec["group"] = g
		}
		if fmt.Sprintf("%v.%v", at(svc, "spec", "version"), at(svc, "spec", "group")) != name && name != "v1." {
			t.Errorf("APIService %s names spec %v", name, svc["spec"])
		}
		if diff := cmp.Diff(wantSpec, svc["spec"]); diff != "" {
			t.Errorf("APIService %s spec (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff([]any{availableLocal}, conditionsWithoutTime(svc)); diff != "" {
			t.Errorf("APIService %s conditions (-want +got):\n%s", name, diff)
		}
	}
	var want []string
	for name := range localAPIServices {
		want = append(want, name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("local APIServices (-want +got):\n%s", diff)
	}

	r := e.c.do(ctx, t, request{Path: apiServicesPath + "/v1.apps", Accept: tableAccept})
	r.mustCode(t, http.StatusOK, "get v1.apps as a Table")
	var table metav1.Table
	r.decode(t, &table)
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if len(table.Rows) != 1 || !slices.Equal(cols, []string{"Name", "Service", "Available", "Age"}) ||
		fmt.Sprint(table.Rows[0].Cells[:3]) != "[v1.apps Local True]" {
		t.Errorf("APIService Table = columns %v rows %v, want Name Service Available Age and [v1.apps Local True ...]", cols, table.Rows)
	}

	r = e.c.do(ctx, t, request{Path: "/apis"})
	var groups metav1.APIGroupList
	r.decode(t, &groups)
	if len(groups.Groups) == 0 || groups.Groups[0].Name != "apiregistration.k8s.io" || groups.Groups[0].PreferredVersion.Version != "v1" {
		t.Errorf("/apis first group = %v, want apiregistration.k8s.io v1", groups.Groups[:min(1, len(groups.Groups))])
	}
	r = e.c.do(ctx, t, request{Path: "/apis", Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
	var agg struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Versions []struct {
				Version   string `json:"version"`
				Resources []struct {
					Resource string   `json:"resource"`
					Verbs    []string `json:"verbs"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	r.decode(t, &agg)
	if len(agg.Items) == 0 || agg.Items[0].Metadata.Name != "apiregistration.k8s.io" || len(agg.Items[0].Versions) != 1 ||
		len(agg.Items[0].Versions[0].Resources) != 1 || agg.Items[0].Versions[0].Resources[0].Resource != "apiservices" {
		t.Errorf("aggregated /apis first item = %+v, want apiregistration.k8s.io v1 apiservices", agg.Items[:min(1, len(agg.Items))])
	}
}

// crdBody is a CRD of group with versions v1 (storage) and v2, each
// served as given.
func crdBody(group string, v1, v2 bool) object {
	schema := object{"openAPIV3Schema": object{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	return object{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": object{"name": "widgets." + group},
		"spec": object{"group": group, "scope": "Namespaced",
			"names": object{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{
				object{"name": "v1", "served": v1, "storage": true, "schema": schema},
				object{"name": "v2", "served": v2, "storage": false, "schema": schema},
			}}}
}

// runAPIServicesCRD: a CRD's served versions get APIServices, soon after
// the CRD is written: automanaged continuously, priority 1000/100,
// Available "Local"; serving another version adds its APIService, and
// deleting the CRD removes them.
func runAPIServicesCRD(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	group := e.ns + ".example.com"
	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets." + group
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Body: crdBody(group, true, false)})
	r.mustCode(t, http.StatusCreated, "create CRD")
	t.Cleanup(func() { e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: crdPath}) })
	mine := func() map[string]object {
		out := map[string]object{}
		for name, svc := range e.listAPIServices(ctx, "true") {
			if at(svc, "spec", "group") == group {
				out[name] = svc
			}
		}
		return out
	}
	waitFor := func(what string, names ...string) map[string]object {
		t.Helper()
		var got map[string]object
		eventually(ctx, controllerWait, func() bool {
			got = mine()
			return len(got) == len(names) && func() bool {
				for _, n := range names {
					if got[n] == nil {
						return false
					}
				}
				return true
			}()
		})
		var have []string
		for n := range got {
			have = append(have, n)
		}
		slices.Sort(have)
		if diff := cmp.Diff(names, have, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: APIServices of group %s after %v (-want +got):\n%s", what, group, controllerWait, diff)
		}
		return got
	}
	got := waitFor("served v1", "v1."+group)
	svc := got["v1."+group]
	wantSpec := map[string]any{"group": group, "version": "v1", "groupPriorityMinimum": float64(1000), "versionPriority": float64(100)}
	if diff := cmp.Diff(wantSpec, svc["spec"]); diff != "" {
		t.Errorf("CRD APIService spec (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{availableLocal}, conditionsWithoutTime(svc)); diff != "" {
		t.Errorf("CRD APIService conditions (-want +got):\n%s", diff)
	}

	// A merge patch: the CRD controllers write its status meanwhile.
	e.c.do(ctx, t, request{Method: http.MethodPatch, Path: crdPath, ContentType: "application/merge-patch+json",
		Body: object{"spec": object{"versions": at(crdBody(group, true, true), "spec", "versions")}}}).mustCode(t, http.StatusOK, "serve v2")
	waitFor("served v1 and v2", "v1."+group, "v2."+group)

	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: crdPath}).mustCode(t, http.StatusOK, "delete CRD")
	waitFor("CRD deleted")
}

// runAPIServiceWrites: an APIService is validated as kube-aggregator's
// ValidateAPIService (name version.group, priorities in range, a local one
// without a CA bundle); a valid local one is created Available "Local",
// its spec updated and deleted. The group is served by no one: the real
// server lists it in discovery while it exists, so the case runs alone.
func runAPIServiceWrites(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	group := e.ns + ".example.com"
	name := "v1." + group
	body := func(n string, groupMin, verPrio int, caBundle string) object {
		spec := object{"group": group, "version": "v1", "groupPriorityMinimum": groupMin, "versionPriority": verPrio}
		if caBundle != "" {
			spec["caBundle"] = caBundle
		}
		return object{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": object{"name": n}, "spec": spec}
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: apiServicesPath, Body: body("wrong", 0, 2000, "eHl6")})
	nameMsg := fmt.Sprintf("Invalid value: \"wrong\": must be `spec.version+\".\"+spec.group`: %q", name)
	checkStatus(t, "create an invalid APIService", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		fmt.Sprintf(`APIService.apiregistration.k8s.io "wrong" is invalid: [metadata.name: %s, spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000, spec.versionPriority: Invalid value: 2000: must be positive and less than 1000, spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle]`, nameMsg),
		&metav1.StatusDetails{Name: "wrong", Group: "apiregistration.k8s.io", Kind: "APIService", Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueInvalid, Message: nameMsg, Field: "metadata.name"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 0: must be positive and less than 20000", Field: "spec.groupPriorityMinimum"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 2000: must be positive and less than 1000", Field: "spec.versionPriority"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "3 bytes": local APIServices may not have a caBundle`, Field: "spec.caBundle"}}}))

	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: apiServicesPath, Body: body(name, 500, 10, "")})
	r.mustCode(t, http.StatusCreated, "create a local APIService")
	t.Cleanup(func() {
		e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: apiServicesPath + "/" + name})
	})
	created := decoded(t, r)
	if diff := cmp.Diff([]any{availableLocal}, conditionsWithoutTime(created)); diff != "" {
		t.Errorf("created APIService conditions (-want +got):\n%s", diff)
	}
	created["spec"].(map[string]any)["versionPriority"] = 20
	created["status"] = object{}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: apiServicesPath + "/" + name, Body: created})
	r.mustCode(t, http.StatusOK, "update the APIService")
	updated := decoded(t, r)
	if at(updated, "spec", "versionPriority") != float64(20) || len(conditionsWithoutTime(updated)) != 1 {
		t.Errorf("updated APIService = %v, want versionPriority 20 and its condition kept", updated)
	}
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: apiServicesPath + "/" + name}).mustCode(t, http.StatusOK, "delete the APIService")
	if got := e.getOK(ctx, apiServicesPath+"/"+name); got != nil {
		t.Errorf("APIService after delete = %v, want 404", got)
	}
}
