package fakeapiserver

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"
)

// The RBAC registry's escalation prevention (kubernetes
// pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
// and pkg/registry/rbac/escalation_check.go): a user may write a role only
// with rules they hold themselves, unless they are in system:masters or
// may "escalate" the role; a binding only to a role whose rules they hold,
// unless they may "bind" it. It holds in both authorization modes, as on
// kube-apiserver, whose RBAC storage checks whatever the authorizer; in
// AlwaysAllow mode every authenticated user may escalate and bind.

// fullAuthority is what setting a ClusterRole's aggregationRule requires:
// everything (clusterrole/policybased/storage.go).
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// admitRBACCreate runs, for a create of an RBAC object, what the create
// handler runs before the RBAC storage's check (the namespace checks and
// namespace lifecycle admission, which create repeats), then the check.
func (s *Server) admitRBACCreate(req *request, obj runtime.Object) error {
	if req.res.strategy.Grants == nil || userOf(req.r) == nil {
		return nil
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, obj); err != nil {
		return err
	}
	if !req.res.ClusterScoped {
		if err := s.admitNamespace(req.res, obj); err != nil {
			return err
		}
	}
	return s.checkRBACWrite(req, obj, nil)
}

// checkRBACWrite refuses a create (old nil) or update of an RBAC object
// that would grant req's user permissions they do not hold: 403 in the
// registry's words, or the 404 of a binding whose role does not exist.
// Other objects, and writes made outside a request (seeding), pass.
func (s *Server) checkRBACWrite(req *request, obj, old runtime.Object) error {
	grants := req.res.strategy.Grants // internal/kinds rbac.go
	if grants == nil || req.info.subresource != "" {
		return nil
	}
	u := userOf(req.r)
	if u == nil || escalationAllowed(u) {
		return nil
	}
	g := grants(obj, old)
	name := mustAccessor(obj).GetName()
	if g.RoleRef != nil {
		namespace := ""
		if !req.res.ClusterScoped {
			namespace = req.info.namespace
		}
		return s.checkBindingWrite(req, u, obj, old, name, *g.RoleRef, namespace)
	}
	return s.checkRoleWrite(req, u, obj, old, name, g.Rules, g.Aggregation)
}

// checkRoleWrite is the role and clusterrole storages' check: allowed to
// "escalate" the role resource (named as the request names it), or the
// write only changes what the garbage collector changes, or the user
// holds every rule; an aggregationRule needs full authority.
func (s *Server) checkRoleWrite(req *request, u user.Info, obj, old runtime.Object, name string, rules []rbacv1.PolicyRule, aggregation bool) error {
	if s.authorized(req, authorizer.AttributesRecord{
		User: u, Verb: "escalate", APIGroup: req.info.gv.Group, APIVersion: "*", Resource: req.info.resource,
		Name: req.info.name, Namespace: req.info.namespace, ResourceRequest: true,
	}) {
		return nil
	}
	if old != nil && onlyGCFieldsChanged(obj, old) {
		return nil
	}
	gr := req.res.qualified()
	if err := s.confirmNoEscalation(req, u, rules); err != nil {
		return apierrors.NewForbidden(gr, name, err)
	}
	if aggregation && s.confirmNoEscalation(req, u, fullAuthority) != nil {
		return apierrors.NewForbidden(gr, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return nil
}

// checkBindingWrite is the binding storages' check: allowed to "bind" the
// role referred to, in the binding's namespace, or the write only changes
// what the garbage collector changes, or the user holds every rule of the
// role (which must exist: 404 otherwise).
func (s *Server) checkBindingWrite(req *request, u user.Info, obj, old runtime.Object, name string, ref rbacv1.RoleRef, namespace string) error {
	if old != nil && onlyGCFieldsChanged(obj, old) {
		return nil
	}
	if s.bindingAuthorized(req, u, ref, namespace) {
		return nil
	}
	rules, err := s.registryResolver(req).roleRefRules(ref, namespace)
	if err != nil {
		return err
	}
	if err := s.confirmNoEscalation(req, u, rules); err != nil {
		return apierrors.NewForbidden(req.res.qualified(), name, err)
	}
	return nil
}

// bindingAuthorized is BindingAuthorized: "bind" on the referred role.
func (s *Server) bindingAuthorized(req *request, u user.Info, ref rbacv1.RoleRef, namespace string) bool {
	attrs := authorizer.AttributesRecord{User: u, Verb: "bind", Namespace: namespace, APIGroup: ref.APIGroup, APIVersion: "*", Name: ref.Name, ResourceRequest: true}
	switch ref.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	return s.authorized(req, attrs)
}

// authorized asks the server's authorizer.
func (s *Server) authorized(req *request, attrs authorizer.AttributesRecord) bool {
	d, _, _ := s.authz.Authorize(req.r.Context(), attrs)
	return d == authorizer.DecisionAllow
}

// confirmNoEscalation is validation.ConfirmNoEscalation: the user's rules
// in the request's namespace must cover rules; the error lists what they
// lack, compacted and sorted, and the errors resolving their own rules.
func (s *Server) confirmNoEscalation(req *request, u user.Info, rules []rbacv1.PolicyRule) error {
	owner, resolveErr := s.registryResolver(req).rulesFor(u, req.info.namespace)
	covered, missing := rbacvalidation.Covers(owner, rules)
	if covered {
		return nil
	}
	var descs []string
	for _, r := range compactRules(missing) {
		descs = append(descs, compactString(r))
	}
	slices.Sort(descs)
	descs = slices.Compact(descs)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.GetName(), u.GetGroups(), strings.Join(descs, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: %v", []error{resolveErr})
	}
	return errors.New(msg)
}

// registryResolver is the rule resolver the RBAC storages use: the stored
// policy read through the registry, whose NotFound names the resource of
// the request being made (the generic store qualifies its errors with the
// request's RequestInfo), not the role's.
func (s *Server) registryResolver(req *request) *rbacAuthorizer {
	return &rbacAuthorizer{src: registrySource{rbacSource: s.authz.rbac.src, gr: req.res.qualified()}}
}

// registrySource is an rbacSource whose missing roles are 404s of gr.
type registrySource struct {
	rbacSource
	gr schema.GroupResource
}

func (r registrySource) clusterRole(name string) (*rbacv1.ClusterRole, error) {
	cr, err := r.rbacSource.clusterRole(name)
	if err != nil {
		return nil, apierrors.NewNotFound(r.gr, name)
	}
	return cr, nil
}

func (r registrySource) role(namespace, name string) (*rbacv1.Role, error) {
	role, err := r.rbacSource.role(namespace, name)
	if err != nil {
		return nil, apierrors.NewNotFound(r.gr, name)
	}
	return role, nil
}

// onlyGCFieldsChanged is rbac IsOnlyMutatingGCFields: obj equals old but
// for ownerReferences, finalizers, selfLink and managedFields.
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	copied := obj.DeepCopyObject()
	c, o := mustAccessor(copied), mustAccessor(old)
	c.SetOwnerReferences(o.GetOwnerReferences())
	c.SetFinalizers(o.GetFinalizers())
	c.SetSelfLink(o.GetSelfLink())
	c.SetManagedFields(o.GetManagedFields())
	return apiequality.Semantic.DeepEqual(copied, old)
}

// simpleResource keys the rules compactRules merges.
type simpleResource struct {
	group, resource string
	hasName         bool
	resourceName    string
}

// compactRules is validation.CompactRules: rules of one group, one
// resource and at most one name, and nothing else, are merged by
// concatenating their verbs.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	simple := map[simpleResource]*rbacv1.PolicyRule{}
	var order []simpleResource
	for _, r := range rules {
		key, ok := simpleKey(&r)
		if !ok {
			out = append(out, r)
			continue
		}
		if existing, seen := simple[key]; seen {
			existing.Verbs = append(existing.Verbs, r.Verbs...)
			continue
		}
		simple[key] = r.DeepCopy()
		order = append(order, key)
	}
	for _, k := range order {
		out = append(out, *simple[k])
	}
	return out
}

// simpleKey is isSimpleResourceRule.
func simpleKey(r *rbacv1.PolicyRule) (simpleResource, bool) {
	if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
		return simpleResource{}, false
	}
	bare := &rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs, ResourceNames: r.ResourceNames}
	if !reflect.DeepEqual(bare, r) {
		return simpleResource{}, false
	}
	k := simpleResource{group: r.APIGroups[0], resource: r.Resources[0]}
	if len(r.ResourceNames) == 1 {
		k.hasName, k.resourceName = true, r.ResourceNames[0]
	}
	return k, true
}

// compactString is rbac/v1 CompactString, the escalation message's form
// of a rule.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	var args []any
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts, args = append(parts, name+":%q"), append(args, v)
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return fmt.Sprintf("{"+strings.Join(parts, ", ")+"}", args...)
}
