package conformance

// Cases for the status strategies of HorizontalPodAutoscalers and
// CertificateSigningRequests: an HPA's replica counters and condition
// generations are not negative (in both served versions); a CSR's
// conditions are well formed, its Approved and Denied conditions do not
// change through /status, and its certificate is PEM, set once.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hpaCsrStatusCases are the cases of this file, in the order [Cases] runs them.
func hpaCsrStatusCases() []Case {
	return []Case{
		{Name: "ValidateHPAStatus", Run: runValidateHPAStatus},
		{Name: "ValidateCSRStatusConditions", Run: runValidateCSRStatusConditions},
		{Name: "ValidateCSRStatusCertificate", Run: runValidateCSRStatusCertificate},
		{Name: "CSRApproval", Run: runCSRApproval},
		{Name: "CSRApprovalApply", Run: runCSRApprovalApply},
	}
}

// hpa is an autoscaling HorizontalPodAutoscaler body of apiVersion gv
// scaling the Deployment "d".
func hpa(gv, name string) object {
	return object{"apiVersion": gv, "kind": "HorizontalPodAutoscaler", "metadata": object{"name": name},
		"spec": object{"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}}
}

// runValidateHPAStatus: an autoscaling/v2 status write checks each
// condition's observedGeneration, then currentReplicas and
// desiredReplicas, none negative; status.observedGeneration and the
// current metrics are not checked (their declarative rules are alpha).
// autoscaling/v1 checks the same counters under the same paths.
func runValidateHPAStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	v2 := "/apis/autoscaling/v2/namespaces/" + e.ns + "/horizontalpodautoscalers"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: v2, Body: hpa("autoscaling/v2", "h")})
	r.mustCode(t, http.StatusCreated, "create v2 hpa")
	var created struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	r.decode(t, &created)
	// HPAGeneration (beta, on in v1.37) makes the strategy track generation.
	if created.Metadata.Generation != 1 {
		t.Errorf("v2 hpa generation after create = %d, want 1", created.Metadata.Generation)
	}
	r = e.patchStatus(ctx, v2+"/h", object{"currentReplicas": -1, "desiredReplicas": -2,
		"conditions": []any{object{"type": "AbleToScale", "status": "True", "observedGeneration": -3}}})
	checkStatus(t, "v2 negative counters", r, invalid("HorizontalPodAutoscaler", "autoscaling", "h",
		invalidInt("status.conditions[0].observedGeneration", "-3", nonNegativeMsg),
		invalidInt("status.currentReplicas", "-1", nonNegativeMsg),
		invalidInt("status.desiredReplicas", "-2", nonNegativeMsg)))

	r = e.patchStatus(ctx, v2+"/h", object{"currentReplicas": 1, "desiredReplicas": 2, "observedGeneration": -5,
		"currentMetrics": []any{object{"type": "Object", "object": object{"describedObject": object{}, "metric": object{"name": ""}, "current": object{}}}}})
	r.mustCode(t, http.StatusOK, "v2 status with a negative observedGeneration and an empty describedObject")
	// A spec change moves the generation, the status write did not.
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: v2 + "/h", ContentType: mergePatchType, Body: object{"spec": object{"maxReplicas": 4}}})
	r.mustCode(t, http.StatusOK, "patch v2 spec")
	r.decode(t, &created)
	if created.Metadata.Generation != 2 {
		t.Errorf("v2 hpa generation after a status write and a spec change = %d, want 2", created.Metadata.Generation)
	}

	v1 := "/apis/autoscaling/v1/namespaces/" + e.ns + "/horizontalpodautoscalers"
	e.createAt(ctx, v1, hpa("autoscaling/v1", "one"), "create v1 hpa")
	r = e.patchStatus(ctx, v1+"/one", object{"currentReplicas": -1, "desiredReplicas": -1})
	checkStatus(t, "v1 negative counters", r, invalid("HorizontalPodAutoscaler", "autoscaling", "one",
		invalidInt("status.currentReplicas", "-1", nonNegativeMsg),
		invalidInt("status.desiredReplicas", "-1", nonNegativeMsg)))
	e.patchStatus(ctx, v1+"/one", object{"currentReplicas": 2, "desiredReplicas": 1}).mustCode(t, http.StatusOK, "valid v1 status")
}

// csrPath is the collection path of CertificateSigningRequests.
const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

// createCSR creates a CertificateSigningRequest with a freshly signed
// PKCS#10 request, named after the case's namespace (CSRs are
// cluster-scoped), deleted when the test ends; it returns its path.
func (e *env) createCSR(ctx context.Context, target Target) string {
	e.t.Helper()
	key := newKey(e.t)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "lw-sim"}}, key)
	if err != nil {
		e.t.Fatalf("create certificate request: %v", err)
	}
	name := e.ns + "-csr"
	// The creator owns the label alone (the main resource resets spec):
	// an object created with no field owned is not tracked until an
	// apply, so the label makes the later writes recorded.
	e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: csrPath, Query: q("fieldManager", "creator"),
		Body: object{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
			"metadata": object{"name": name, "labels": object{"app": "csr"}},
			"spec": object{"request": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
				"signerName": "example.com/signer", "usages": []any{"digital signature"}}}}).mustCode(e.t, http.StatusCreated, "create csr")
	e.t.Cleanup(func() {
		c := newClient(e.t, target)
		c.do(context.WithoutCancel(ctx), e.t, request{Method: http.MethodDelete, Path: csrPath + "/" + name})
	})
	return csrPath + "/" + name
}

// newKey is a fresh P-256 key.
func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return key
}

// selfSigned is a PEM CERTIFICATE block of a new self-signed certificate.
func selfSigned(t testing.TB, cn string) []byte {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("create certificate: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// Messages of the CSR condition rules (kubernetes
// pkg/apis/certificates/validation and the declarative zeroOrOneOf union).
const (
	csrUnionValue = `Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": ` +
		"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"
	csrAddApproved = `Forbidden: updates may not add a condition of type "Approved"`
	csrAddDenied   = `Forbidden: updates may not add a condition of type "Denied"`
	csrKind        = "CertificateSigningRequest"
	csrGroup       = "certificates.k8s.io"
)

// csrConditions are the status.conditions of the CSR in r's body.
func csrConditions(t testing.TB, r response) []any {
	t.Helper()
	var csr object
	r.decode(t, &csr)
	status, _ := csr["status"].(map[string]any)
	conditions, _ := status["conditions"].([]any)
	return conditions
}

// runValidateCSRStatusConditions: a CSR status write checks each
// condition (type and status required, status True only for Approved,
// Denied and Failed, no repeated type), may not add an Approved or a
// Denied condition (the declarative Approved/Denied exclusivity comes
// last), may add a Failed condition, whose missing timestamps the server
// fills, and may not remove it again.
func runValidateCSRStatusConditions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := e.createCSR(ctx, target)
	name := path[len(csrPath)+1:]

	r := e.patchStatus(ctx, path, object{"conditions": []any{object{"type": "", "status": ""},
		object{"type": "Failed", "status": "False"}, object{"type": "X", "status": "Maybe"}, object{"type": "X", "status": "True"}}})
	checkStatus(t, "malformed conditions", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeFieldValueRequired, "status.conditions[0].type", "Required value"),
		cause(metav1.CauseTypeFieldValueRequired, "status.conditions[0].status", "Required value"),
		cause(metav1.CauseTypeFieldValueNotSupported, "status.conditions[1].status", `Unsupported value: "False": supported values: "True"`),
		cause(metav1.CauseTypeFieldValueNotSupported, "status.conditions[2].status", `Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`),
		cause(metav1.CauseTypeFieldValueDuplicate, "status.conditions[3].type", `Duplicate value: "X"`)))

	r = e.patchStatus(ctx, path, object{"conditions": []any{condition("Approved")}})
	checkStatus(t, "add Approved through /status", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.conditions", csrAddApproved)))

	r = e.patchStatus(ctx, path, object{"conditions": []any{condition("Denied"), condition("Approved")}})
	checkStatus(t, "add Denied and Approved through /status", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.conditions", csrAddApproved),
		cause(metav1.CauseTypeForbidden, "status.conditions", csrAddDenied),
		cause(metav1.CauseTypeFieldValueInvalid, "status.conditions", csrUnionValue)))

	r = e.patchStatus(ctx, path, object{"conditions": []any{object{"type": "Failed", "status": "True", "reason": "Broken"}}})
	r.mustCode(t, http.StatusOK, "add Failed through /status")
	conditions := csrConditions(t, r)
	if len(conditions) != 1 {
		t.Fatalf("conditions after adding Failed = %v, want one", conditions)
	}
	failed := conditions[0].(map[string]any)
	if failed["lastUpdateTime"] == nil || failed["lastTransitionTime"] == nil {
		t.Errorf("Failed condition %v: lastUpdateTime and lastTransitionTime not filled", failed)
	}

	r = e.patchStatus(ctx, path, object{"conditions": nil})
	checkStatus(t, "remove Failed", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.conditions", `Forbidden: updates may not remove a condition of type "Failed"`)))
}

// runValidateCSRStatusCertificate: status.certificate must hold
// CERTIFICATE PEM blocks without headers, of parseable certificates, and
// once set may not change; setting the same bytes again is allowed.
func runValidateCSRStatusCertificate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := e.createCSR(ctx, target)
	name := path[len(csrPath)+1:]
	badCert := func(msg string) statusShape {
		return invalid(csrKind, csrGroup, name, invalidValue("status.certificate", "<certificate data>", msg))
	}

	checkStatus(t, "not PEM", e.patchStatus(ctx, path, object{"certificate": []byte("junk")}),
		badCert("must contain at least one CERTIFICATE PEM block"))
	checkStatus(t, "a KEY block", e.patchStatus(ctx, path, object{"certificate": pem.EncodeToMemory(&pem.Block{Type: "KEY", Bytes: []byte{1}})}),
		badCert(`only CERTIFICATE PEM blocks are allowed, found "KEY"`))
	cert := selfSigned(t, "one")
	block, _ := pem.Decode(cert)
	block.Headers = map[string]string{"Proc-Type": "4,ENCRYPTED"}
	checkStatus(t, "a block with headers", e.patchStatus(ctx, path, object{"certificate": pem.EncodeToMemory(block)}),
		badCert("no PEM block headers are permitted"))

	e.patchStatus(ctx, path, object{"certificate": cert}).mustCode(t, http.StatusOK, "set a certificate")
	e.patchStatus(ctx, path, object{"certificate": cert, "conditions": []any{object{"type": "Issued", "status": "True"}}}).
		mustCode(t, http.StatusOK, "the same certificate again")
	r := e.patchStatus(ctx, path, object{"certificate": selfSigned(t, "two")})
	checkStatus(t, "replace the certificate", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.certificate", "Forbidden: updates may not modify existing certificate content")))
	r = e.patchStatus(ctx, path, object{"certificate": nil})
	checkStatus(t, "clear the certificate", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.certificate", "Forbidden: updates may not modify existing certificate content")))
}

// patchApproval merge-patches the status of a CSR through its approval
// subresource.
func (e *env) patchApproval(ctx context.Context, path string, status object) response {
	return e.c.do(ctx, e.t, request{Method: http.MethodPatch, Path: path + "/approval",
		Body: object{"status": status}, ContentType: mergePatchType})
}

// conditionField is field key of the i-th condition in conditions.
func conditionField(t testing.TB, conditions []any, i int, key string) any {
	t.Helper()
	if i >= len(conditions) {
		t.Fatalf("conditions %v: no condition %d", conditions, i)
	}
	return conditions[i].(map[string]any)[key]
}

// runCSRApproval: the approval subresource (what kubectl certificate
// approve writes) stores the written conditions and nothing else (a
// certificate in the body is dropped); it may add, change or drop an
// Approved condition's details but not remove one, nor hold Approved and
// Denied together. Through /status the stored Approved condition is put
// back when a write changes it, and removing it is refused; the main
// resource changes neither spec nor status.
func runCSRApproval(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := e.createCSR(ctx, target)
	name := path[len(csrPath)+1:]

	r := e.c.do(ctx, t, request{Method: http.MethodGet, Path: path + "/approval"})
	r.mustCode(t, http.StatusOK, "get approval")
	var csr object
	r.decode(t, &csr)
	if csr["kind"] != csrKind {
		t.Errorf("get approval: kind %v, want %s", csr["kind"], csrKind)
	}
	csr["status"] = object{"certificate": selfSigned(t, "ignored"),
		"conditions": []any{object{"type": "Approved", "status": "True", "reason": "AutoApproved", "message": "ok"}}}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/approval?fieldManager=approver", Body: csr})
	r.mustCode(t, http.StatusOK, "approve")
	var approved struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Status   map[string]any    `json:"status"`
	}
	r.decode(t, &approved)
	if _, ok := approved.Status["certificate"]; ok {
		t.Errorf("approve: the certificate in the body was stored")
	}
	checkApprovalManagedFields(t, approved.Metadata.ManagedFields)
	conditions := csrConditions(t, r)
	if conditionField(t, conditions, 0, "lastUpdateTime") == nil || conditionField(t, conditions, 0, "lastTransitionTime") == nil {
		t.Errorf("approve: condition timestamps not filled: %v", conditions)
	}

	r = e.patchApproval(ctx, path, object{"conditions": []any{condition("Approved"), condition("Denied")}})
	checkStatus(t, "Approved and Denied through /approval", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeFieldValueInvalid, "status.conditions", csrUnionValue)))
	r = e.patchApproval(ctx, path, object{"conditions": []any{object{"type": "Approved", "status": "False"}, object{"type": "Failed", "status": "True"}}})
	checkStatus(t, "Approved=False through /approval", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeFieldValueNotSupported, "status.conditions[0].status", `Unsupported value: "False": supported values: "True"`)))
	r = e.patchApproval(ctx, path, object{"conditions": nil})
	checkStatus(t, "remove Approved through /approval", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.conditions", `Forbidden: updates may not remove a condition of type "Approved"`)))

	r = e.patchStatus(ctx, path, object{"conditions": []any{object{"type": "Approved", "status": "True", "reason": "Changed"}}})
	r.mustCode(t, http.StatusOK, "change Approved through /status")
	if got := conditionField(t, csrConditions(t, r), 0, "reason"); got != "AutoApproved" {
		t.Errorf("Approved reason after a /status write = %v, want the stored AutoApproved", got)
	}
	r = e.patchStatus(ctx, path, object{"conditions": nil})
	checkStatus(t, "remove Approved through /status", r, invalid(csrKind, csrGroup, name,
		cause(metav1.CauseTypeForbidden, "status.conditions", `Forbidden: updates may not remove a condition of type "Approved"`)))

	// The main resource keeps spec and status: a patch of either is a no-op.
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path, ContentType: mergePatchType,
		Body: object{"spec": object{"signerName": "example.com/other"}, "status": object{"conditions": nil}}})
	r.mustCode(t, http.StatusOK, "patch spec and status of the main resource")
	var patched struct {
		Spec map[string]any `json:"spec"`
	}
	r.decode(t, &patched)
	if got := patched.Spec["signerName"]; got != "example.com/signer" || len(csrConditions(t, r)) != 1 {
		t.Errorf("main resource patch: signerName %v and conditions %v, want the stored example.com/signer and Approved", got, csrConditions(t, r))
	}

	r = e.patchApproval(ctx, path, object{"conditions": []any{object{"type": "Approved", "status": "True", "reason": "Again"}, condition("Failed")}})
	r.mustCode(t, http.StatusOK, "change Approved and add Failed through /approval")
	if got := conditionField(t, csrConditions(t, r), 0, "reason"); got != "Again" {
		t.Errorf("Approved reason after an /approval write = %v, want Again", got)
	}
}

// checkApprovalManagedFields: the approver's entry, first, is an Update of
// the approval subresource owning the Approved condition as written (its
// unset timestamps included), not the certificate (reset); the creator
// owns the label only (the main resource resets spec).
func checkApprovalManagedFields(t testing.TB, entries []metav1.ManagedFieldsEntry) {
	t.Helper()
	type entry struct{ Manager, Operation, Subresource, Fields string }
	var got []entry
	for _, m := range entries {
		e := entry{Manager: m.Manager, Operation: string(m.Operation), Subresource: m.Subresource}
		if m.FieldsV1 != nil {
			e.Fields = string(m.FieldsV1.Raw)
		}
		got = append(got, e)
	}
	want := []entry{
		{"approver", "Update", "approval", `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Approved\"}":{".":{},` +
			`"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`},
		{"creator", "Update", "", `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managedFields after approval (-want +got):\n%s", diff)
	}
}

// runCSRApprovalApply: a server-side apply to the approval subresource
// stores its conditions under an Apply entry of subresource "approval"
// (beside the creator's); an apply to the approval of a missing CSR is
// 404, it never creates.
func runCSRApprovalApply(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := e.createCSR(ctx, target)
	name := path[len(csrPath)+1:]
	body := object{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": object{"name": name},
		"status": object{"conditions": []any{object{"type": "Approved", "status": "True", "reason": "Applied"}}}}
	apply := func(path string) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/approval", Query: q("fieldManager", "applier"),
			ContentType: "application/apply-patch+yaml", Body: body})
	}
	r := apply(path)
	r.mustCode(t, http.StatusOK, "apply to approval")
	if got := conditionField(t, csrConditions(t, r), 0, "reason"); got != "Applied" {
		t.Errorf("Approved reason after the apply = %v, want Applied", got)
	}
	var applied struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	r.decode(t, &applied)
	type entry struct{ Manager, Operation, Subresource, Fields string }
	var got []entry
	for _, m := range applied.Metadata.ManagedFields {
		got = append(got, entry{m.Manager, string(m.Operation), m.Subresource, string(m.FieldsV1.Raw)})
	}
	want := []entry{
		{"applier", "Apply", "approval", `{"f:status":{"f:conditions":{"k:{\"type\":\"Approved\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`},
		{"creator", "Update", "", `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managedFields after the apply (-want +got):\n%s", diff)
	}
	apply(csrPath+"/"+name+"-missing").mustCode(t, http.StatusNotFound, "apply to the approval of a missing CSR")
}
