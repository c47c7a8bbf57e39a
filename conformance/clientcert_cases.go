package conformance

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// clientcertCases are the cases of this file, in the order [Cases] runs them.
func clientcertCases() []Case {
	return []Case{
		{Name: "ClientCertificates", Run: runClientCertificates},
	}
}

// withCert is a client authenticating with a client certificate alone.
func withCert(t testing.TB, target Target, certPEM, keyPEM []byte) *client {
	t.Helper()
	return withCredentials(t, target, func(c *rest.Config) { c.CertData, c.KeyData = certPEM, keyPEM })
}

// issuer is target's ClientCertIssuer, or skips the case.
func issuer(t *testing.T, target Target) ClientCertIssuer {
	t.Helper()
	ci, ok := target.(ClientCertIssuer)
	if !ok {
		t.Skipf("target %s cannot make client certificates", target.Name())
	}
	if _, _, err := ci.IssueClientCert("probe"); errors.Is(err, ErrNoClientCA) {
		t.Skipf("target %s: %v (set LWSIM_CLIENT_CA)", target.Name(), err)
	}
	return ci
}

// runClientCertificates: a client certificate the server's client CA
// signed is the user its subject names, CN the user and O the groups
// (envtest's AddUser), with the certificate's SHA-256 as credential ID;
// RBAC binds by user and group alike. A certificate of another CA is 401,
// and so is one with no CN: it names nobody, and the front proxy's
// request-header authenticator, which every certificate meets on a
// cluster that serves aggregated APIs, fails it.
func runClientCertificates(ctx context.Context, t *testing.T, target Target) {
	ci := issuer(t, target)
	e := setup(ctx, t, target)
	user := uniqueUser("heidi")
	certPEM, keyPEM, err := ci.IssueClientCert(user, "devs", "ops")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	sum := sha256.Sum256(block.Bytes)
	parsed, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// The groups in the order the certificate holds them (DER sorts the
	// values of one attribute).
	var groups []any
	for _, o := range parsed.Subject.Organization {
		groups = append(groups, o)
	}
	c := withCert(t, target, certPEM, keyPEM)
	_, u := whoami(ctx, t, c)
	want := object{"username": user, "groups": append(groups, "system:authenticated"),
		"extra": object{"authentication.kubernetes.io/credential-id": []any{"X509SHA256=" + hex.EncodeToString(sum[:])}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("whoami with a client certificate mismatch (-want +got):\n%s", diff)
	}
	checkStatus(t, "list pods as the certificate's user", c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}),
		forbidden(fmt.Sprintf(`pods is forbidden: User %q cannot list resource "pods" in API group "" in the namespace %q`, user, e.ns), &metav1.StatusDetails{Kind: "pods"}))
	e.createRole(ctx, "lister", rule(strs("list"), strs(""), strs("pods")))
	e.bindRole(ctx, "ops", "Role", "lister", groupSubject("ops"))
	if r := until(ctx, hasCode(http.StatusOK), func() response { return c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}) }); r.Code != http.StatusOK {
		t.Errorf("list pods with the group bound: HTTP %d, want 200; body %s", r.Code, r.Body)
	}

	other, err := newClientCA()
	if err != nil {
		t.Fatal(err)
	}
	foreignCert, foreignKey, err := other.issue(user, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := whoami(ctx, t, withCert(t, target, foreignCert, foreignKey))
	checkStatus(t, "whoami with another CA's certificate", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))

	nameless, namelessKey, err := ci.IssueClientCert("")
	if err != nil {
		t.Fatal(err)
	}
	r, _ = whoami(ctx, t, withCert(t, target, nameless, namelessKey))
	checkStatus(t, "whoami with a certificate without CN", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
}
