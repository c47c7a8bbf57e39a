package fakeapiserver

import (
	"context"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// rbacAuthorizer is kube-apiserver's RBAC authorizer (kubernetes
// plugin/pkg/auth/authorizer/rbac/rbac.go) over the rule resolver of
// pkg/registry/rbac/validation/rule.go (DefaultRuleResolver), restated:
// the rules of every ClusterRoleBinding, then of every RoleBinding of the
// request's namespace, whose subjects include the user, are visited in
// that order until one allows the request.
type rbacAuthorizer struct {
	src rbacSource
}

// ruleVisitor sees each rule that applies, with the binding it comes
// from, or an error resolving a binding's role; it returns false to stop.
type ruleVisitor func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool

// authorize is RBACAuthorizer.Authorize: allowed with the reason naming
// the binding, or no opinion, with "RBAC: " and the resolution errors as
// the reason when a binding named a role that does not exist.
func (a *rbacAuthorizer) authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		allowed bool
		reason  string
		errs    []error
	)
	a.visitRulesFor(attrs.GetUser(), attrs.GetNamespace(), func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && ruleAllows(attrs, rule) {
			allowed, reason = true, "RBAC: allowed by "+source.String()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowed {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs)), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// rulesFor is DefaultRuleResolver.RulesFor: every rule that applies to u in
// namespace, and the resolution errors.
func (a *rbacAuthorizer) rulesFor(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	a.visitRulesFor(u, namespace, func(_ fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// visitRulesFor is DefaultRuleResolver.VisitRulesFor.
func (a *rbacAuthorizer) visitRulesFor(u user.Info, namespace string, visit ruleVisitor) {
	if u == nil {
		return
	}
	for _, b := range a.src.clusterRoleBindings() {
		i, ok := appliesTo(u, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := a.roleRefRules(b.RoleRef, "")
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		src := bindingSource{kind: "ClusterRoleBinding", name: b.Name, ref: b.RoleRef, subject: &b.Subjects[i]}
		for j := range rules {
			if !visit(src, &rules[j], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range a.src.roleBindings(namespace) {
		i, ok := appliesTo(u, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := a.roleRefRules(b.RoleRef, namespace)
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		src := bindingSource{kind: "RoleBinding", name: b.Name + "/" + b.Namespace, ref: b.RoleRef, subject: &b.Subjects[i], namespace: namespace}
		for j := range rules {
			if !visit(src, &rules[j], nil) {
				return
			}
		}
	}
}

// roleRefRules is GetRoleReferenceRules: the rules of the Role (in the
// binding's namespace) or ClusterRole a binding refers to.
func (a *rbacAuthorizer) roleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		r, err := a.src.role(namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	case "ClusterRole":
		r, err := a.src.clusterRole(ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// appliesTo returns the index of the first subject that is u.
func appliesTo(u user.Info, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i := range subjects {
		if appliesToUser(u, &subjects[i], namespace) {
			return i, true
		}
	}
	return 0, false
}

// appliesToUser matches a User by name, a Group by membership and a
// ServiceAccount by its username, in the binding's namespace when the
// subject names none.
func appliesToUser(u user.Info, s *rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.GetName() == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(u.GetGroups(), s.Name)
	case rbacv1.ServiceAccountKind:
		ns := namespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return ns != "" && serviceaccount.MatchesUsername(ns, s.Name, u.GetName())
	}
	return false
}

// bindingSource describes the binding a rule comes from, as
// clusterRoleBindingDescriber and roleBindingDescriber do in an allowed
// decision's reason.
type bindingSource struct {
	kind, name string
	ref        rbacv1.RoleRef
	subject    *rbacv1.Subject
	namespace  string // the RoleBinding's, for a ServiceAccount subject without one
}

func (b bindingSource) String() string {
	return fmt.Sprintf("%s %q of %s %q to %s", b.kind, b.name, b.ref.Kind, b.ref.Name, describeSubject(b.subject, b.namespace))
}

// describeSubject is rule.go describeSubject.
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := bindingNamespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}
