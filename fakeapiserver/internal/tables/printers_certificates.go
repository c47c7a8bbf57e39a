package tables

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
)

// certificates.k8s.io printers (printers.go printCertificateSigningRequest,
// printClusterTrustBundle, printPodCertificateRequest). The CSR columns
// take their descriptions from certificates/v1beta1, as kube-apiserver's do.

func certificateSigningRequestColumns() []metav1.TableColumnDefinition {
	spec := certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		ageColumn,
		column("SignerName", "string", spec["signerName"]),
		column("Requestor", "string", spec["request"]),
		column("RequestedDuration", "string", spec["expirationSeconds"]),
		column("Condition", "string", certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]),
	}
}

func printCertificateSigningRequest(csr *certificatesv1.CertificateSigningRequest, now time.Time) metav1.TableRow {
	signer := csr.Spec.SignerName
	if signer == "" {
		signer = "<none>"
	}
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return cells(csr.Name, age(csr.CreationTimestamp.Time, now), signer, csr.Spec.Username, requested, csrCondition(csr))
}

// csrCondition is extractCSRStatus: Denied over Approved over Pending,
// then ",Failed" and ",Issued". A condition counts whatever its status.
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// clusterTrustBundleColumns has no Age column, as kube-apiserver's.
func clusterTrustBundleColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("SignerName", "string", certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"])}
}

func printClusterTrustBundle(ctb *certificatesv1.ClusterTrustBundle, _ time.Time) metav1.TableRow {
	signer := ctb.Spec.SignerName
	if signer == "" {
		signer = "<none>"
	}
	return cells(ctb.Name, signer)
}

func podCertificateRequestColumns() []metav1.TableColumnDefinition {
	spec := certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("PodName", "string", spec["podName"]),
		column("ServiceAccountName", "string", spec["serviceAccountName"]),
		column("NodeName", "string", spec["nodeName"]),
		column("SignerName", "string", spec["signerName"]),
		column("State", "string", "Is the request Pending, Issued, Denied, or Failed?"),
		column("UnverifiedUserAnnotations", "string", spec["unverifiedUserAnnotations"]),
	}
}

// printPodCertificateRequest: the last Issued, Denied or Failed condition
// names the state; the annotations cell is there because the server
// always prints wide.
func printPodCertificateRequest(pcr *certificatesv1.PodCertificateRequest, _ time.Time) metav1.TableRow {
	state := "Pending"
	for _, c := range pcr.Status.Conditions {
		switch c.Type {
		case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied,
			certificatesv1.PodCertificateRequestConditionTypeFailed:
			state = c.Type
		}
	}
	return cells(pcr.Name, pcr.Spec.PodName, pcr.Spec.ServiceAccountName, string(pcr.Spec.NodeName), pcr.Spec.SignerName, state,
		labels.FormatLabels(pcr.Spec.UnverifiedUserAnnotations))
}
