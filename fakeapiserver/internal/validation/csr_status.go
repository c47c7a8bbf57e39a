package validation

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// csrConditionsPath and csrCertificatePath are the CSR status fields the
// status and approval strategies check.
var (
	csrConditionsPath  = statusPath.Child("conditions")
	csrCertificatePath = statusPath.Child("certificate")
)

// csrTrueOnlyTypes are the condition types whose status may only be True
// (certificates validation's trueConditionTypes).
var csrTrueOnlyTypes = map[certificatesv1.RequestConditionType]bool{
	certificatesv1.CertificateApproved: true,
	certificatesv1.CertificateDenied:   true,
	certificatesv1.CertificateFailed:   true,
}

// csrStatusValues are the supported condition statuses, sorted as
// sets.String.List reports them in the NotSupported message.
var (
	csrAllStatusValues = []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
	csrTrueStatusOnly  = []string{string(corev1.ConditionTrue)}
)

// csrOptions are certificates validation's certificateValidationOptions
// that a status or approval write depends on: what the subresource may
// change, and the bad data tolerated because the stored object already
// has it.
type csrOptions struct {
	allowSettingApprovalConditions bool
	allowSettingCertificate        bool
	allowDuplicateConditionTypes   bool
	allowEmptyConditionType        bool
	allowArbitraryCertificate      bool
}

// csrOptionsFor is certificates validation's getValidationOptions for an
// update of old to csr (allowResettingCertificate is always false).
func csrOptionsFor(csr, old *certificatesv1.CertificateSigningRequest) csrOptions {
	seen := map[certificatesv1.RequestConditionType]bool{}
	var opts csrOptions
	for _, c := range old.Status.Conditions {
		opts.allowDuplicateConditionTypes = opts.allowDuplicateConditionTypes || seen[c.Type]
		opts.allowEmptyConditionType = opts.allowEmptyConditionType || c.Type == ""
		seen[c.Type] = true
	}
	// An update that leaves the certificate alone, or whose stored
	// certificate is already bad, is not held to the PEM rules.
	opts.allowArbitraryCertificate = bytes.Equal(csr.Status.Certificate, old.Status.Certificate) ||
		validateCSRCertificate(old.Status.Certificate) != nil
	return opts
}

// CSRStatus is certificates validation's
// ValidateCertificateSigningRequestStatusUpdate, run after the status
// strategy's PrepareForUpdate (which puts back the stored Approved and
// Denied conditions unless their number changed): the certificate may be
// set once, the approval conditions may not change.
func CSRStatus(csr, o *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := csrOptionsFor(csr, o)
	opts.allowSettingCertificate = true
	return validateCSRUpdate(csr, o, opts)
}

// ValidateCSRApprovalUpdate is certificates validation's
// ValidateCertificateSigningRequestApprovalUpdate, the validation of a
// write through the approval subresource: the conditions may change (but
// none of type Approved, Denied or Failed be removed), the certificate
// not. It is a [Func]; old is never nil.
func ValidateCSRApprovalUpdate(obj, old runtime.Object) field.ErrorList {
	return TypedPair(validateCSRApprovalUpdate)(obj, old)
}

// validateCSRApprovalUpdate is [ValidateCSRApprovalUpdate] on the typed
// objects.
func validateCSRApprovalUpdate(csr, o *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := csrOptionsFor(csr, o)
	opts.allowSettingApprovalConditions = true
	return validateCSRUpdate(csr, o, opts)
}

// validateCSRUpdate is certificates validation's
// validateCertificateSigningRequestUpdate followed by the declarative
// validation kube-apiserver runs after it.
//
// The spec checks of validateCertificateSigningRequest (request signature,
// usages, signerName, expirationSeconds) are left out: both subresources
// keep the stored spec, which the real server validated on create. The
// handwritten "mutually exclusive" error is left out too: the beta
// declarative zeroOrOneOf rule on status.conditions covers it, and with
// DeclarativeValidationBeta on by default the handwritten errors are
// dropped and the declarative one is appended after all the others.
func validateCSRUpdate(csr, old *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	errs := validateCSRConditions(csr.Status.Conditions, opts)
	if !opts.allowArbitraryCertificate {
		if err := validateCSRCertificate(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(csrCertificatePath, "<certificate data>", err.Error()))
		}
	}
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if countCSRConditions(csr, t) < countCSRConditions(old, t) {
			errs = append(errs, field.Forbidden(csrConditionsPath, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.allowSettingApprovalConditions {
		// A changed Approved or Denied condition would be "may not modify"
		// with a diff of the internal type, but the status strategy has
		// already put the stored ones back whenever their number is
		// unchanged, so only additions remain to report.
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			if countCSRConditions(csr, t) > countCSRConditions(old, t) {
				errs = append(errs, field.Forbidden(csrConditionsPath, fmt.Sprintf("updates may not add a condition of type %q", t)))
			}
		}
	}
	errs = append(errs, validateCSRCertificateChange(csr.Status.Certificate, old.Status.Certificate, opts)...)
	errs = append(errs, MetaUpdate(csr, old)...)
	return append(errs, csrApprovedDeniedUnion(csr.Status.Conditions, old.Status.Conditions)...)
}

// validateCSRConditions is certificates validation's validateConditions
// without the Approved/Denied exclusivity (csrApprovedDeniedUnion): a
// type is required and not repeated, a status is required and one of
// True, False, Unknown (True only for Approved, Denied and Failed).
func validateCSRConditions(conditions []certificatesv1.CertificateSigningRequestCondition, opts csrOptions) field.ErrorList {
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	for i, c := range conditions {
		path := csrConditionsPath.Index(i)
		if !opts.allowEmptyConditionType && c.Type == "" {
			errs = append(errs, field.Required(path.Child("type"), ""))
		}
		allowed := csrAllStatusValues
		if csrTrueOnlyTypes[c.Type] {
			allowed = csrTrueStatusOnly
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(path.Child("status"), ""))
		case !containsString(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(path.Child("status"), c.Status, allowed))
		}
		if !opts.allowDuplicateConditionTypes {
			if seen[c.Type] {
				errs = append(errs, field.Duplicate(path.Child("type"), c.Type))
			}
			seen[c.Type] = true
		}
	}
	return errs
}

// validateCSRCertificateChange is the rule on status.certificate: only the
// status subresource may set it, and only while it is empty.
func validateCSRCertificateChange(cert, old []byte, opts csrOptions) field.ErrorList {
	switch {
	case bytes.Equal(cert, old):
		return nil
	case !opts.allowSettingCertificate:
		return field.ErrorList{field.Forbidden(csrCertificatePath, "updates may not set certificate content")}
	case len(old) > 0:
		return field.ErrorList{field.Forbidden(csrCertificatePath, "updates may not modify existing certificate content")}
	}
	return nil
}

// csrUnionMembers are the members of the declarative zeroOrOneOf union on
// status.conditions, in declaration order.
var csrUnionMembers = []struct {
	name string
	typ  certificatesv1.RequestConditionType
}{
	{`conditions[{"type": "Approved"}]`, certificatesv1.CertificateApproved},
	{`conditions[{"type": "Denied"}]`, certificatesv1.CertificateDenied},
}

// csrApprovedDeniedUnion is the declarative +k8s:zeroOrOneOfMember rule of
// certificates/v1 CertificateSigningRequestStatus.Conditions
// (validate.ZeroOrOneOfUnion): at most one of an Approved and a Denied
// condition. It ratchets: conditions semantically equal to the stored
// ones, or an update that neither adds nor removes either type, are not
// checked, so a stored object with both stays writable.
func csrApprovedDeniedUnion(conditions, old []certificatesv1.CertificateSigningRequestCondition) field.ErrorList {
	if len(conditions) == 0 || apiequality.Semantic.DeepEqual(conditions, old) {
		return nil
	}
	var specified, all []string
	changed := false
	for _, m := range csrUnionMembers {
		has := hasCSRCondition(conditions, m.typ)
		changed = changed || has != hasCSRCondition(old, m.typ)
		if has {
			specified = append(specified, m.name)
		}
		// UnionMembership.allFields quotes each member in backticks.
		all = append(all, "`"+m.name+"`")
	}
	if (old != nil && !changed) || len(specified) < 2 {
		return nil
	}
	return field.ErrorList{field.Invalid(csrConditionsPath, "{"+strings.Join(specified, ", ")+"}",
		"must specify at most one of: "+strings.Join(all, ", ")).WithOrigin("zeroOrOneOf")}
}

// hasCSRCondition reports whether conditions has one of type t.
func hasCSRCondition(conditions []certificatesv1.CertificateSigningRequestCondition, t certificatesv1.RequestConditionType) bool {
	for _, c := range conditions {
		if c.Type == t {
			return true
		}
	}
	return false
}

// countCSRConditions is the number of csr's conditions of type t.
func countCSRConditions(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) int {
	n := 0
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			n++
		}
	}
	return n
}

// validateCSRCertificate is certificates validation's validateCertificate:
// empty, or one or more CERTIFICATE PEM blocks without headers, each
// holding parseable X.509 certificates.
func validateCSRCertificate(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// containsString reports whether s is in list.
func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
