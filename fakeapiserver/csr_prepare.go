package fakeapiserver

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

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
	populateCSRConditionTimestamps(csr.Status.Conditions, old, now)
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

// populateCSRConditionTimestamps is the strategies'
// populateConditionTimestamps: a missing lastUpdateTime is now; a missing
// lastTransitionTime is that of a stored condition of the same type and
// status, else now.
func populateCSRConditionTimestamps(conditions []certificatesv1.CertificateSigningRequestCondition, old *certificatesv1.CertificateSigningRequest, now metav1.Time) {
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

// keepCSRSpec is the spec half of csrStrategy.PrepareForUpdate: a
// CertificateSigningRequest is immutable through its main resource (the
// status is kept by copyStatus), so an update there keeps the stored
// spec. Other kinds are left alone.
func keepCSRSpec(next, old runtime.Object) {
	if csr, ok := next.(*certificatesv1.CertificateSigningRequest); ok {
		if o, ok := old.(*certificatesv1.CertificateSigningRequest); ok {
			csr.Spec = *o.Spec.DeepCopy()
		}
	}
}
