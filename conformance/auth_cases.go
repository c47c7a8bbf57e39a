package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// authCases are the cases of this file, in the order [Cases] runs them.
func authCases() []Case {
	return []Case{
		{Name: "AnonymousHealthAndVersion", Run: runAnonymousHealthAndVersion},
		{Name: "AnonymousResourceForbidden", Run: runAnonymousResourceForbidden},
		{Name: "BearerScheme", Run: runBearerScheme},
	}
}

// anonymousClient is a client for target without its credentials (TLS
// trust kept), or nil when the target asks for none: then every caller is
// authorized and there is no anonymous behaviour to compare.
func anonymousClient(t *testing.T, target Target) *client {
	t.Helper()
	cfg := target.RESTConfig()
	if cfg.BearerToken == "" && cfg.BearerTokenFile == "" && cfg.CertData == nil && cfg.CertFile == "" {
		t.Skipf("target %s has no credentials", target.Name())
	}
	anon := rest.AnonymousClientConfig(cfg)
	hc, err := rest.HTTPClientFor(anon)
	if err != nil {
		t.Fatalf("HTTPClientFor(anonymous %s): %v", target.Name(), err)
	}
	return &client{target: target, base: baseURL(anon), http: hc}
}

// runAnonymousHealthAndVersion: a caller without credentials may GET
// /healthz, /livez, /readyz (with ?verbose too) and /version, as the
// bootstrap ClusterRole system:public-info-viewer allows
// system:unauthenticated; the per-check subpaths and other methods are 403.
func runAnonymousHealthAndVersion(ctx context.Context, t *testing.T, target Target) {
	c := anonymousClient(t, target)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		r := c.do(ctx, t, request{Path: p, Accept: "*/*"})
		if r.Code != http.StatusOK || string(r.Body) != "ok" {
			t.Errorf("anonymous GET %s = %d %q, want 200 \"ok\"", p, r.Code, r.Body)
		}
		r = c.do(ctx, t, request{Path: p, Query: q("verbose", ""), Accept: "*/*"})
		verdict := strings.TrimPrefix(p, "/") + " check passed\n"
		if r.Code != http.StatusOK || !strings.HasPrefix(string(r.Body), "[+]ping ok\n[+]log ok\n") || !strings.HasSuffix(string(r.Body), verdict) {
			t.Errorf("anonymous GET %s?verbose = %d %q, want 200, ping and log first, %q last", p, r.Code, r.Body, verdict)
		}
	}
	r := c.do(ctx, t, request{Path: "/version"})
	var v struct{ Major, Minor string }
	r.mustCode(t, http.StatusOK, "anonymous GET /version")
	r.decode(t, &v)
	if v.Major != "1" || v.Minor != "37" {
		t.Errorf("anonymous /version = %s.%s, want 1.37", v.Major, v.Minor)
	}
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/readyz/ping"}, {http.MethodGet, "/livez/ping"}, {http.MethodPost, "/readyz"}, {http.MethodGet, "/api"},
	} {
		r := c.do(ctx, t, request{Method: tc.method, Path: tc.path})
		checkStatus(t, "anonymous "+tc.method+" "+tc.path, r, wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("forbidden: User %q cannot %s path %q", "system:anonymous", strings.ToLower(tc.method), tc.path), &metav1.StatusDetails{}))
	}
}

// runAnonymousResourceForbidden: resource requests without credentials are
// 403 in RBAC's words, naming the verb, resource, group and scope.
func runAnonymousResourceForbidden(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	c := anonymousClient(t, target)
	forbidden := func(msg string, d *metav1.StatusDetails) statusShape {
		return wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden, msg, d)
	}
	checkStatus(t, "anonymous list", c.do(ctx, t, request{Path: e.cms()}), forbidden(
		fmt.Sprintf(`configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace %q`, e.ns),
		&metav1.StatusDetails{Kind: "configmaps"}))
	checkStatus(t, "anonymous get status", c.do(ctx, t, request{Path: nsPath(e.ns, "pods") + "/x/status"}), forbidden(
		fmt.Sprintf(`pods "x" is forbidden: User "system:anonymous" cannot get resource "pods/status" in API group "" in the namespace %q`, e.ns),
		&metav1.StatusDetails{Kind: "pods", Name: "x"}))
	checkStatus(t, "anonymous watch", c.do(ctx, t, request{Path: "/api/v1/configmaps", Query: q("watch", "1")}), forbidden(
		`configmaps is forbidden: User "system:anonymous" cannot watch resource "configmaps" in API group "" at the cluster scope`,
		&metav1.StatusDetails{Kind: "configmaps"}))
	checkStatus(t, "anonymous create", c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/apps/v1/namespaces/" + e.ns + "/deployments", Body: object{}}), forbidden(
		fmt.Sprintf(`deployments.apps is forbidden: User "system:anonymous" cannot create resource "deployments" in API group "apps" in the namespace %q`, e.ns),
		&metav1.StatusDetails{Group: "apps", Kind: "deployments"}))
}

// runBearerScheme: the Authorization scheme is matched in any case
// (authentication/request/bearertoken lower-cases it); a wrong token is
// 401 even on /readyz, which anonymous callers may read.
func runBearerScheme(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	c := anonymousClient(t, target)
	token := target.RESTConfig().BearerToken
	if token == "" {
		t.Skipf("target %s authenticates without a bearer token", target.Name())
	}
	for _, scheme := range []string{"bearer", "BEARER", "bEaReR"} {
		r := c.doWithHeader(ctx, t, request{Path: e.cms()}, "Authorization", scheme+" "+token)
		r.mustCode(t, http.StatusOK, "list with scheme "+scheme)
	}
	r := c.doWithHeader(ctx, t, request{Path: "/readyz"}, "Authorization", "Bearer wrong")
	checkStatus(t, "wrong token on /readyz", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
}
