package fakeapiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// whoamiAs is the user cfg authenticates as (SelfSubjectReview).
func whoamiAs(t *testing.T, cfg *rest.Config) (authenticationv1.UserInfo, error) {
	t.Helper()
	r, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}

// mintToken creates service account sa in default and a token for it.
func mintToken(t *testing.T, cs kubernetes.Interface, sa string, spec authenticationv1.TokenRequestSpec) *authenticationv1.TokenRequest {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("CreateToken(%s): %v", sa, err)
	}
	return tr
}

// TestAuthOpenServer: a server with neither Token nor ClientCA (Start with
// no options) has no credentials to check: a request without any is the
// admin, as before lw-sim authenticated, and so is one with a token it
// does not know; one of its service-account tokens is that account.
func TestAuthOpenServer(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	u, err := whoamiAs(t, srv.RESTConfig())
	if err != nil || u.Username != loopbackUser || !cmp.Equal(u.Groups, []string{"system:authenticated", "system:masters"}) {
		t.Errorf("whoami without credentials = %+v, %v; want the admin", u, err)
	}
	cfg := srv.RESTConfig()
	cfg.BearerToken = "anything"
	if u, err := whoamiAs(t, cfg); err != nil || u.Username != loopbackUser {
		t.Errorf("whoami with an unknown token = %+v, %v; want the admin", u, err)
	}
	cfg.BearerToken = mintToken(t, srv.Clientset(), "robot", authenticationv1.TokenRequestSpec{}).Status.Token
	if u, err := whoamiAs(t, cfg); err != nil || u.Username != "system:serviceaccount:default:robot" {
		t.Errorf("whoami with a service-account token = %+v, %v; want the account", u, err)
	}
}

// TestAuthAlwaysAllow: in the default mode an authenticated user other
// than the admin may do anything, and lists AlwaysAllow's rules, while the
// anonymous user still gets only what the bootstrap policy gives it.
func TestAuthAlwaysAllow(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("t"))
	cfg := srv.RESTConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "alice"}
	alice := kubernetes.NewForConfigOrDie(cfg)
	if _, err := alice.CoreV1().Secrets("kube-system").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Errorf("alice lists secrets: %v, want allowed", err)
	}
	rules, err := alice.AuthorizationV1().SelfSubjectRulesReviews().Create(t.Context(),
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
	if diff := cmp.Diff(want, rules.Status); diff != "" {
		t.Errorf("alice's rules mismatch (-want +got):\n%s", diff)
	}
	anon := kubernetes.NewForConfigOrDie(rest.AnonymousClientConfig(srv.RESTConfig()))
	_, err = anon.CoreV1().Secrets("default").List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("anonymous list = %v, want 403", err)
	}
}

// TestAuthConfigErrors: New refuses what it cannot serve.
func TestAuthConfigErrors(t *testing.T) {
	t.Parallel()
	ca, err := newTestCA()
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"client CA without TLS": {ClientCA: ca.pool()},
		"unknown mode":          {Authorization: "ABAC"},
		"RBAC without rbac":     {Authorization: AuthorizationRBAC, GroupVersions: []schema.GroupVersion{{Version: "v1"}}},
	} {
		if s, err := New(cfg); err == nil {
			_ = s.Close()
			t.Errorf("New(%s) = nil error, want one", name)
		}
	}
}

// TestAuthWithoutRBACServed: a server that does not serve
// rbac.authorization.k8s.io still answers anonymous callers as the
// bootstrap policy does.
func TestAuthWithoutRBACServed(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithToken("t"), WithConfig(func(c *Config) { c.GroupVersions = []schema.GroupVersion{{Version: "v1"}} }))
	anon := kubernetes.NewForConfigOrDie(rest.AnonymousClientConfig(srv.RESTConfig()))
	if _, err := anon.Discovery().ServerVersion(); err != nil {
		t.Errorf("anonymous /version: %v, want allowed", err)
	}
	if _, err := anon.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("anonymous list = %v, want 403", err)
	}
}

// tokenClaims decodes a token's claims.
func decodeClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestServiceAccountTokenLifetime, on the server's clock: a token works
// until its expiry plus a minute's leeway, then is 401; a pod-bound token
// asked for 3607 s (the kubelet's projected token) is valid for a year and
// warns after 3607 s, as kube-apiserver extends it.
func TestServiceAccountTokenLifetime(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := Start(t, WithTLS(), WithToken("t"), WithClock(clk))
	cs := srv.Clientset()
	tr := mintToken(t, cs, "robot", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)})
	if want := clk.Now().Add(600 * time.Second); !tr.Status.ExpirationTimestamp.Time.Equal(want) {
		t.Errorf("expirationTimestamp = %v, want %v", tr.Status.ExpirationTimestamp, want)
	}
	cfg := rest.AnonymousClientConfig(srv.RESTConfig())
	cfg.BearerToken = tr.Status.Token
	clk.Step(600*time.Second + jwtLeeway)
	if _, err := whoamiAs(t, cfg); err != nil {
		t.Errorf("whoami at expiry plus leeway: %v, want the account", err)
	}
	clk.Step(time.Second)
	if _, err := whoamiAs(t, cfg); !apierrors.IsUnauthorized(err) {
		t.Errorf("whoami past expiry = %v, want 401", err)
	}

	pod := newTestPod("p", "nginx")
	pod.Spec.ServiceAccountName = "robot"
	if _, err := cs.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bound := mintToken(t, cs, "robot", authenticationv1.TokenRequestSpec{
		ExpirationSeconds: ptr.To[int64](warnOnlyTokenExpirationSeconds),
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "p"},
	})
	c := decodeClaims(t, bound.Status.Token)
	now := clk.Now().Unix()
	k8s, _ := c["kubernetes.io"].(map[string]any)
	if c["exp"] != float64(now+extendedTokenExpirationSeconds) || k8s["warnafter"] != float64(now+warnOnlyTokenExpirationSeconds) {
		t.Errorf("pod-bound 3607 s token claims %v, want exp a year on and warnafter 3607 s on", c)
	}
	if want := clk.Now().Add(warnOnlyTokenExpirationSeconds * time.Second); !bound.Status.ExpirationTimestamp.Time.Equal(want) {
		t.Errorf("pod-bound expirationTimestamp = %v, want %v (the requested lifetime)", bound.Status.ExpirationTimestamp, want)
	}
}

// TestTokenRequestOnNode: a token bound to a Node names it in its claims
// and dies with it.
func TestTokenRequestOnNode(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("t"))
	cs := srv.Clientset()
	node, err := cs.CoreV1().Nodes().Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := mintToken(t, cs, "robot", authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Node", APIVersion: "v1", Name: "n1"}})
	cfg := rest.AnonymousClientConfig(srv.RESTConfig())
	cfg.BearerToken = tr.Status.Token
	u, err := whoamiAs(t, cfg)
	if err != nil || !cmp.Equal(u.Extra["authentication.kubernetes.io/node-uid"], authenticationv1.ExtraValue{string(node.UID)}) {
		t.Errorf("whoami with a node-bound token = %+v, %v; want the node's uid in extra", u, err)
	}
	if err := cs.CoreV1().Nodes().Delete(t.Context(), "n1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := whoamiAs(t, cfg); !apierrors.IsUnauthorized(err) {
		t.Errorf("whoami after the node is gone = %v, want 401", err)
	}
}

// testCA is a CA for client certificates.
type testCA struct{ cert *x509.Certificate }

func newTestCA() (*testCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	c, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "test-ca"}, key)
	if err != nil {
		return nil, err
	}
	return &testCA{cert: c}, nil
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}
