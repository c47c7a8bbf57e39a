package validation

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validation of the admission policy objects: kubernetes
// pkg/apis/admissionregistration/validation/validation.go (policies,
// bindings, match resources, rules), static_suffix.go, and the declarative
// rules of pkg/apis/admissionregistration/v1/zz_generated.validations.go
// that DeclarativeValidationBeta (on by default) enforces, as the registry
// strategies pkg/registry/admissionregistration/*/strategy.go run them.
// The CEL parts are admission_policy_cel.go. Upstream validates the
// internal types; these functions read the v1 ones, which hold the same
// fields (the printed values of the errors are the same).

// staticConfigSuffix is the name suffix reserved for manifest-based
// admission configurations (static_suffix.go; ManifestBasedAdmissionControlConfig
// is on by default in v1.37, so a create through the API is refused).
const staticConfigSuffix = ".static.k8s.io"

var (
	supportedFailurePolicies = sets.NewString(string(admissionregistrationv1.Ignore), string(admissionregistrationv1.Fail))
	supportedMatchPolicies   = sets.NewString(string(admissionregistrationv1.Exact), string(admissionregistrationv1.Equivalent))
	validScopes              = sets.NewString(string(admissionregistrationv1.ClusterScope),
		string(admissionregistrationv1.NamespacedScope), string(admissionregistrationv1.AllScopes))
	supportedOperations = sets.NewString(string(admissionregistrationv1.OperationAll), string(admissionregistrationv1.Create),
		string(admissionregistrationv1.Update), string(admissionregistrationv1.Delete), string(admissionregistrationv1.Connect))
	// supportedMutatingOperations: a MutatingAdmissionPolicy does not
	// admit DELETE.
	supportedMutatingOperations = sets.NewString(string(admissionregistrationv1.OperationAll), string(admissionregistrationv1.Create),
		string(admissionregistrationv1.Update), string(admissionregistrationv1.Connect))
	supportedReinvocationPolicies = sets.NewString(string(admissionregistrationv1.NeverReinvocationPolicy),
		string(admissionregistrationv1.IfNeededReinvocationPolicy))
	supportedValidationPolicyReason = sets.NewString(string(metav1.StatusReasonForbidden), string(metav1.StatusReasonInvalid),
		string(metav1.StatusReasonRequestEntityTooLarge))
	supportedPatchType = sets.NewString(string(admissionregistrationv1.PatchTypeApplyConfiguration),
		string(admissionregistrationv1.PatchTypeJSONPatch))
	validValidationActions = sets.NewString(string(admissionregistrationv1.Deny), string(admissionregistrationv1.Warn),
		string(admissionregistrationv1.Audit))
)

const (
	// maxAuditAnnotations and maxAuditAnnotationValueExpressionLength are
	// upstream's limits on a ValidatingAdmissionPolicy's auditAnnotations.
	maxAuditAnnotations                     = 20
	maxAuditAnnotationValueExpressionLength = 5 * 1024
	// maxMatchConditions is the most matchConditions a policy may have.
	maxMatchConditions = 64
)

// policyOptions are upstream's validationOptions as the policies use
// them: on update, matchConditions unchanged (with the paramKind) are not
// compiled again, and expressions the stored object already has compile
// in the stored-expressions environment.
type policyOptions struct {
	ignoreMatchConditions        bool
	allowParamsInMatchConditions bool
	preexisting                  preexistingExpressions
}

// preexistingExpressions are the expressions of the stored object, by
// where they appear.
type preexistingExpressions struct {
	matchConditions, validations, messageExpressions, auditAnnotations, applyConfigurations, jsonPatches sets.Set[string]
}

// ValidatingAdmissionPolicy is ValidateValidatingAdmissionPolicy /
// ValidateValidatingAdmissionPolicyUpdate with the reserved-suffix check
// of a create. A write through /status has its own validation
// ([ValidatingAdmissionPolicyStatus]).
func ValidatingAdmissionPolicy(obj, old runtime.Object) field.ErrorList {
	p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok {
		return Generic(obj, old)
	}
	if o, ok := old.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
		opts := policyOptions{
			ignoreMatchConditions: equality.Semantic.DeepEqual(p.Spec.ParamKind, o.Spec.ParamKind) &&
				equality.Semantic.DeepEqual(p.Spec.MatchConditions, o.Spec.MatchConditions),
			preexisting: validatingPolicyExpressions(o),
		}
		return append(MetaUpdate(obj, old), validatingAdmissionPolicy(p, opts)...)
	}
	errs := validatingAdmissionPolicy(p, policyOptions{})
	return append(errs, validateStaticSuffix(p.Name)...)
}

// ValidatingAdmissionPolicyStatus is ValidateValidatingAdmissionPolicyStatusUpdate:
// the type-checking warnings and the conditions.
func ValidatingAdmissionPolicyStatus(obj, old runtime.Object) field.ErrorList {
	p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok {
		return MetaUpdate(obj, old)
	}
	errs := MetaUpdate(obj, old)
	status := field.NewPath("status")
	if tc := p.Status.TypeChecking; tc != nil {
		for i, w := range tc.ExpressionWarnings {
			path := status.Child("typeChecking", "expressionWarnings").Index(i)
			if w.Warning == "" {
				errs = append(errs, field.Required(path.Child("warning"), ""))
			}
			errs = append(errs, validateFieldRef(w.FieldRef, path.Child("fieldRef"))...)
		}
	}
	return append(errs, metav1validation.ValidateConditions(p.Status.Conditions, status.Child("conditions"))...)
}

// MutatingAdmissionPolicy is ValidateMutatingAdmissionPolicy /
// ValidateMutatingAdmissionPolicyUpdate with the reserved-suffix check of
// a create.
func MutatingAdmissionPolicy(obj, old runtime.Object) field.ErrorList {
	p, ok := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
	if !ok {
		return Generic(obj, old)
	}
	if o, ok := old.(*admissionregistrationv1.MutatingAdmissionPolicy); ok {
		opts := policyOptions{
			ignoreMatchConditions: equality.Semantic.DeepEqual(p.Spec.ParamKind, o.Spec.ParamKind) &&
				equality.Semantic.DeepEqual(p.Spec.MatchConditions, o.Spec.MatchConditions),
			preexisting: mutatingPolicyExpressions(o),
		}
		return append(MetaUpdate(obj, old), mutatingAdmissionPolicy(p, opts)...)
	}
	errs := mutatingAdmissionPolicy(p, policyOptions{})
	return append(errs, validateStaticSuffix(p.Name)...)
}

// ValidatingAdmissionPolicyBinding is ValidateValidatingAdmissionPolicyBinding
// (create and update alike) with the reserved-suffix check of a create,
// then the declarative rules: spec.policyName and spec.validationActions
// are required (their handwritten counterparts are dropped, and the
// declarative errors, without detail, come last).
func ValidatingAdmissionPolicyBinding(obj, old runtime.Object) field.ErrorList {
	b, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	if !ok {
		return Generic(obj, old)
	}
	var errs field.ErrorList
	if old != nil {
		errs = MetaUpdate(obj, old)
	}
	errs = append(errs, validateObjectMeta(&b.ObjectMeta)...)
	spec := field.NewPath("spec")
	errs = append(errs, validatePolicyName(b.Spec.PolicyName, false, spec.Child("policyName"))...)
	errs = append(errs, validateParamRef(b.Spec.ParamRef, spec.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, spec.Child("matchResources"))...)
	errs = append(errs, validateValidationActions(b.Spec.ValidationActions, spec.Child("validationActions"))...)
	if old == nil {
		errs = append(errs, validateStaticSuffix(b.Name)...)
	}
	oldB, _ := old.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	if b.Spec.PolicyName == "" && (oldB == nil || oldB.Spec.PolicyName != "") {
		errs = append(errs, field.Required(spec.Child("policyName"), ""))
	}
	if len(b.Spec.ValidationActions) == 0 && (oldB == nil || len(oldB.Spec.ValidationActions) != 0) {
		errs = append(errs, field.Required(spec.Child("validationActions"), ""))
	}
	return errs
}

// MutatingAdmissionPolicyBinding is ValidateMutatingAdmissionPolicyBinding
// (create and update alike) with the reserved-suffix check of a create.
func MutatingAdmissionPolicyBinding(obj, old runtime.Object) field.ErrorList {
	b, ok := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
	if !ok {
		return Generic(obj, old)
	}
	var errs field.ErrorList
	if old != nil {
		errs = MetaUpdate(obj, old)
	}
	errs = append(errs, validateObjectMeta(&b.ObjectMeta)...)
	spec := field.NewPath("spec")
	errs = append(errs, validatePolicyName(b.Spec.PolicyName, true, spec.Child("policyName"))...)
	errs = append(errs, validateParamRef(b.Spec.ParamRef, spec.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, spec.Child("matchResources"))...)
	if b.Spec.MatchResources != nil {
		errs = append(errs, validateMutatingOperations(b.Spec.MatchResources.ResourceRules, spec.Child("matchResources", "resourceRules", "operations"))...)
	}
	if old == nil {
		errs = append(errs, validateStaticSuffix(b.Name)...)
	}
	return errs
}

// validateObjectMeta is apimachinery's ValidateObjectMeta of a
// cluster-scoped object named by a DNS subdomain, which every
// admissionregistration validation starts with.
func validateObjectMeta(m *metav1.ObjectMeta) field.ErrorList {
	return apimachineryvalidation.ValidateObjectMeta(m, false, apimachineryvalidation.NameIsDNSSubdomain, metadataPath)
}

// validateStaticSuffix is ValidateStaticSuffix of metadata.name.
func validateStaticSuffix(name string) field.ErrorList {
	if !strings.HasSuffix(name, staticConfigSuffix) {
		return nil
	}
	return field.ErrorList{field.Invalid(metadataPath.Child("name"), name,
		fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix))}
}

// validatePolicyName is a binding's spec.policyName: required (for a
// ValidatingAdmissionPolicyBinding the declarative rule reports it,
// reportEmpty false) and a DNS subdomain.
func validatePolicyName(name string, reportEmpty bool, path *field.Path) field.ErrorList {
	if name == "" {
		if reportEmpty {
			return field.ErrorList{field.Required(path, "")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// validatingAdmissionPolicy is validateValidatingAdmissionPolicy.
func validatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	errs := validateObjectMeta(&p.ObjectMeta)
	spec, path := &p.Spec, field.NewPath("spec")
	// The composition compiler is stateful (it remembers the variables
	// compiled so far): one per policy, made on first use.
	compiler := newPolicyCompiler(len(spec.Variables) > 0)
	errs = append(errs, validateFailurePolicy(spec.FailurePolicy, path.Child("failurePolicy"))...)
	if spec.ParamKind != nil {
		opts.allowParamsInMatchConditions = true
		errs = append(errs, validateParamKind(*spec.ParamKind, path.Child("paramKind"))...)
	}
	errs = append(errs, validateMatchConstraints(spec.MatchConstraints, path.Child("matchConstraints"))...)
	if !opts.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(compiler, spec.MatchConditions, opts, path.Child("matchConditions"))...)
	}
	for i := range spec.Variables {
		errs = append(errs, validateVariable(compiler, &spec.Variables[i], spec.ParamKind != nil, opts, path.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const detail = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(path.Child("validations"), detail), field.Required(path.Child("auditAnnotations"), detail))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(compiler, &spec.Validations[i], spec.ParamKind != nil, opts, path.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations != nil {
		keys := sets.NewString()
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			errs = append(errs, field.Invalid(path.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		for i, a := range spec.AuditAnnotations {
			errs = append(errs, validateAuditAnnotation(compiler, p.Name, &spec.AuditAnnotations[i], spec.ParamKind != nil, opts, path.Child("auditAnnotations").Index(i))...)
			if keys.Has(a.Key) {
				errs = append(errs, field.Duplicate(path.Child("auditAnnotations").Index(i).Child("key"), a.Key))
			}
			keys.Insert(a.Key)
		}
	}
	return errs
}

// mutatingAdmissionPolicy is validateMutatingAdmissionPolicy.
func mutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	errs := validateObjectMeta(&p.ObjectMeta)
	spec, path := &p.Spec, field.NewPath("spec")
	compiler := newPolicyCompiler(true)
	errs = append(errs, validateFailurePolicy(spec.FailurePolicy, path.Child("failurePolicy"))...)
	if spec.ParamKind != nil {
		opts.allowParamsInMatchConditions = true
		errs = append(errs, validateParamKind(*spec.ParamKind, path.Child("paramKind"))...)
	}
	errs = append(errs, validateMatchConstraints(spec.MatchConstraints, path.Child("matchConstraints"))...)
	if spec.MatchConstraints != nil {
		errs = append(errs, validateMutatingOperations(spec.MatchConstraints.ResourceRules, path.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	if !opts.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(compiler, spec.MatchConditions, opts, path.Child("matchConditions"))...)
	}
	for i := range spec.Variables {
		errs = append(errs, validateVariable(compiler, &spec.Variables[i], spec.ParamKind != nil, opts, path.Child("variables").Index(i))...)
	}
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(path.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, validateMutation(compiler, &spec.Mutations[i], spec.ParamKind != nil, opts, path.Child("mutations").Index(i))...)
	}
	switch {
	case spec.ReinvocationPolicy == "":
		errs = append(errs, field.Required(path.Child("reinvocationPolicy"), ""))
	case !supportedReinvocationPolicies.Has(string(spec.ReinvocationPolicy)):
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocationPolicies.List()))
	}
	return errs
}

// validateFailurePolicy: required, Ignore or Fail.
func validateFailurePolicy(fp *admissionregistrationv1.FailurePolicyType, path *field.Path) field.ErrorList {
	switch {
	case fp == nil:
		return field.ErrorList{field.Required(path, "")}
	case !supportedFailurePolicies.Has(string(*fp)):
		return field.ErrorList{field.NotSupported(path, *fp, supportedFailurePolicies.List())}
	}
	return nil
}

// validateMatchConstraints is a policy's spec.matchConstraints: required,
// valid match resources, at least one resource rule (it gives the type
// information).
func validateMatchConstraints(mc *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	if mc == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	errs := validateMatchResources(mc, path)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(path.Child("resourceRules"), ""))
	}
	return errs
}

// validateMutatingOperations refuses DELETE (and any unknown operation)
// in a mutating policy's or binding's resource rules, every one reported
// at path (upstream's path has no index).
func validateMutatingOperations(rules []admissionregistrationv1.NamedRuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, rule := range rules {
		for _, op := range rule.Operations {
			if !supportedMutatingOperations.Has(string(op)) {
				errs = append(errs, field.NotSupported(path, op, supportedMutatingOperations.List()))
			}
		}
	}
	return errs
}

// validateParamKind is validateParamKind: a group/version apiVersion and
// a kind that is a DNS-1035 label once lower-cased.
func validateParamKind(gvk admissionregistrationv1.ParamKind, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	apiVersion := path.Child("apiVersion")
	switch group, version, err := parseGroupVersion(gvk.APIVersion); {
	case gvk.APIVersion == "":
		errs = append(errs, field.Required(apiVersion, ""))
	case err != nil:
		errs = append(errs, field.Invalid(apiVersion, gvk.APIVersion, err.Error()))
	default:
		if group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(apiVersion, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(apiVersion, gvk.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(apiVersion, version, strings.Join(msgs, ",")))
		}
	}
	if gvk.Kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(gvk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(path.Child("kind"), gvk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// parseGroupVersion splits "group/version" (a bare "version" is the core
// group), as upstream's parseGroupVersion.
func parseGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		i := strings.Index(gv, "/")
		return gv[:i], gv[i+1:], nil
	default:
		return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
	}
}

// validateMatchResources is validateMatchResources (nil is valid: a
// binding without matchResources).
func validateMatchResources(mc *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	if mc == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case mc.MatchPolicy == nil:
		errs = append(errs, field.Required(path.Child("matchPolicy"), ""))
	case !supportedMatchPolicies.Has(string(*mc.MatchPolicy)):
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *mc.MatchPolicy, supportedMatchPolicies.List()))
	}
	for _, sel := range []struct {
		name string
		s    *metav1.LabelSelector
	}{{"namespaceSelector", mc.NamespaceSelector}, {"objectSelector", mc.ObjectSelector}} {
		if sel.s == nil {
			errs = append(errs, field.Required(path.Child(sel.name), ""))
			continue
		}
		errs = append(errs, metav1validation.ValidateLabelSelector(sel.s, metav1validation.LabelSelectorValidationOptions{}, path.Child(sel.name))...)
	}
	for i := range mc.ResourceRules {
		errs = append(errs, validateNamedRule(&mc.ResourceRules[i], path.Child("resourceRules").Index(i))...)
	}
	for i := range mc.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&mc.ExcludeResourceRules[i], path.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule is validateNamedRuleWithOperations: resource names
// are unique path segments, then the rule.
func validateNamedRule(n *admissionregistrationv1.NamedRuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.NewString()
	for i, name := range n.ResourceNames {
		for _, msg := range content.IsPathSegmentName(name) {
			errs = append(errs, field.Invalid(path.Child("resourceNames").Index(i), name, msg))
		}
		if names.Has(name) {
			errs = append(errs, field.Duplicate(path.Child("resourceNames").Index(i), name))
		} else {
			names.Insert(name)
		}
	}
	return append(errs, validateRuleWithOperations(&n.RuleWithOperations, path)...)
}

// validateRuleWithOperations: operations are required, known, and "*"
// stands alone; then the rule, subresources allowed.
func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := path.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(ops, ""))
	}
	if len(r.Operations) > 1 && hasWildcard(r.Operations) {
		errs = append(errs, field.Invalid(ops, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !supportedOperations.Has(string(op)) {
			errs = append(errs, field.NotSupported(ops.Index(i), op, supportedOperations.List()))
		}
	}
	return append(errs, validateRule(&r.Rule, path)...)
}

// validateRule is validateRule with subresources allowed.
func validateRule(rule *admissionregistrationv1.Rule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(path.Child("apiGroups"), ""))
	}
	if len(rule.APIGroups) > 1 && hasWildcard(rule.APIGroups) {
		errs = append(errs, field.Invalid(path.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(rule.APIVersions) == 0 {
		errs = append(errs, field.Required(path.Child("apiVersions"), ""))
	}
	if len(rule.APIVersions) > 1 && hasWildcard(rule.APIVersions) {
		errs = append(errs, field.Invalid(path.Child("apiVersions"), rule.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range rule.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(path.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(rule.Resources, path.Child("resources"))...)
	if rule.Scope != nil && !validScopes.Has(string(*rule.Scope)) {
		errs = append(errs, field.NotSupported(path.Child("scope"), *rule.Scope, validScopes.List()))
	}
	return errs
}

// validateResources is validateResources: resource/subresource pairs
// whose wildcards do not overlap.
func validateResources(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(path, ""))
	}
	wildcardSub := sets.NewString() // x/*
	wildcardRes := sets.NewString() // */x
	doubleWildcard, singleWildcard, plainResource := false, false, false
	for i, resSub := range resources {
		if resSub == "" {
			errs = append(errs, field.Required(path.Index(i), ""))
			continue
		}
		if resSub == "*/*" {
			doubleWildcard = true
		}
		if resSub == "*" {
			singleWildcard = true
		}
		res, sub, found := strings.Cut(resSub, "/")
		if !found {
			plainResource = resSub != "*"
			continue
		}
		if wildcardSub.Has(res) {
			errs = append(errs, field.Invalid(path.Index(i), resSub, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, resSub)))
		}
		if wildcardRes.Has(sub) {
			errs = append(errs, field.Invalid(path.Index(i), resSub, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, resSub)))
		}
		if sub == "*" {
			wildcardSub.Insert(res)
		}
		if res == "*" {
			wildcardRes.Insert(sub)
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(path, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plainResource {
		errs = append(errs, field.Invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// hasWildcard reports whether s holds "*".
func hasWildcard[S ~string](s []S) bool {
	for _, v := range s {
		if v == "*" {
			return true
		}
	}
	return false
}

// validateValidationActions: each action known and listed once, not both
// Deny and Warn. An empty list is the declarative rule's (the caller's).
func validateValidationActions(actions []admissionregistrationv1.ValidationAction, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.NewString()
	for i, a := range actions {
		if !validValidationActions.Has(string(a)) {
			errs = append(errs, field.NotSupported(path.Index(i), a, validValidationActions.List()))
		}
		if seen.Has(string(a)) {
			errs = append(errs, field.Duplicate(path.Index(i), a))
		}
		seen.Insert(string(a))
	}
	if seen.Has(string(admissionregistrationv1.Deny)) && seen.Has(string(admissionregistrationv1.Warn)) {
		errs = append(errs, field.Invalid(path, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}

// validateParamRef is validateParamRef: name or selector (not both), and
// a parameterNotFoundAction of Deny or Allow.
func validateParamRef(pr *admissionregistrationv1.ParamRef, path *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	if pr.Name != "" {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(path.Child("name"), `name and selector are mutually exclusive`))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(path.Child("selector"), `name and selector are mutually exclusive`))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(path, `one of name or selector must be specified`))
	}
	switch {
	case pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "":
		errs = append(errs, field.Required(path.Child("parameterNotFoundAction"), ""))
	case *pr.ParameterNotFoundAction != admissionregistrationv1.DenyAction && *pr.ParameterNotFoundAction != admissionregistrationv1.AllowAction:
		errs = append(errs, field.NotSupported(path.Child("parameterNotFoundAction"), pr.ParameterNotFoundAction,
			[]string{string(admissionregistrationv1.DenyAction), string(admissionregistrationv1.AllowAction)}))
	}
	return errs
}
