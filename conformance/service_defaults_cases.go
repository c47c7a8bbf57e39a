package conformance

// Cases for what a Service gets on create and update besides its body:
// SetDefaults_Service, the IP family fields, a cluster IP from the service
// CIDR and node ports from 30000-32767 (kubernetes pkg/registry/core/
// service/storage alloc.go). Dynamic allocation is random on
// kube-apiserver, so allocated values are checked to be in range and
// distinct; requested ones are exact. Cases run in parallel on one
// server: requested IPs and ports are drawn at random from the low parts
// of the ranges, which dynamic allocation uses last, and the Services are
// deleted at the end so that they are released.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serviceDefaultsCases are the cases of this file, in the order [Cases] runs them.
func serviceDefaultsCases() []Case {
	return []Case{
		{Name: "ServiceDefaults", Run: runServiceDefaults},
		{Name: "ServiceClusterIPAllocation", Run: runServiceClusterIPAllocation},
		{Name: "ServiceNodePorts", Run: runServiceNodePorts},
		{Name: "ServiceDryRunAllocation", Run: runServiceDryRunAllocation},
		{Name: "ServiceClusterIPFields", Run: runServiceClusterIPFields},
	}
}

// serviceCIDR is the reference server's --service-cluster-ip-range (its
// test server's) and the fake's default.
var serviceCIDR = netip.MustParsePrefix("10.0.0.0/16")

// svcBody is a Service named name with spec.
func svcBody(name string, spec object) object {
	return object{"apiVersion": "v1", "kind": "Service", "metadata": object{"name": name}, "spec": spec}
}

// createService POSTs a Service and returns its stored spec, failing the
// case unless it is created.
func (e *env) createService(ctx context.Context, body object, query map[string][]string) map[string]any {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Query: query, Body: body})
	r.mustCode(e.t, http.StatusCreated, fmt.Sprintf("create service %v", at(body, "metadata", "name")))
	var got object
	r.decode(e.t, &got)
	spec, _ := got["spec"].(map[string]any)
	return spec
}

// deleteServices deletes the named Services, releasing what they hold.
func (e *env) deleteServices(ctx context.Context, names ...string) {
	for _, n := range names {
		e.c.do(ctx, e.t, request{Method: http.MethodDelete, Path: nsPath(e.ns, "services") + "/" + n})
	}
}

// checkClusterIP checks that spec has one allocated cluster IP in the
// service CIDR (not its network or broadcast address), clusterIPs being
// [clusterIP], and returns it.
func checkClusterIP(t *testing.T, what string, spec map[string]any) string {
	t.Helper()
	s, _ := spec["clusterIP"].(string)
	ip, err := netip.ParseAddr(s)
	if err != nil || !serviceCIDR.Contains(ip) || ip == serviceCIDR.Addr() || ip == netip.MustParseAddr("10.0.255.255") {
		t.Errorf("%s: clusterIP %q is not an address of %s", what, s, serviceCIDR)
	}
	if diff := cmp.Diff([]any{s}, spec["clusterIPs"]); diff != "" {
		t.Errorf("%s: clusterIPs (-want +got):\n%s", what, diff)
	}
	return s
}

// nodePortOf returns the nodePort of spec's port i, checking it is in
// 30000-32767.
func nodePortOf(t *testing.T, what string, spec map[string]any, i int) float64 {
	t.Helper()
	ports, _ := spec["ports"].([]any)
	if i >= len(ports) {
		t.Fatalf("%s: no port %d in %v", what, i, spec["ports"])
	}
	np, _ := ports[i].(map[string]any)["nodePort"].(float64)
	if np < 30000 || np > 32767 {
		t.Errorf("%s: ports[%d].nodePort = %v, want one in 30000-32767", what, i, np)
	}
	return np
}

// without returns a copy of m without the keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// lowServiceIP is a random address among 10.0.0.16-10.0.0.250, below
// 10.0.1.0 where dynamic allocation starts.
func lowServiceIP() string { return fmt.Sprintf("10.0.0.%d", 16+rand.IntN(235)) }

// lowNodePort is a random port among 30000-30079, below 30086 where
// dynamic allocation starts.
func lowNodePort() int { return 30000 + rand.IntN(80) }

// runServiceDefaults: a ClusterIP Service gets type, sessionAffinity None,
// port protocol TCP and targetPort = port, internalTrafficPolicy Cluster,
// ipFamilies [IPv4], ipFamilyPolicy SingleStack and a cluster IP; ClientIP
// affinity gets its 3-hour timeout; ExternalName gets none of the IP
// fields nor internalTrafficPolicy; a headless Service keeps "None", with
// RequireDualStack and both families when it has no selector.
func runServiceDefaults(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	defer e.deleteServices(ctx, "cip", "aff", "ext", "hl", "hls")
	port := []any{map[string]any{"port": float64(80), "protocol": "TCP", "targetPort": float64(80)}}
	spec := e.createService(ctx, svcBody("cip", object{"selector": object{"app": "a"}, "ports": []any{object{"port": 80}}}), nil)
	checkClusterIP(t, "ClusterIP service", spec)
	want := map[string]any{"type": "ClusterIP", "sessionAffinity": "None", "selector": map[string]any{"app": "a"}, "ports": port,
		"internalTrafficPolicy": "Cluster", "ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack"}
	if diff := cmp.Diff(want, without(spec, "clusterIP", "clusterIPs")); diff != "" {
		t.Errorf("ClusterIP service spec (-want +got):\n%s", diff)
	}

	spec = e.createService(ctx, svcBody("aff", object{"sessionAffinity": "ClientIP", "ports": []any{object{"port": 80, "targetPort": "http"}}}), nil)
	if diff := cmp.Diff(map[string]any{"clientIP": map[string]any{"timeoutSeconds": float64(10800)}}, spec["sessionAffinityConfig"]); diff != "" {
		t.Errorf("ClientIP affinity config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"port": float64(80), "protocol": "TCP", "targetPort": "http"}}, spec["ports"]); diff != "" {
		t.Errorf("named targetPort (-want +got):\n%s", diff)
	}

	spec = e.createService(ctx, svcBody("ext", object{"type": "ExternalName", "externalName": "db.example.com", "ports": []any{object{"port": 80}}}), nil)
	want = map[string]any{"type": "ExternalName", "externalName": "db.example.com", "sessionAffinity": "None", "ports": port}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("ExternalName service spec (-want +got):\n%s", diff)
	}

	spec = e.createService(ctx, svcBody("hl", object{"clusterIP": "None", "selector": object{"app": "a"}, "ports": []any{object{"port": 80}}}), nil)
	want = map[string]any{"type": "ClusterIP", "clusterIP": "None", "clusterIPs": []any{"None"}, "sessionAffinity": "None",
		"selector": map[string]any{"app": "a"}, "ports": port, "internalTrafficPolicy": "Cluster",
		"ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack"}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("headless service spec (-want +got):\n%s", diff)
	}
	spec = e.createService(ctx, svcBody("hls", object{"clusterIP": "None", "ports": []any{object{"port": 80}}}), nil)
	want = without(want, "selector")
	want["ipFamilies"], want["ipFamilyPolicy"] = []any{"IPv4", "IPv6"}, "RequireDualStack"
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("headless service without selector spec (-want +got):\n%s", diff)
	}
}

// runServiceClusterIPAllocation: allocated cluster IPs are distinct; a
// requested one is kept if free, and refused (422) when taken, outside
// the CIDR or the CIDR's network address; a deleted Service's IP is free
// again, and so is that of a Service turned ExternalName. Dual-stack
// requests fail on a single-stack cluster.
func runServiceClusterIPAllocation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	defer e.deleteServices(ctx, "a", "b", "req", "req2", "req3", "req4")
	ports := []any{object{"port": 80}}
	a := checkClusterIP(t, "a", e.createService(ctx, svcBody("a", object{"ports": ports}), nil))
	b := checkClusterIP(t, "b", e.createService(ctx, svcBody("b", object{"ports": ports}), nil))
	if a == b {
		t.Errorf("two services got one cluster IP %s", a)
	}

	ip := lowServiceIP()
	spec := e.createService(ctx, svcBody("req", object{"clusterIP": ip, "ports": ports}), nil)
	if diff := cmp.Diff([]any{ip, []any{ip}}, []any{spec["clusterIP"], spec["clusterIPs"]}); diff != "" {
		t.Errorf("requested cluster IP (-want +got):\n%s", diff)
	}
	create := func(name string, spec object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: svcBody(name, spec)})
	}
	clusterIPsCause := func(ip, msg string) metav1.StatusCause {
		return cause(metav1.CauseTypeFieldValueInvalid, "spec.clusterIPs", `Invalid value: ["`+ip+`"]: failed to allocate IP `+ip+": "+msg)
	}
	checkStatus(t, "taken cluster IP", create("req2", object{"clusterIP": ip, "ports": ports}),
		invalid("Service", "", "req2", clusterIPsCause(ip, "provided IP is already allocated")))
	for _, bad := range []string{"192.168.0.1", "10.0.0.0", "10.0.255.255"} {
		checkStatus(t, "cluster IP "+bad, create("req2", object{"clusterIP": bad, "ports": ports}),
			invalid("Service", "", "req2", clusterIPsCause(bad, "the provided network does not match the current range")))
	}
	checkStatus(t, "RequireDualStack", create("req2", object{"ipFamilyPolicy": "RequireDualStack", "selector": object{"a": "b"}, "ports": ports}),
		invalid("Service", "", "req2", invalidValue("spec.ipFamilyPolicy", "RequireDualStack", "this cluster is not configured for dual-stack services")))
	checkStatus(t, "IPv6 family", create("req2", object{"ipFamilies": []any{"IPv6"}, "ports": ports}),
		invalid("Service", "", "req2", invalidValue("spec.ipFamilies[0]", "IPv6", "not configured on this cluster")))

	// Delete releases; so does a change to ExternalName.
	e.deleteServices(ctx, "req")
	e.createService(ctx, svcBody("req2", object{"clusterIP": ip, "ports": ports}), nil)
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: nsPath(e.ns, "services") + "/req2", ContentType: mergePatchType,
		Body: object{"spec": object{"type": "ExternalName", "externalName": "db.example.com"}}})
	r.mustCode(t, http.StatusOK, "turn req2 into ExternalName")
	var got object
	r.decode(t, &got)
	for _, f := range []string{"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} {
		if v := at(got, "spec", f); v != nil {
			t.Errorf("ExternalName after ClusterIP: spec.%s = %v, want none", f, v)
		}
	}
	e.createService(ctx, svcBody("req3", object{"clusterIP": ip, "ports": ports}), nil)
	// And back: ExternalName to ClusterIP allocates.
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: nsPath(e.ns, "services") + "/req2", ContentType: mergePatchType,
		Body: object{"spec": object{"type": "ClusterIP", "externalName": nil}}})
	r.mustCode(t, http.StatusOK, "turn req2 back into ClusterIP")
	r.decode(t, &got)
	spec, _ = got["spec"].(map[string]any)
	if back := checkClusterIP(t, "ExternalName to ClusterIP", spec); back == ip {
		t.Errorf("ExternalName to ClusterIP got %s, held by req3", ip)
	}
}

// runServiceNodePorts: NodePort and LoadBalancer Services get node ports
// (ports of one number share one), externalTrafficPolicy Cluster and, for
// LoadBalancer, allocateLoadBalancerNodePorts true; none with it false; a
// Local LoadBalancer gets a healthCheckNodePort. A requested port is
// kept, refused when taken or out of range, and free again once its
// Service is deleted or turned ClusterIP. An update leaving out the
// allocated values keeps them.
func runServiceNodePorts(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	defer e.deleteServices(ctx, "np", "lb", "lbn", "lbl", "req", "req2", "req3")
	spec := e.createService(ctx, svcBody("np", object{"type": "NodePort", "ports": []any{
		object{"name": "a", "port": 80}, object{"name": "b", "port": 80, "protocol": "UDP"}, object{"name": "c", "port": 81}}}), nil)
	checkClusterIP(t, "NodePort service", spec)
	a, b, c := nodePortOf(t, "np", spec, 0), nodePortOf(t, "np", spec, 1), nodePortOf(t, "np", spec, 2)
	if a != b || a == c {
		t.Errorf("node ports %v %v %v: want the first two equal (port 80), the third different", a, b, c)
	}
	if spec["externalTrafficPolicy"] != "Cluster" || spec["internalTrafficPolicy"] != "Cluster" {
		t.Errorf("NodePort traffic policies = %v/%v, want Cluster/Cluster", spec["externalTrafficPolicy"], spec["internalTrafficPolicy"])
	}

	spec = e.createService(ctx, svcBody("lb", object{"type": "LoadBalancer", "ports": []any{object{"port": 80}}}), nil)
	nodePortOf(t, "lb", spec, 0)
	if spec["allocateLoadBalancerNodePorts"] != true || spec["externalTrafficPolicy"] != "Cluster" {
		t.Errorf("LoadBalancer allocateLoadBalancerNodePorts/externalTrafficPolicy = %v/%v, want true/Cluster", spec["allocateLoadBalancerNodePorts"], spec["externalTrafficPolicy"])
	}
	spec = e.createService(ctx, svcBody("lbn", object{"type": "LoadBalancer", "allocateLoadBalancerNodePorts": false, "ports": []any{object{"port": 80}}}), nil)
	if diff := cmp.Diff([]any{map[string]any{"port": float64(80), "protocol": "TCP", "targetPort": float64(80)}}, spec["ports"]); diff != "" {
		t.Errorf("LoadBalancer without node ports (-want +got):\n%s", diff)
	}
	spec = e.createService(ctx, svcBody("lbl", object{"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": []any{object{"port": 80}}}), nil)
	if hc, _ := spec["healthCheckNodePort"].(float64); hc < 30000 || hc > 32767 || hc == nodePortOf(t, "lbl", spec, 0) {
		t.Errorf("Local LoadBalancer healthCheckNodePort = %v, want another port in 30000-32767", spec["healthCheckNodePort"])
	}

	p := lowNodePort()
	spec = e.createService(ctx, svcBody("req", object{"type": "NodePort", "ports": []any{object{"port": 80, "nodePort": p}}}), nil)
	if got := nodePortOf(t, "req", spec, 0); got != float64(p) {
		t.Errorf("requested nodePort %d stored as %v", p, got)
	}
	create := func(name string, np int) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"),
			Body: svcBody(name, object{"type": "NodePort", "ports": []any{object{"port": 80}, object{"name": "x", "port": 90, "nodePort": np}}})})
	}
	// A two-port body needs names; the error on port 1 comes first from
	// the allocator, before validation.
	checkStatus(t, "taken nodePort", create("req2", p), invalid("Service", "", "req2",
		invalidInt("spec.ports[1].nodePort", fmt.Sprint(p), "provided port is already allocated")))
	checkStatus(t, "nodePort out of range", create("req2", 29999), invalid("Service", "", "req2",
		invalidInt("spec.ports[1].nodePort", "29999", "provided port is not in the valid range. The range of valid ports is 30000-32767")))

	// A PUT of the created body (no clusterIP, no nodePort) keeps both.
	cur := e.getObject(ctx, nsPath(e.ns, "services")+"/np")
	put := svcBody("np", object{"type": "NodePort", "ports": []any{
		object{"name": "a", "port": 80}, object{"name": "b", "port": 80, "protocol": "UDP"}, object{"name": "c", "port": 81}}})
	put["metadata"].(object)["resourceVersion"] = at(cur, "metadata", "resourceVersion")
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: nsPath(e.ns, "services") + "/np", Body: put})
	r.mustCode(t, http.StatusOK, "PUT np without allocated values")
	var got object
	r.decode(t, &got)
	if diff := cmp.Diff(cur["spec"], got["spec"]); diff != "" {
		t.Errorf("spec after a PUT without allocated values (-before +after):\n%s", diff)
	}

	// Delete releases; so does a change to ClusterIP.
	e.deleteServices(ctx, "req")
	e.createService(ctx, svcBody("req2", object{"type": "NodePort", "ports": []any{object{"port": 80, "nodePort": p}}}), nil)
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: nsPath(e.ns, "services") + "/req2", ContentType: mergePatchType,
		Body: object{"spec": object{"type": "ClusterIP"}}})
	r.mustCode(t, http.StatusOK, "turn req2 into ClusterIP")
	r.decode(t, &got)
	if diff := cmp.Diff([]any{map[string]any{"port": float64(80), "protocol": "TCP", "targetPort": float64(80)}}, at(got, "spec", "ports")); diff != "" {
		t.Errorf("ports after NodePort to ClusterIP (-want +got):\n%s", diff)
	}
	e.createService(ctx, svcBody("req3", object{"type": "NodePort", "ports": []any{object{"port": 80, "nodePort": p}}}), nil)
}

// runServiceDryRunAllocation: a dry-run create allocates nothing and
// reports placeholders: the CIDR's network address as cluster IP and
// 32769 onwards as node ports; a requested IP is kept.
func runServiceDryRunAllocation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	spec := e.createService(ctx, svcBody("np", object{"type": "NodePort", "ports": []any{
		object{"name": "a", "port": 80}, object{"name": "b", "port": 81}}}), dryRun())
	want := []any{"10.0.0.0", []any{"10.0.0.0"}, float64(32769), float64(32770)}
	ports, _ := spec["ports"].([]any)
	var nps []any
	for _, p := range ports {
		nps = append(nps, p.(map[string]any)["nodePort"])
	}
	if diff := cmp.Diff(want, append([]any{spec["clusterIP"], spec["clusterIPs"]}, nps...)); diff != "" {
		t.Errorf("dry-run clusterIP, clusterIPs and node ports (-want +got):\n%s", diff)
	}
	ip := lowServiceIP()
	spec = e.createService(ctx, svcBody("req", object{"clusterIP": ip, "ports": []any{object{"port": 80}}}), dryRun())
	if spec["clusterIP"] != ip {
		t.Errorf("dry-run requested clusterIP = %v, want %s", spec["clusterIP"], ip)
	}
	r := e.c.do(ctx, t, request{Method: http.MethodGet, Path: nsPath(e.ns, "services") + "/np"})
	r.mustCode(t, http.StatusNotFound, "dry-run service stored")
}

// runServiceClusterIPFields: the IP fields are checked before anything is
// allocated: clusterIP and clusterIPs agree, each IP is valid (strictly),
// "None" stands alone, one IP per family, of the family ipFamilies names,
// families and policy are known values; a family the cluster lacks is
// refused. PreferDualStack falls back to one family.
func runServiceClusterIPFields(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	defer e.deleteServices(ctx, "pref")
	ports := []any{object{"port": 80}}
	try := func(what string, spec object, causes ...metav1.StatusCause) {
		t.Helper()
		spec["ports"] = ports
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: svcBody("bad", spec)})
		checkStatus(t, what, r, invalid("Service", "", "bad", causes...))
	}
	ips := "spec.clusterIPs"
	try("clusterIP abc", object{"clusterIP": "abc"}, invalidValue(ips+"[0]", "abc", notAnIPMsg))
	try("clusterIP with leading 0s", object{"clusterIP": "010.0.0.5"}, invalidValue(ips+"[0]", "010.0.0.5", "must not have leading 0s"))
	try("IPv6 clusterIP", object{"clusterIP": "fd00::5"},
		cause(metav1.CauseTypeFieldValueInvalid, ips+"[0]", `Invalid value: ["fd00::5"]: IPv6 is not configured on this cluster`))
	try("clusterIPs alone", object{"clusterIPs": []any{"10.0.0.77"}},
		cause(metav1.CauseTypeFieldValueInvalid, ips, `Invalid value: ["10.0.0.77"]: must be empty when `+"`clusterIP`"+` is not specified`))
	try("clusterIPs[0] differs", object{"clusterIP": "10.0.0.78", "clusterIPs": []any{"10.0.0.79"}},
		cause(metav1.CauseTypeFieldValueInvalid, ips, `Invalid value: ["10.0.0.79"]: first value must match `+"`clusterIP`"))
	try("bad families and policy", object{"ipFamilies": []any{"IPv5", "IPv4", "IPv4"}, "ipFamilyPolicy": "Bogus"},
		notSupported("spec.ipFamilies[0]", "IPv5", `supported values: "IPv4", "IPv6"`),
		cause(metav1.CauseTypeFieldValueDuplicate, "spec.ipFamilies[2]", `Duplicate value: "IPv4"`),
		notSupported("spec.ipFamilyPolicy", "Bogus", `supported values: "PreferDualStack", "RequireDualStack", "SingleStack"`))
	try("None and an IP", object{"clusterIP": "None", "clusterIPs": []any{"None", "10.0.0.5"}},
		cause(metav1.CauseTypeFieldValueInvalid, ips, `Invalid value: ["None","10.0.0.5"]: 'None' must be the first and only value`))
	try("two IPv4 cluster IPs", object{"clusterIP": "10.0.0.5", "clusterIPs": []any{"10.0.0.5", "10.0.0.6"}, "ipFamilyPolicy": "PreferDualStack"},
		cause(metav1.CauseTypeFieldValueInvalid, ips, `Invalid value: ["10.0.0.5","10.0.0.6"]: may specify no more than one IP for each IP family`))
	try("IPv4 IP, IPv6 family", object{"clusterIP": "10.0.0.5", "ipFamilies": []any{"IPv6"}},
		invalidValue(ips+"[0]", "10.0.0.5", "expected an IPv6 value as indicated by `ipFamilies[0]`"))

	spec := e.createService(ctx, svcBody("pref", object{"ipFamilyPolicy": "PreferDualStack", "ports": ports}), nil)
	checkClusterIP(t, "PreferDualStack", spec)
	if diff := cmp.Diff([]any{"PreferDualStack", []any{"IPv4"}}, []any{spec["ipFamilyPolicy"], spec["ipFamilies"]}); diff != "" {
		t.Errorf("PreferDualStack policy and families (-want +got):\n%s", diff)
	}
}
