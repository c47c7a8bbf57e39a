package kinds

// admissionKinds: kubernetes pkg/registry/admissionregistration/*/
// strategy.go. Defaults: internal/defaults admission.go; printers:
// internal/tables printers_admission.go.
var admissionKinds = []kind{
	{gk("admissionregistration.k8s.io", "MutatingWebhookConfiguration"), Strategy{ClusterScoped: true}},
	{gk("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"), Strategy{ClusterScoped: true}},
	{gk("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("admissionregistration.k8s.io", "MutatingAdmissionPolicy"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
