package conformance

// Cases for /healthz, /livez and /readyz (apiserver pkg/server/healthz):
// kube-apiserver v1.37.2's check list, each check's own path, exclusion.

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// healthCases are the cases of this file, in the order [Cases] runs them.
func healthCases() []Case {
	return []Case{
		{Name: "HealthChecksVerbose", Run: runHealthChecksVerbose},
	}
}

// healthHooks are kube-apiserver v1.37.2's post-start hooks as its health
// endpoints list them (observed on tools/realapiserver).
var healthHooks = []string{
	"start-apiserver-admission-initializer", "generic-apiserver-start-informers",
	"priority-and-fairness-config-consumer", "priority-and-fairness-filter",
	"storage-object-count-tracker-hook", "start-apiextensions-informers",
	"start-apiextensions-controllers", "crd-informer-synced",
	"start-system-namespaces-controller", "peer-endpoint-reconciler-controller",
	"mixed-version-proxy-handler", "local-discovery-cache-sync", "peer-discovery-workers",
	"start-cluster-authentication-info-controller", "start-kube-apiserver-identity-lease-controller",
	"start-kube-apiserver-identity-lease-garbage-collector", "storage-readiness",
	"start-legacy-token-tracking-controller", "start-service-ip-repair-controllers",
	"rbac/bootstrap-roles", "scheduling/bootstrap-system-priority-classes",
	"priority-and-fairness-config-producer", "bootstrap-controller",
	"start-kubernetes-service-cidr-controller", "aggregator-reload-proxy-client-cert",
	"start-kube-aggregator-informers", "apiservice-status-local-available-controller",
	"apiservice-status-remote-available-controller", "apiservice-registration-controller",
	"apiservice-discovery-controller", "kube-apiserver-autoregistration",
}

// healthChecksOf are the checks of endpoint in kube-apiserver's order.
func healthChecksOf(endpoint string) []string {
	checks := []string{"ping", "log", "loopback-serving-certificate", "etcd"}
	if endpoint == "readyz" {
		checks = []string{"ping", "log", "etcd", "etcd-readiness", "informer-sync"}
	}
	for _, h := range healthHooks {
		checks = append(checks, "poststarthook/"+h)
	}
	checks = append(checks, "autoregister-completion",
		"poststarthook/apiservice-openapi-controller", "poststarthook/apiservice-openapiv3-controller")
	if endpoint == "readyz" {
		checks = append(checks, "shutdown")
	}
	return checks
}

// verboseHealth is the ?verbose body of endpoint with the excluded checks
// marked and warn as the warning line ("" for none).
func verboseHealth(endpoint string, excluded map[string]bool, warn string) string {
	var b strings.Builder
	for _, c := range healthChecksOf(endpoint) {
		if excluded[c] {
			b.WriteString("[+]" + c + " excluded: ok\n")
			continue
		}
		b.WriteString("[+]" + c + " ok\n")
	}
	b.WriteString(warn)
	return b.String() + endpoint + " check passed\n"
}

// runHealthChecksVerbose: /healthz, /livez and /readyz with ?verbose list
// kube-apiserver's checks, each "[+]name ok", and end with
// "<endpoint> check passed"; ?exclude marks a check excluded and warns
// about names no check has; each check answers "ok" at its own path; a
// check of another endpoint, or a path with a trailing slash, is the
// mux's plain-text 404.
func runHealthChecksVerbose(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	get := func(path string, query ...string) response {
		return c.do(ctx, t, request{Path: path, Query: q(query...), Accept: "*/*"})
	}
	for _, ep := range []string{"healthz", "livez", "readyz"} {
		r := get("/"+ep, "verbose", "")
		if diff := cmp.Diff(verboseHealth(ep, nil, ""), string(r.Body)); r.Code != http.StatusOK || diff != "" {
			t.Errorf("GET /%s?verbose = %d (-want +got):\n%s", ep, r.Code, diff)
		}
		if ct := r.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("GET /%s?verbose Content-Type = %q, want text/plain; charset=utf-8", ep, ct)
		}
		for _, check := range healthChecksOf(ep) {
			if r := get("/" + ep + "/" + check); r.Code != http.StatusOK || string(r.Body) != "ok" {
				t.Errorf("GET /%s/%s = %d %q, want 200 \"ok\"", ep, check, r.Code, r.Body)
			}
		}
	}
	// q sets each key once; exclude is repeated.
	excl := q("verbose", "")
	for _, name := range []string{"etcd", "zz-none", "aa-none"} {
		excl.Add("exclude", name)
	}
	r := c.do(ctx, t, request{Path: "/readyz", Query: excl, Accept: "*/*"})
	want := verboseHealth("readyz", map[string]bool{"etcd": true},
		`warn: some health checks cannot be excluded: no matches for "aa-none","zz-none"`+"\n")
	if diff := cmp.Diff(want, string(r.Body)); r.Code != http.StatusOK || diff != "" {
		t.Errorf("GET /readyz?verbose&exclude=... = %d (-want +got):\n%s", r.Code, diff)
	}
	if r := get("/livez", "exclude", "none"); r.Code != http.StatusOK || string(r.Body) != "ok" {
		t.Errorf("GET /livez?exclude=none = %d %q, want 200 \"ok\"", r.Code, r.Body)
	}
	for _, p := range []string{"/livez/shutdown", "/healthz/etcd-readiness", "/readyz/loopback-serving-certificate",
		"/healthz/", "/healthz/ping/", "/healthz/poststarthook", "/readyz/no-such-check"} {
		r := get(p)
		if r.Code != http.StatusNotFound || string(r.Body) != "404 page not found\n" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s = %d %q (%s), want the plain-text 404", p, r.Code, r.Body, r.Header.Get("Content-Type"))
		}
	}
}
