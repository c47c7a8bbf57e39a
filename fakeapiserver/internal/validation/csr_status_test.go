package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCSRStatusToleratesStoredData: bad data the stored object already
// has (Approved with Denied, a repeated or empty condition type, a
// certificate that is not PEM) does not fail a write that keeps it, as
// getValidationOptions and the declarative ratchet allow; the same data
// written onto a clean object fails. No HTTP path can store such an
// object (the real server refuses it), so this is the one check of that
// tolerance.
func TestCSRStatusToleratesStoredData(t *testing.T) {
	t.Parallel()
	cond := func(typ string) certificatesv1.CertificateSigningRequestCondition {
		return certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.RequestConditionType(typ), Status: corev1.ConditionTrue}
	}
	bad := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"},
		Status: certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("junk"),
			Conditions: []certificatesv1.CertificateSigningRequestCondition{cond("Approved"), cond("Denied"), cond("X"), cond("X"), cond("")}}}
	next := bad.DeepCopy()
	next.Status.Conditions = append(next.Status.Conditions, cond("Failed"))
	if errs := CSRStatus(next, bad); len(errs) != 0 {
		t.Errorf("status write keeping stored bad data: %v, want no errors", errs)
	}
	if errs := ValidateCSRApprovalUpdate(next, bad); len(errs) != 0 {
		t.Errorf("approval write keeping stored bad data: %v, want no errors", errs)
	}

	clean := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}}
	conditions := field.NewPath("status", "conditions")
	want := field.ErrorList{
		field.Duplicate(conditions.Index(3).Child("type"), certificatesv1.RequestConditionType("X")),
		field.Required(conditions.Index(4).Child("type"), ""),
		field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", "must contain at least one CERTIFICATE PEM block"),
		field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"),
		field.Invalid(conditions, "{"+csrUnionMembers[0].name+", "+csrUnionMembers[1].name+"}",
			"must specify at most one of: `"+csrUnionMembers[0].name+"`, `"+csrUnionMembers[1].name+"`").WithOrigin("zeroOrOneOf"),
	}
	if diff := cmp.Diff(want.ToAggregate().Error(), ValidateCSRApprovalUpdate(next, clean).ToAggregate().Error()); diff != "" {
		t.Errorf("approval write of the bad data onto a clean object (-want +got):\n%s", diff)
	}
}
