package fakeapiserver

import (
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/kinds"
)

// The approval subresource of CertificateSigningRequests
// (certificatesigningrequests/approval, what `kubectl certificate
// approve` and `deny` write): get, update and patch of the whole object,
// of which only status.conditions is stored. It shares the status
// subresource's path through the handlers (isPartialWrite); its strategy
// is csrApprovalStrategy of kubernetes
// pkg/registry/certificates/certificates/strategy.go, its validation
// validation.ValidateCSRApprovalUpdate.

// approvalResetFields is the exclude filter of the approval endpoint's
// field manager (csrApprovalStrategy.GetResetFields): spec and
// status.certificate are not the approver's.
func approvalResetFields(info *resourceInfo) map[fieldpath.APIVersion]fieldpath.Filter {
	v := fieldpath.APIVersion(info.Kind.GroupVersion().String())
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(
		fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status", "certificate"))})
}

// isApproval reports whether the request is for the approval subresource.
func (req *request) isApproval() bool { return strings.EqualFold(req.info.subresource, "approval") }

// isPartialWrite reports whether the request writes through a subresource
// whose body is the whole object but which stores only part of it onto
// the stored object (status, approval): such a write never creates.
func (req *request) isPartialWrite() bool { return req.isStatus() || req.isApproval() }

// prepareApprovalUpdate is csrApprovalStrategy.PrepareForUpdate: the
// written conditions, their missing timestamps filled, replace the stored
// ones on a copy of the stored object (spec and certificate stay). next is
// the decoded (or patched) request object, old the stored one.
func prepareApprovalUpdate(next, old runtime.Object, now metav1.Time) runtime.Object {
	base := old.DeepCopyObject()
	csr, ok := next.(*certificatesv1.CertificateSigningRequest)
	b, okBase := base.(*certificatesv1.CertificateSigningRequest)
	o, okOld := old.(*certificatesv1.CertificateSigningRequest)
	if !ok || !okBase || !okOld {
		return base
	}
	conditions := append([]certificatesv1.CertificateSigningRequestCondition(nil), csr.Status.Conditions...)
	kinds.PopulateCSRConditionTimestamps(conditions, o, now)
	b.Status.Conditions = conditions
	return base
}
