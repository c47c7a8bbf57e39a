package fakeapiserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// extraSpaceWarning is the Warning kube-apiserver adds when the token
// follows "Bearer" after two spaces, a header it then ignores
// (authentication/request/bearertoken invalidTokenWithSpaceWarning).
const extraSpaceWarning = "the provided Authorization header contains extra space before the bearer token, and is ignored"

// TestAuthAnonymousAndBearer pins, with a token configured, what the real
// server (default RBAC) answers each kind of caller; every row was checked
// against kube-apiserver v1.37.2 (conformance cases Anonymous*, Bearer*).
func TestAuthAnonymousAndBearer(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithToken("s3cret"))
	forbidden := func(msg string, d *metav1.StatusDetails) *metav1.Status {
		st := wantFailure(403, metav1.StatusReasonForbidden, msg, d)
		return &st
	}
	tests := []struct {
		name, method, path, auth string
		wantCode                 int
		wantBody                 string         // plain-text answers
		wantStatus               *metav1.Status // Status answers
		wantWarning              string
	}{
		{name: "readyz", path: "/readyz", wantCode: 200, wantBody: "ok"},
		{name: "livez", path: "/livez", wantCode: 200, wantBody: "ok"},
		{name: "healthz", path: "/healthz", wantCode: 200, wantBody: "ok"},
		{name: "readyz verbose", path: "/readyz?verbose", wantCode: 200},
		{name: "version", path: "/version", wantCode: 200},
		{name: "version slash", path: "/version/", wantCode: 200},
		{name: "empty bearer is anonymous", path: "/readyz", auth: "Bearer", wantCode: 200, wantBody: "ok"},
		{name: "basic is anonymous", path: "/healthz", auth: "Basic Zm9vOmJhcg==", wantCode: 200, wantBody: "ok"},
		{name: "wrong token on readyz", path: "/readyz", auth: "Bearer wrong", wantCode: 401,
			wantStatus: func() *metav1.Status {
				s := wantFailure(401, metav1.StatusReasonUnauthorized, "Unauthorized", nil)
				return &s
			}()},
		{name: "check subpath", path: "/readyz/ping", wantCode: 403,
			wantStatus: forbidden(`forbidden: User "system:anonymous" cannot get path "/readyz/ping"`, &metav1.StatusDetails{})},
		{name: "post readyz", method: http.MethodPost, path: "/readyz", wantCode: 403,
			wantStatus: forbidden(`forbidden: User "system:anonymous" cannot post path "/readyz"`, &metav1.StatusDetails{})},
		{name: "discovery", path: "/api", wantCode: 403,
			wantStatus: forbidden(`forbidden: User "system:anonymous" cannot get path "/api"`, &metav1.StatusDetails{})},
		{name: "list", path: "/api/v1/namespaces/default/configmaps", wantCode: 403,
			wantStatus: forbidden(`configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"`,
				&metav1.StatusDetails{Kind: "configmaps"})},
		{name: "get subresource", path: "/api/v1/namespaces/default/pods/x/status", wantCode: 403,
			wantStatus: forbidden(`pods "x" is forbidden: User "system:anonymous" cannot get resource "pods/status" in API group "" in the namespace "default"`,
				&metav1.StatusDetails{Kind: "pods", Name: "x"})},
		{name: "watch cluster scope", path: "/api/v1/configmaps?watch=1", wantCode: 403,
			wantStatus: forbidden(`configmaps is forbidden: User "system:anonymous" cannot watch resource "configmaps" in API group "" at the cluster scope`,
				&metav1.StatusDetails{Kind: "configmaps"})},
		{name: "apps group", path: "/apis/apps/v1/namespaces/default/deployments", wantCode: 403,
			wantStatus: forbidden(`deployments.apps is forbidden: User "system:anonymous" cannot list resource "deployments" in API group "apps" in the namespace "default"`,
				&metav1.StatusDetails{Group: "apps", Kind: "deployments"})},
		{name: "extra space is ignored", path: "/api", auth: "Bearer  s3cret", wantCode: 403,
			wantStatus:  forbidden(`forbidden: User "system:anonymous" cannot get path "/api"`, &metav1.StatusDetails{}),
			wantWarning: `299 - "` + extraSpaceWarning + `"`},
		{name: "lower-case scheme", path: "/api/v1/namespaces/default/configmaps", auth: "bearer s3cret", wantCode: 200},
		{name: "upper-case scheme", path: "/api/v1/namespaces/default/configmaps", auth: "BEARER s3cret", wantCode: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			r := writeResp{code: resp.StatusCode, header: resp.Header, body: body}
			if r.code != tt.wantCode {
				t.Errorf("%s %s = %d, want %d; body %s", method, tt.path, r.code, tt.wantCode, body)
			}
			if tt.wantBody != "" && string(body) != tt.wantBody {
				t.Errorf("body = %q, want %q", body, tt.wantBody)
			}
			if tt.wantStatus != nil {
				if diff := cmp.Diff(*tt.wantStatus, r.status(t)); diff != "" {
					t.Errorf("Status mismatch (-want +got):\n%s", diff)
				}
			}
			if got := resp.Header.Get("Warning"); got != tt.wantWarning {
				t.Errorf("Warning = %q, want %q", got, tt.wantWarning)
			}
			if strings.HasPrefix(tt.path, "/readyz?verbose") && !strings.HasSuffix(string(body), "readyz check passed\n") {
				t.Errorf("verbose body %q, want it to end with the verdict", body)
			}
		})
	}
}
