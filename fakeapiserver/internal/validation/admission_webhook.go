package validation

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/utils/ptr"
)

// The validation of the webhook configurations: kubernetes
// pkg/apis/admissionregistration/validation/validation.go
// (ValidateValidatingWebhookConfiguration, ValidateMutatingWebhookConfiguration
// and their Update forms), as the registry strategies
// pkg/registry/admissionregistration/{validating,mutating}webhookconfiguration/strategy.go
// run them: the reserved .static.k8s.io suffix on create only. The rules,
// policies and matchConditions are checked with the admission policies'
// helpers (admission_policy.go, admission_policy_cel.go). Upstream
// validates the internal types; these functions read the v1 ones after
// their defaults (the printed values of the errors are the same).

var (
	// acceptedAdmissionReviewVersions: AcceptedAdmissionReviewVersions,
	// the versions the prior server understands.
	acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}
	// supportedSideEffectClasses are the classes an update may keep when
	// a stored webhook already had one outside noSideEffectClasses.
	supportedSideEffectClasses = sets.NewString(string(admissionregistrationv1.SideEffectClassUnknown),
		string(admissionregistrationv1.SideEffectClassNone), string(admissionregistrationv1.SideEffectClassSome),
		string(admissionregistrationv1.SideEffectClassNoneOnDryRun))
	// noSideEffectClasses are the classes v1 admits.
	noSideEffectClasses = sets.NewString(string(admissionregistrationv1.SideEffectClassNone),
		string(admissionregistrationv1.SideEffectClassNoneOnDryRun))
)

// webhookOptions are upstream's validationOptions as the webhook
// configurations use them. A create sets every require* and no
// tolerance; an update relaxes each rule the stored object already
// broke, and does not compile matchConditions it leaves unchanged.
type webhookOptions struct {
	ignoreMatchConditions                   bool
	requireNoSideEffects                    bool
	requireRecognizedAdmissionReviewVersion bool
	requireUniqueWebhookNames               bool
	allowInvalidLabelValueInSelector        bool
	// matchConditions are the stored object's matchCondition
	// expressions, which compile in the stored-expressions environment.
	matchConditions sets.Set[string]
}

// createWebhookOptions are the options of a create.
var createWebhookOptions = webhookOptions{requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true}

// webhookFields are the fields a validating and a mutating webhook share,
// plus the mutating one's reinvocationPolicy (nil for a validating one).
type webhookFields struct {
	name                    string
	clientConfig            admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
}

// validatingWebhooks returns the shared fields of each webhook.
func validatingWebhooks(hooks []admissionregistrationv1.ValidatingWebhook) []webhookFields {
	out := make([]webhookFields, len(hooks))
	for i, h := range hooks {
		out[i] = webhookFields{
			name: h.Name, clientConfig: h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy, matchPolicy: h.MatchPolicy,
			namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector, sideEffects: h.SideEffects,
			timeoutSeconds: h.TimeoutSeconds, admissionReviewVersions: h.AdmissionReviewVersions, matchConditions: h.MatchConditions,
		}
	}
	return out
}

// mutatingWebhooks returns the shared fields of each webhook, with its
// reinvocationPolicy.
func mutatingWebhooks(hooks []admissionregistrationv1.MutatingWebhook) []webhookFields {
	out := make([]webhookFields, len(hooks))
	for i, h := range hooks {
		out[i] = webhookFields{
			name: h.Name, clientConfig: h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy, matchPolicy: h.MatchPolicy,
			namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector, sideEffects: h.SideEffects,
			timeoutSeconds: h.TimeoutSeconds, admissionReviewVersions: h.AdmissionReviewVersions, matchConditions: h.MatchConditions,
			reinvocationPolicy: h.ReinvocationPolicy,
		}
	}
	return out
}

// ValidatingWebhookConfiguration is ValidateValidatingWebhookConfiguration
// with the reserved-suffix check on create, and
// ValidateValidatingWebhookConfigurationUpdate on update.
func ValidatingWebhookConfiguration(obj, old runtime.Object) field.ErrorList {
	c, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	if !ok {
		return Generic(obj, old)
	}
	hooks := validatingWebhooks(c.Webhooks)
	if o, ok := old.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		return append(MetaUpdate(obj, old), webhookConfiguration(&c.ObjectMeta, hooks, updateWebhookOptions(hooks, validatingWebhooks(o.Webhooks)))...)
	}
	return append(webhookConfiguration(&c.ObjectMeta, hooks, createWebhookOptions), validateStaticSuffix(c.Name)...)
}

// MutatingWebhookConfiguration is ValidateMutatingWebhookConfiguration
// with the reserved-suffix check on create, and
// ValidateMutatingWebhookConfigurationUpdate on update.
func MutatingWebhookConfiguration(obj, old runtime.Object) field.ErrorList {
	c, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	if !ok {
		return Generic(obj, old)
	}
	hooks := mutatingWebhooks(c.Webhooks)
	if o, ok := old.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
		return append(MetaUpdate(obj, old), webhookConfiguration(&c.ObjectMeta, hooks, updateWebhookOptions(hooks, mutatingWebhooks(o.Webhooks)))...)
	}
	return append(webhookConfiguration(&c.ObjectMeta, hooks, createWebhookOptions), validateStaticSuffix(c.Name)...)
}

// updateWebhookOptions are the options of an update from the stored
// webhooks old (ValidateValidatingWebhookConfigurationUpdate): each rule
// applies only if old kept it, and matchConditions are compiled only if
// some webhook's changed (or the number of webhooks did).
func updateWebhookOptions(hooks, old []webhookFields) webhookOptions {
	opts := webhookOptions{
		ignoreMatchConditions:                   len(hooks) == len(old),
		requireNoSideEffects:                    true,
		requireRecognizedAdmissionReviewVersion: true,
		requireUniqueWebhookNames:               true,
		matchConditions:                         sets.New[string](),
	}
	names := sets.NewString()
	for i, h := range old {
		if opts.ignoreMatchConditions && !equalMatchConditions(hooks[i].matchConditions, h.matchConditions) {
			opts.ignoreMatchConditions = false
		}
		if h.sideEffects == nil || !noSideEffectClasses.Has(string(*h.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 && !hasAcceptedAdmissionReviewVersion(h.admissionReviewVersions) {
			opts.requireRecognizedAdmissionReviewVersion = false
		}
		if names.Has(h.name) {
			opts.requireUniqueWebhookNames = false
		}
		names.Insert(h.name)
		for _, sel := range []*metav1.LabelSelector{h.namespaceSelector, h.objectSelector} {
			if sel != nil && len(metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
				opts.allowInvalidLabelValueInSelector = true
			}
		}
		for _, mc := range h.matchConditions {
			opts.matchConditions.Insert(mc.Expression)
		}
	}
	return opts
}

// equalMatchConditions is upstream's reflect.DeepEqual of two webhooks'
// matchConditions (nil and empty differ).
func equalMatchConditions(a, b []admissionregistrationv1.MatchCondition) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// webhookConfiguration is validate{Validating,Mutating}WebhookConfiguration:
// the metadata, then each webhook, its admissionReviewVersions and the
// uniqueness of its name.
func webhookConfiguration(meta *metav1.ObjectMeta, hooks []webhookFields, opts webhookOptions) field.ErrorList {
	errs := validateObjectMeta(meta)
	names := sets.NewString()
	for i := range hooks {
		path := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&hooks[i], opts, path)...)
		errs = append(errs, validateAdmissionReviewVersions(hooks[i].admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, path.Child("admissionReviewVersions"))...)
		if opts.requireUniqueWebhookNames && hooks[i].name != "" {
			if names.Has(hooks[i].name) {
				errs = append(errs, field.Duplicate(path.Child("name"), hooks[i].name))
			} else {
				names.Insert(hooks[i].name)
			}
		}
	}
	return errs
}

// validateWebhook is validate{Validating,Mutating}Webhook: a fully
// qualified name, rules, policies, sideEffects, a timeout of 1 to 30
// seconds, selectors, (mutating) the reinvocationPolicy, exactly one of
// url and service, and the matchConditions.
func validateWebhook(h *webhookFields, opts webhookOptions, path *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(path.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], path.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !supportedFailurePolicies.Has(string(*h.failurePolicy)) {
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies.List()))
	}
	if h.matchPolicy != nil && !supportedMatchPolicies.Has(string(*h.matchPolicy)) {
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies.List()))
	}
	allowedSideEffects := supportedSideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if h.sideEffects == nil {
		errs = append(errs, field.Required(path.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowedSideEffects.List(), ", "))))
	} else if !allowedSideEffects.Has(string(*h.sideEffects)) {
		errs = append(errs, field.NotSupported(path.Child("sideEffects"), *h.sideEffects, allowedSideEffects.List()))
	}
	if h.timeoutSeconds != nil && (*h.timeoutSeconds > 30 || *h.timeoutSeconds < 1) {
		errs = append(errs, field.Invalid(path.Child("timeoutSeconds"), *h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	selectorOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector}
	if h.namespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.namespaceSelector, selectorOpts, path.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.objectSelector, selectorOpts, path.Child("objectSelector"))...)
	}
	if h.reinvocationPolicy != nil && !supportedReinvocationPolicies.Has(string(*h.reinvocationPolicy)) {
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), *h.reinvocationPolicy, supportedReinvocationPolicies.List()))
	}
	errs = append(errs, validateClientConfig(&h.clientConfig, path.Child("clientConfig"))...)
	if !opts.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(nil, h.matchConditions,
			policyOptions{preexisting: preexistingExpressions{matchConditions: opts.matchConditions}}, path.Child("matchConditions"))...)
	}
	return errs
}

// validateClientConfig: exactly one of url (https, a host, no user
// information, query or fragment) and service (name, namespace, a port,
// a path of DNS subdomains), checked by k8s.io/apiserver's webhook
// helpers. Upstream passes the service's name and namespace in each
// other's place, so a missing namespace is reported as service.name and a
// missing name as service.namespace; so does this.
func validateClientConfig(cc *admissionregistrationv1.WebhookClientConfig, path *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(path, "exactly one of url or service is required")}
	case cc.URL != nil:
		return webhook.ValidateWebhookURL(path.Child("url"), *cc.URL, true)
	default:
		s := cc.Service
		return webhook.ValidateWebhookService(path.Child("service"), s.Name, s.Namespace, s.Path, ptr.Deref(s.Port, 0))
	}
}

// validateAdmissionReviewVersions: at least one, each a DNS-1035 label
// listed once, and (when required) one this server accepts.
func validateAdmissionReviewVersions(versions []string, requireRecognized bool, path *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(path, "must specify one of "+strings.Join(acceptedAdmissionReviewVersions, ", "))}
	}
	var errs field.ErrorList
	seen := sets.NewString()
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(path.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(path.Index(i), v, msg))
		}
	}
	if requireRecognized && !hasAcceptedAdmissionReviewVersion(versions) {
		errs = append(errs, field.Invalid(path, versions, "must include at least one of "+strings.Join(acceptedAdmissionReviewVersions, ", ")))
	}
	return errs
}

// hasAcceptedAdmissionReviewVersion reports whether versions holds one
// this server accepts.
func hasAcceptedAdmissionReviewVersion(versions []string) bool {
	for _, v := range versions {
		for _, accepted := range acceptedAdmissionReviewVersions {
			if v == accepted {
				return true
			}
		}
	}
	return false
}
