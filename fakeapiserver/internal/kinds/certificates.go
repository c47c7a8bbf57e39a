package kinds

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// certificatesKinds: kubernetes pkg/registry/certificates/
// {certificates,clustertrustbundle,podcertificaterequest}/strategy.go.
// Validation: internal/validation csr_status.go; printers: internal/tables
// printers_certificates.go; field labels: internal/fieldlabels (CSR
// signerName). The approval subresource's strategy is the server's
// (subresource_approval.go).
var certificatesKinds = []kind{
	{gk("certificates.k8s.io", "CertificateSigningRequest"), Strategy{
		ValidateStatus: validation.TypedPair(validation.CSRStatus),
		ClusterScoped:  true,
		// A CSR's spec is immutable through the main resource
		// (csrStrategy.PrepareForUpdate), so no writer owns it there.
		ResetFields: ResetFields{
			Main:   []fieldpath.Path{fieldpath.MakePathOrDie("spec")},
			Status: []fieldpath.Path{fieldpath.MakePathOrDie("status", "conditions")},
		},
		PrepareForUpdate:       typedUpdate(keepCSRSpec),
		PrepareForStatusUpdate: typedStatus(prepareCSRStatus),
		Subresources:           []string{"approval"},
	}},
	{gk("certificates.k8s.io", "ClusterTrustBundle"), Strategy{ClusterScoped: true}},
	{gk("certificates.k8s.io", "PodCertificateRequest"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}

// keepCSRSpec is the spec half of csrStrategy.PrepareForUpdate: a
// CertificateSigningRequest is immutable through its main resource (the
// status is kept by the server), so an update there keeps the stored spec.
func keepCSRSpec(csr, old *certificatesv1.CertificateSigningRequest) {
	csr.Spec = *old.Spec.DeepCopy()
}

// prepareCSRStatus is csrStatusStrategy.PrepareForUpdate (kubernetes
// pkg/registry/certificates/certificates/strategy.go) on the status a
// write through certificatesigningrequests/status is about to store: the
// stored Approved and Denied conditions are put back in place of the
// written ones when their number is unchanged (only the approval
// subresource changes them; adding or removing one is left for
// validation to refuse), then missing condition timestamps are filled.
func prepareCSRStatus(csr, old *certificatesv1.CertificateSigningRequest, now metav1.Time) {
	preserveCSRConditions(csr, old, certificatesv1.CertificateApproved)
	preserveCSRConditions(csr, old, certificatesv1.CertificateDenied)
	PopulateCSRConditionTimestamps(csr.Status.Conditions, old, now)
}

// preserveCSRConditions copies old's conditions of type t over csr's, in
// order, when both have the same number of them.
func preserveCSRConditions(csr, old *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) {
	oldIdx, newIdx := csrConditionIndices(old, t), csrConditionIndices(csr, t)
	if len(oldIdx) != len(newIdx) {
		return
	}
	for i, o := range oldIdx {
		csr.Status.Conditions[newIdx[i]] = old.Status.Conditions[o]
	}
}

// csrConditionIndices are the indices of csr's conditions of type t.
func csrConditionIndices(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []int {
	var idx []int
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			idx = append(idx, i)
		}
	}
	return idx
}

// PopulateCSRConditionTimestamps is the CSR strategies'
// populateConditionTimestamps (the status and the approval strategy): a
// missing lastUpdateTime is now; a missing lastTransitionTime is that of
// a stored condition of the same type and status, else now.
func PopulateCSRConditionTimestamps(conditions []certificatesv1.CertificateSigningRequestCondition, old *certificatesv1.CertificateSigningRequest, now metav1.Time) {
	for i := range conditions {
		c := &conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, o := range old.Status.Conditions {
			if o.Type == c.Type && o.Status == c.Status && !o.LastTransitionTime.IsZero() {
				c.LastTransitionTime = o.LastTransitionTime
				break
			}
		}
	}
}
