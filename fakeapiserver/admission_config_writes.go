package fakeapiserver

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"
)

// admissionConfigWrites is builtinWrites with what the registry strategies
// of the admission configuration kinds add to validation (kubernetes
// pkg/registry/admissionregistration/*/strategy.go and authz.go):
//
//   - a policy whose paramKind its author may not "get", and a binding
//     whose paramRef its author may not "get" (or "list", for a selector),
//     is refused with a Forbidden cause on spec.paramKind or spec.paramRef,
//     checked only once the object is otherwise valid, and on update only
//     when the paramKind (paramRef or policyName) changed;
//   - a webhook configuration whose rules name a resource excluded from
//     admission webhooks (the authentication and authorization reviews,
//     kubeapiserver/admission/exclusion) is stored with a warning per rule
//     and resource (ExcludeAdmissionWebhookVirtualResources, beta and on
//     in v1.37).
//
// The reserved-suffix warnings of those strategies are unreachable in
// v1.37: with ManifestBasedAdmissionControlConfig on (its default) a create
// of such a name is refused, so no update can meet one.
type admissionConfigWrites struct{ builtinWrites }

// admissionConfigGroup is the group of the kinds admissionConfigWrites
// serves.
const admissionConfigGroup = "admissionregistration.k8s.io"

// admissionConfigKinds are the kinds whose writes admissionConfigWrites
// validates.
var admissionConfigKinds = []string{
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
	"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
	"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
}

// webhookExcludedResources are exclusion.Excluded() of kubernetes
// pkg/kubeapiserver/admission/exclusion/resources.go: the reviews, which
// admission webhooks never see.
var webhookExcludedResources = []schema.GroupResource{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
}

func (w admissionConfigWrites) validateCreate(s *Server, req *request, res *resourceInfo, obj runtime.Object) field.ErrorList {
	errs := w.builtinWrites.validateCreate(s, req, res, obj)
	if len(errs) > 0 || req == nil {
		return errs
	}
	if err := s.authorizeParams(req, obj, nil); err != nil {
		return field.ErrorList{err}
	}
	addWebhookRuleWarnings(req, obj)
	return nil
}

func (w admissionConfigWrites) validateUpdate(s *Server, req *request, next, old runtime.Object) (field.ErrorList, error) {
	errs, err := w.builtinWrites.validateUpdate(s, req, next, old)
	if err != nil || len(errs) > 0 || req.info.subresource != "" {
		return errs, err
	}
	if err := s.authorizeParams(req, next, old); err != nil {
		return field.ErrorList{err}, nil
	}
	addWebhookRuleWarnings(req, next)
	return nil, nil
}

// authorizeParams is the policy and binding strategies' authorizeCreate
// (old nil) and authorizeUpdate: the Forbidden cause refusing obj, or nil.
func (s *Server) authorizeParams(req *request, obj, old runtime.Object) *field.Error {
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		oldKind := func() *admissionregistrationv1.ParamKind {
			return old.(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.ParamKind
		}
		return s.authorizeParamKind(req, o.Spec.ParamKind, old != nil, oldKind)
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		oldKind := func() *admissionregistrationv1.ParamKind {
			return old.(*admissionregistrationv1.MutatingAdmissionPolicy).Spec.ParamKind
		}
		return s.authorizeParamKind(req, o.Spec.ParamKind, old != nil, oldKind)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		b := paramBinding{ref: o.Spec.ParamRef, policy: o.Spec.PolicyName, policies: "validatingadmissionpolicies"}
		if o, ok := old.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding); ok {
			b.unchanged = o.Spec.ParamRef != nil && b.ref != nil && *o.Spec.ParamRef == *b.ref && o.Spec.PolicyName == b.policy
		}
		return s.authorizeParamRef(req, b)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		b := paramBinding{ref: o.Spec.ParamRef, policy: o.Spec.PolicyName, policies: "mutatingadmissionpolicies", mutating: true}
		if o, ok := old.(*admissionregistrationv1.MutatingAdmissionPolicyBinding); ok {
			b.unchanged = o.Spec.ParamRef != nil && b.ref != nil && *o.Spec.ParamRef == *b.ref && o.Spec.PolicyName == b.policy
		}
		return s.authorizeParamRef(req, b)
	}
	return nil
}

// authorizeParamKind is validatingadmissionpolicy/authz.go authorize (the
// mutating one is the same): the author must be able to "get" every
// object of the paramKind, in every namespace. An update that keeps the
// paramKind is not checked again.
func (s *Server) authorizeParamKind(req *request, kind *admissionregistrationv1.ParamKind, update bool, oldKind func() *admissionregistrationv1.ParamKind) *field.Error {
	if kind == nil {
		return nil
	}
	if update {
		if o := oldKind(); o != nil && *o == *kind {
			return nil
		}
	}
	u := userOf(req.r)
	if u == nil || escalationAllowed(u) {
		// A request always has a user; a write without one is the
		// server's own (seeding, controllers).
		return nil
	}
	path := field.NewPath("spec", "paramKind")
	group, version, resource, _, _ := s.paramResource(kind)
	attrs := authorizer.AttributesRecord{
		User: u, Verb: "get", ResourceRequest: true, Name: "*", Namespace: "*",
		APIGroup: group, APIVersion: version, Resource: resource,
	}
	d, _, err := s.authz.Authorize(req.r.Context(), attrs)
	if err != nil {
		return field.Forbidden(path, err.Error())
	}
	if d != authorizer.DecisionAllow {
		return field.Forbidden(path, fmt.Sprintf(`user %v must have "get" permission on all objects of the referenced paramKind (kind=%s, apiVersion=%s)`, u, kind.Kind, kind.APIVersion))
	}
	return nil
}

// paramBinding is what authorizeParamRef reads of a binding.
type paramBinding struct {
	ref    *admissionregistrationv1.ParamRef
	policy string
	// policies is the resource of the policies the binding names.
	policies string
	// mutating selects the mutating binding strategy's wording.
	mutating bool
	// unchanged: an update keeps the paramRef and the policy name.
	unchanged bool
}

// authorizeParamRef is validatingadmissionpolicybinding/authz.go authorize
// (and the mutating one, whose last message swaps its arguments as
// upstream does): the author must be able to "get" the object the
// paramRef names, or "list" the objects it selects, in the paramKind of
// the bound policy; what cannot be resolved (a missing policy, a paramKind
// that does not parse or is not served) widens the check to every group,
// version and resource, and the message says why.
func (s *Server) authorizeParamRef(req *request, b paramBinding) *field.Error {
	if b.ref == nil || b.unchanged {
		return nil
	}
	u := userOf(req.r)
	if u == nil || escalationAllowed(u) {
		return nil // as in authorizeParamKind
	}
	path := field.NewPath("spec", "paramRef")
	group, version, resource := "*", "*", "*"
	kind, policyErr := s.boundParamKind(b)
	parsed, resolved := false, false
	if policyErr == nil && kind != nil {
		group, version, resource, parsed, resolved = s.paramResource(kind)
	}
	verb := "get"
	if b.ref.Name == "" {
		verb = "list"
	}
	attrs := authorizer.AttributesRecord{
		User: u, Verb: verb, ResourceRequest: true, Name: b.ref.Name, Namespace: b.ref.Namespace,
		APIGroup: group, APIVersion: version, Resource: resource,
	}
	d, _, err := s.authz.Authorize(req.r.Context(), attrs)
	if err != nil {
		if b.mutating {
			return field.Forbidden(path, err.Error())
		}
		return field.Forbidden(path, fmt.Sprintf("failed to authorize request: %v", err))
	}
	if d == authorizer.DecisionAllow {
		return nil
	}
	var msg string
	// Upstream formats the internal ParamKind, a plain struct; the v1
	// type's String method would print its protobuf form.
	internalKind := ""
	if kind != nil {
		internalKind = fmt.Sprintf("&{%s %s}", kind.APIVersion, kind.Kind)
	}
	switch {
	case policyErr != nil:
		msg = fmt.Sprintf(`unable to get policy %s to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, b.policy, u, verb)
	case kind != nil && !parsed:
		msg = fmt.Sprintf(`unable to parse paramKind %s to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, internalKind, u, verb)
	case kind != nil && !resolved:
		msg = fmt.Sprintf(`unable to resolve paramKind %s to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, internalKind, u, verb)
	case b.mutating:
		// Upstream passes the verb and the user in this order.
		msg = fmt.Sprintf(`user %v does not have "%v" permission on the object referenced by paramRef`, verb, u)
	default:
		msg = fmt.Sprintf(`user %v does not have "%v" permission on the object referenced by paramRef`, u, verb)
	}
	return field.Forbidden(path, msg)
}

// boundParamKind reads the paramKind of the policy b binds, as the
// binding strategy's policyGetter reads it from storage.
func (s *Server) boundParamKind(b paramBinding) (*admissionregistrationv1.ParamKind, error) {
	res, ok := s.resources.lookup(schema.GroupVersionResource{Group: admissionConfigGroup, Version: "v1", Resource: b.policies})
	if !ok {
		return nil, fmt.Errorf("%s are not served", b.policies)
	}
	obj, err := s.current(res, "", b.policy)
	if err != nil {
		return nil, err
	}
	switch p := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		return p.Spec.ParamKind, nil
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		return p.Spec.ParamKind, nil
	}
	return nil, fmt.Errorf("unexpected %T for policy %s", obj, b.policy)
}

// paramResource is the group, version and resource the policy strategies
// authorize for a paramKind: "*" for what does not parse (parsed false)
// or resolve to a served resource (resolved false), as their
// resourceResolver leaves them.
func (s *Server) paramResource(kind *admissionregistrationv1.ParamKind) (group, version, resource string, parsed, resolved bool) {
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return "*", "*", "*", false, false
	}
	info, ok := s.resources.lookupKind(gv.WithKind(kind.Kind))
	if !ok {
		return gv.Group, gv.Version, "*", true, false
	}
	return gv.Group, gv.Version, info.gvr.Resource, true, true
}

// escalationAllowed is kubernetes pkg/registry/rbac EscalationAllowed:
// members of system:masters skip the checks.
func escalationAllowed(u user.Info) bool {
	return slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}

// addWebhookRuleWarnings records the webhook configuration strategies'
// WarningsFor{Validating,Mutating}WebhookRules for obj on req.
func addWebhookRuleWarnings(req *request, obj runtime.Object) {
	for _, w := range webhookRuleWarnings(obj) {
		warning.AddWarning(req.r.Context(), "", w)
	}
}

// webhookRuleWarnings is kubernetes pkg/apis/admissionregistration/
// validation/warnings.go: one warning per rule and excluded resource it
// names explicitly (a "*" group or resource names none), in the rule's
// order, each once.
func webhookRuleWarnings(obj runtime.Object) []string {
	var rules [][]admissionregistrationv1.RuleWithOperations
	switch c := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for _, h := range c.Webhooks {
			rules = append(rules, h.Rules)
		}
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for _, h := range c.Webhooks {
			rules = append(rules, h.Rules)
		}
	default:
		return nil
	}
	var out []string
	for i, hookRules := range rules {
		path := field.NewPath("webhooks").Index(i).Child("rules")
		for j, r := range hookRules {
			for _, gr := range excludedNamedByRule(r.APIGroups, r.Resources) {
				out = append(out, fmt.Sprintf("%s: %s is excluded from admission webhooks; this rule will have no effect", path.Index(j), gr))
			}
		}
	}
	return out
}

// excludedNamedByRule is warnings.go excludedResourcesNamedByRule.
func excludedNamedByRule(groups, resources []string) []schema.GroupResource {
	if slices.Contains(groups, "*") || slices.Contains(resources, "*") {
		return nil
	}
	var matched []schema.GroupResource
	for _, g := range groups {
		for _, r := range resources {
			gr := schema.GroupResource{Group: g, Resource: r}
			if slices.Contains(webhookExcludedResources, gr) && !slices.Contains(matched, gr) {
				matched = append(matched, gr)
			}
		}
	}
	return matched
}
