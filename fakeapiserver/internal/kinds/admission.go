package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// admissionKinds: kubernetes pkg/registry/admissionregistration/*/
// strategy.go. Defaults: internal/defaults admission.go; printers:
// internal/tables printers_admission.go; validation: internal/validation
// admission_webhook.go (webhook configurations), admission_policy.go
// (policies and bindings). The webhook configurations'
// generation follows their webhooks, the policies' their spec.
var admissionKinds = []kind{
	{gk("admissionregistration.k8s.io", "MutatingWebhookConfiguration"), Strategy{
		Default:       typed(defaults.MutatingWebhookConfiguration),
		Validate:      validation.MutatingWebhookConfiguration,
		ClusterScoped: true, TracksGeneration: true, GenerationChanged: fieldChanged("Webhooks"),
	}},
	{gk("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"), Strategy{
		Default:       typed(defaults.ValidatingWebhookConfiguration),
		Validate:      validation.ValidatingWebhookConfiguration,
		ClusterScoped: true, TracksGeneration: true, GenerationChanged: fieldChanged("Webhooks"),
	}},
	{gk("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"), Strategy{
		Default:  typed(defaults.ValidatingAdmissionPolicy),
		Validate: validation.ValidatingAdmissionPolicy, ValidateStatus: validation.ValidatingAdmissionPolicyStatus,
		ResetFields: ResetFields{StatusResetsMetadata: true}, TracksGeneration: true,
	}},
	{gk("admissionregistration.k8s.io", "MutatingAdmissionPolicy"), Strategy{
		Default:     typed(defaults.MutatingAdmissionPolicy),
		Validate:    validation.MutatingAdmissionPolicy,
		ResetFields: ResetFields{StatusResetsMetadata: true},
	}},
	{gk("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"), Strategy{
		Default: typed(defaults.ValidatingAdmissionPolicyBinding), TracksGeneration: true,
		Validate: validation.ValidatingAdmissionPolicyBinding,
	}},
	{gk("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"), Strategy{
		Default:  typed(defaults.MutatingAdmissionPolicyBinding),
		Validate: validation.MutatingAdmissionPolicyBinding,
	}},
}
