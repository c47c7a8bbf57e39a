package defaults

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The admissionregistration/v1 webhook defaults (kubernetes
// pkg/apis/admissionregistration/v1/defaults.go, walked as
// SetObjectDefaults_{Validating,Mutating}WebhookConfiguration walk them).

// webhookTimeoutSeconds is a webhook's default timeout.
const webhookTimeoutSeconds = 10

// webhookServicePort is a webhook service reference's default port.
const webhookServicePort = 443

// ValidatingWebhookConfiguration is SetDefaults_ValidatingWebhook for each webhook,
// with its service reference and rules.
func ValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		webhookCommon(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds)
		webhookClientAndRules(&w.ClientConfig, w.Rules)
	}
}

// MutatingWebhookConfiguration is SetDefaults_MutatingWebhook for each webhook: the
// validating defaults and reinvocation policy Never.
func MutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		webhookCommon(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds)
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptr.To(admissionregistrationv1.NeverReinvocationPolicy)
		}
		webhookClientAndRules(&w.ClientConfig, w.Rules)
	}
}

// webhookCommon fills what both webhook kinds default: failure policy
// Fail, match policy Equivalent, empty selectors, a 10 s timeout.
func webhookCommon(fail **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
	nsSel, objSel **metav1.LabelSelector, timeout **int32) {
	if *fail == nil {
		*fail = ptr.To(admissionregistrationv1.Fail)
	}
	if *match == nil {
		*match = ptr.To(admissionregistrationv1.Equivalent)
	}
	if *nsSel == nil {
		*nsSel = &metav1.LabelSelector{}
	}
	if *objSel == nil {
		*objSel = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr.To[int32](webhookTimeoutSeconds)
	}
}

// webhookClientAndRules is SetDefaults_ServiceReference (port 443) and
// SetDefaults_Rule (scope "*").
func webhookClientAndRules(cc *admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptr.To[int32](webhookServicePort)
	}
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptr.To(admissionregistrationv1.AllScopes)
		}
	}
}

// ValidatingAdmissionPolicy is SetObjectDefaults_ValidatingAdmissionPolicy:
// failure policy Fail and the match constraints' defaults.
func ValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	matchResources(p.Spec.MatchConstraints)
}

// MutatingAdmissionPolicy is SetObjectDefaults_MutatingAdmissionPolicy.
func MutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	matchResources(p.Spec.MatchConstraints)
}

// ValidatingAdmissionPolicyBinding defaults its match resources.
func ValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	matchResources(b.Spec.MatchResources)
}

// MutatingAdmissionPolicyBinding defaults its match resources.
func MutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	matchResources(b.Spec.MatchResources)
}

// matchResources is SetDefaults_MatchResources (match policy Equivalent,
// empty selectors) and SetDefaults_Rule for its rules; nil stays nil.
func matchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptr.To(admissionregistrationv1.AllScopes)
			}
		}
	}
}
