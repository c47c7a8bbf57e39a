package fakeapiserver

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// RBAC's rule matching, restated from kubernetes
// plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows) and
// pkg/apis/rbac/v1/evaluation_helpers.go, which the main module cannot
// import (k8s.io/kubernetes is not a library). Every function is the
// upstream one of the same name, line for line.

// ruleAllows reports whether rule grants the request a describes: for a
// resource request the verb, the API group, the resource with its
// subresource ("pods/log", or "*/scale" for any resource's scale) and the
// name; for a non-resource request the verb and the path.
func ruleAllows(a authorizer.Attributes, rule *rbacv1.PolicyRule) bool {
	if a.IsResourceRequest() {
		combined := a.GetResource()
		if sub := a.GetSubresource(); sub != "" {
			combined = a.GetResource() + "/" + sub
		}
		return verbMatches(rule, a.GetVerb()) &&
			apiGroupMatches(rule, a.GetAPIGroup()) &&
			resourceMatches(rule, combined, a.GetSubresource()) &&
			resourceNameMatches(rule, a.GetName())
	}
	return verbMatches(rule, a.GetVerb()) && nonResourceURLMatches(rule, a.GetPath())
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	for _, v := range rule.Verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func apiGroupMatches(rule *rbacv1.PolicyRule, group string) bool {
	for _, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches matches "*", the exact resource (with its subresource),
// or "*/<subresource>" when the request names that subresource.
func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || r == combined {
			return true
		}
		if subresource == "" {
			continue
		}
		if len(r) == len(subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

// resourceNameMatches: a rule without names matches every name (and a
// request without one); with names, only those.
func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

// nonResourceURLMatches matches "*", the exact path, or a prefix ending
// in "*" ("/apis/*" matches "/apis/apps", "/healthz*" "/healthz/etcd").
func nonResourceURLMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
