package fakeapiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestCSRApprovalAndStatus drives a CertificateSigningRequest the way a
// CSR approver and a signer do through client-go: UpdateApproval stores
// the Approved condition stamped with the server's clock and nothing
// else; UpdateStatus stores the certificate, keeps the stored Approved
// condition, and refuses a Denied condition or a second certificate.
func TestCSRApprovalAndStatus(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC))
	srv := Start(t, WithClock(clk))
	csrs := srv.Clientset().CertificatesV1().CertificateSigningRequests()
	ctx := t.Context()
	csr, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/s", Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}

	approvedAt := metav1.NewTime(clk.Now())
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "R"}}
	csr.Status.Certificate = []byte("not through approval")
	csr, err = csrs.UpdateApproval(ctx, "c", csr, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("UpdateApproval: %v", err)
	}
	approved := []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
		Reason: "R", LastUpdateTime: approvedAt, LastTransitionTime: approvedAt}}
	if diff := cmp.Diff(approved, csr.Status.Conditions); diff != "" || csr.Status.Certificate != nil {
		t.Fatalf("after UpdateApproval: certificate %q, conditions (-want +got):\n%s", csr.Status.Certificate, diff)
	}

	clk.Step(time.Minute)
	cert := pemCertificate(t)
	csr.Status.Conditions[0].Reason = "changed through /status"
	csr.Status.Certificate = cert
	csr, err = csrs.UpdateStatus(ctx, csr, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("UpdateStatus (certificate): %v", err)
	}
	if diff := cmp.Diff(approved, csr.Status.Conditions); diff != "" || string(csr.Status.Certificate) != string(cert) {
		t.Fatalf("after UpdateStatus: certificate stored %v, conditions (-want +got):\n%s", string(csr.Status.Certificate) == string(cert), diff)
	}

	denied := csr.DeepCopy()
	denied.Status.Conditions = append(denied.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue})
	_, err = csrs.UpdateStatus(ctx, denied, metav1.UpdateOptions{})
	wantCauses := []metav1.StatusCause{
		{Type: metav1.CauseTypeForbidden, Field: "status.conditions", Message: `Forbidden: updates may not add a condition of type "Denied"`},
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "status.conditions", Message: `Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": ` +
			"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"},
	}
	checkInvalidCauses(t, "UpdateStatus (Denied)", err, wantCauses)

	other := csr.DeepCopy()
	other.Status.Certificate = pemCertificate(t)
	_, err = csrs.UpdateStatus(ctx, other, metav1.UpdateOptions{})
	checkInvalidCauses(t, "UpdateStatus (another certificate)", err, []metav1.StatusCause{{Type: metav1.CauseTypeForbidden, Field: "status.certificate",
		Message: "Forbidden: updates may not modify existing certificate content"}})
}

// checkInvalidCauses fails the test unless err is a 422 Invalid with
// exactly the causes want.
func checkInvalidCauses(t *testing.T, what string, err error, want []metav1.StatusCause) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("%s: error %v, want Invalid", what, err)
	}
	var got []metav1.StatusCause
	if d := err.(apierrors.APIStatus).Status().Details; d != nil {
		got = d.Causes
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: causes (-want +got):\n%s", what, diff)
	}
}

// pemCertificate is a new self-signed certificate, PEM-encoded.
func pemCertificate(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<31, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
