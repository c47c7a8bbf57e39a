package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/union"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// AuthorizationMode is how a server authorizes requests
// ([Config.Authorization]); the values are kube-apiserver's
// --authorization-mode names.
type AuthorizationMode string

const (
	// AuthorizationAlwaysAllow allows every authenticated request. A
	// request of system:anonymous is still authorized by RBAC over the
	// stored policy, so it gets what a cluster gives it (GET /healthz,
	// /livez, /readyz and /version through system:public-info-viewer)
	// and 403 otherwise: lw-sim's behaviour before RBAC, kept. (A real
	// kube-apiserver in AlwaysAllow mode turns anonymous authentication
	// off instead.)
	AuthorizationAlwaysAllow AuthorizationMode = "AlwaysAllow"
	// AuthorizationRBAC authorizes as kube-apiserver --authorization-mode=RBAC
	// does: system:masters may do anything (the privileged group
	// authorizer kube-apiserver always puts first), everyone else what the
	// stored Roles, ClusterRoles, RoleBindings and ClusterRoleBindings
	// grant (rbac_authorizer.go), starting from the bootstrap policy
	// (rbac_bootstrap.go). Writes of roles and bindings are checked for
	// escalation (rbac_escalation.go).
	AuthorizationRBAC AuthorizationMode = "RBAC"
)

// rbacAuthorizerName is the name kube-apiserver gives the RBAC authorizer
// in its union, the prefix of a denial's reason ("rbac: RBAC: ...").
const rbacAuthorizerName = "rbac"

// checkAuthorizationMode accepts the modes this server implements.
func checkAuthorizationMode(m AuthorizationMode) error {
	switch m {
	case AuthorizationAlwaysAllow, AuthorizationRBAC:
		return nil
	}
	return fmt.Errorf("fakeapiserver: unknown authorization mode %q (want %q or %q)", m, AuthorizationAlwaysAllow, AuthorizationRBAC)
}

// authz is a server's authorizer and rule resolver.
type authz struct {
	authorizer.Authorizer
	mode AuthorizationMode
	rbac *rbacAuthorizer
}

// newAuthz builds the authorizer chain of kube-apiserver
// (pkg/kubeapiserver/authorizer/reload.go newForConfig) for mode over
// the policy in src: the privileged group authorizer, then the mode's.
func newAuthz(mode AuthorizationMode, src rbacSource) (*authz, error) {
	rbac := &rbacAuthorizer{src: src}
	rbacNamed := union.NamedAuthorizer{AuthorizerName: rbacAuthorizerName, Authorizer: authorizer.AuthorizerFunc(rbac.authorize)}
	chain := []union.NamedAuthorizer{{AuthorizerName: "kubernetes.io/system-privileged-group", Authorizer: authorizer.AuthorizerFunc(privilegedGroup)}}
	if mode == AuthorizationAlwaysAllow {
		chain = append(chain, union.NamedAuthorizer{AuthorizerName: "alwaysallow", Authorizer: authorizer.AuthorizerFunc(allowAuthenticated)})
	}
	u, err := union.New(append(chain, rbacNamed)...)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: authorizer: %w", err)
	}
	return &authz{Authorizer: u, mode: mode, rbac: rbac}, nil
}

// privilegedGroup is authorizerfactory's privilegedGroupAuthorizer for
// system:masters: members may do anything, others get no opinion.
func privilegedGroup(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if u := a.GetUser(); u != nil && slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// allowAuthenticated is AlwaysAllow for every user but the unauthenticated,
// whom RBAC, next in the chain, decides about.
func allowAuthenticated(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if u := a.GetUser(); u != nil && slices.Contains(u.GetGroups(), user.AllUnauthenticated) {
		return authorizer.DecisionNoOpinion, "", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// allowsAll reports a user every request of whom the chain allows, so the
// request's attributes need not be read: system:masters, and in
// AlwaysAllow mode every authenticated user.
func (z *authz) allowsAll(u user.Info) bool {
	if u == nil {
		return false
	}
	groups := u.GetGroups()
	if slices.Contains(groups, user.SystemPrivilegedGroup) {
		return true
	}
	return z.mode == AuthorizationAlwaysAllow && !slices.Contains(groups, user.AllUnauthenticated)
}

// rulesFor is the rule resolver of the chain (union.NewRuleResolvers over
// the mode's resolver): RBAC's rules, or, in AlwaysAllow mode for an
// authenticated user, AlwaysAllow's everything (authorizerfactory
// alwaysAllowAuthorizer.RulesFor).
func (z *authz) rulesFor(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	if z.mode == AuthorizationAlwaysAllow && !slices.Contains(u.GetGroups(), user.AllUnauthenticated) {
		return []rbacv1.PolicyRule{
			{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
		}, nil
	}
	return z.rbac.rulesFor(u, namespace)
}

// authorize is kube-apiserver's WithAuthorization filter
// (endpoints/filters/authorization.go): the request's attributes from
// its RequestInfo and user; allowed goes on, an evaluation error is 500
// (responsewriters.InternalError), anything else the Forbidden of
// responsewriters.ForbiddenStatusError with the authorizer's reason.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	if s.authz.allowsAll(userOf(r)) {
		return true
	}
	attrs := requestAttributes(r)
	decision, reason, err := s.authz.Authorize(r.Context(), attrs)
	if decision == authorizer.DecisionAllow {
		return true
	}
	if err != nil {
		responsewriters.InternalError(w, r, err)
		return false
	}
	s.writeError(w, r, responsewriters.ForbiddenStatusError(attrs, reason))
	return false
}

// requestAttributes are the authorizer attributes of r
// (filters.GetAuthorizerAttributes): its user and what
// RequestInfoFactory reads from it (kubewire.RequestInfoOf). A path the
// factory cannot read is taken as a non-resource request.
func requestAttributes(r *http.Request) *authorizer.AttributesRecord {
	attrs := &authorizer.AttributesRecord{User: userOf(r), Path: r.URL.Path}
	info, err := kubewire.RequestInfoOf(r)
	if err != nil || !info.IsResourceRequest {
		attrs.Verb = strings.ToLower(r.Method)
		return attrs
	}
	attrs.ResourceRequest = true
	attrs.Verb, attrs.APIGroup, attrs.APIVersion = info.Verb, info.Group, info.Version
	attrs.Namespace, attrs.Resource, attrs.Subresource, attrs.Name = info.Namespace, info.Resource, info.Subresource, info.Name
	return attrs
}

// withRequestInfo puts r's RequestInfo in its context, as kube-apiserver's
// WithRequestInfo filter does, for the filters of k8s.io/apiserver that
// read it (impersonation).
func withRequestInfo(r *http.Request) *http.Request {
	a := requestAttributes(r)
	info := &genericapirequest.RequestInfo{
		IsResourceRequest: a.ResourceRequest, Path: a.Path, Verb: a.Verb,
		APIGroup: a.APIGroup, APIVersion: a.APIVersion, Namespace: a.Namespace,
		Resource: a.Resource, Subresource: a.Subresource, Name: a.Name,
	}
	return r.WithContext(genericapirequest.WithRequestInfo(r.Context(), info))
}
