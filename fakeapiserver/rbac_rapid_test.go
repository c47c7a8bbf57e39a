package fakeapiserver

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/google/go-cmp/cmp"
)

// The RBAC authorizer against a model: random Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings (some naming roles that do not
// exist) are written through client-go, and random SubjectAccessReviews
// must be answered as the model decides them. The model is kube-apiserver's
// algorithm written out plainly, independently of rbac_*.go: the
// ClusterRoleBindings in name order, then the namespace's RoleBindings,
// each applying to the user by name, group or service account, the first
// rule of a referred role that matches the request allowing it with
// "RBAC: allowed by ...", and a denial's reason listing the roles that are
// missing. Each run prefixes its names, so runs share one server and the
// bootstrap policy.

// rbacModelKey names a namespaced object.
type rbacModelKey struct{ ns, name string }

// rbacModel is the stored policy as the model sees it.
type rbacModel struct {
	clusterRoles map[string][]rbacv1.PolicyRule
	roles        map[rbacModelKey][]rbacv1.PolicyRule
	crbs         map[string]rbacv1.ClusterRoleBinding
	rbs          map[rbacModelKey]rbacv1.RoleBinding
}

// loadRBACModel reads what the server stores now.
func loadRBACModel(ctx context.Context, cs kubernetes.Interface) (*rbacModel, error) {
	m := &rbacModel{clusterRoles: map[string][]rbacv1.PolicyRule{}, roles: map[rbacModelKey][]rbacv1.PolicyRule{},
		crbs: map[string]rbacv1.ClusterRoleBinding{}, rbs: map[rbacModelKey]rbacv1.RoleBinding{}}
	crs, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, r := range crs.Items {
		m.clusterRoles[r.Name] = r.Rules
	}
	roles, err := cs.RbacV1().Roles("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, r := range roles.Items {
		m.roles[rbacModelKey{r.Namespace, r.Name}] = r.Rules
	}
	crbs, err := cs.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, b := range crbs.Items {
		m.crbs[b.Name] = b
	}
	rbs, err := cs.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, b := range rbs.Items {
		m.rbs[rbacModelKey{b.Namespace, b.Name}] = b
	}
	return m, nil
}

// modelRequest is what a SubjectAccessReview asks.
type modelRequest struct {
	user                                                string
	groups                                              []string
	namespace, verb, group, resource, subresource, name string
	path                                                string // non-resource when set
}

// decide is the model's answer: allowed and the reason.
func (m *rbacModel) decide(r modelRequest) (bool, string) {
	if slices.Contains(r.groups, "system:masters") {
		return true, ""
	}
	var missing []string
	try := func(kind, bindingName, bindingNS string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) (string, bool) {
		subj := -1
		for i, s := range subjects {
			if m.subjectIs(s, bindingNS, r) {
				subj = i
				break
			}
		}
		if subj < 0 {
			return "", false
		}
		var rules []rbacv1.PolicyRule
		var ok bool
		if ref.Kind == "Role" {
			rules, ok = m.roles[rbacModelKey{bindingNS, ref.Name}]
		} else {
			rules, ok = m.clusterRoles[ref.Name]
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("%s.rbac.authorization.k8s.io %q not found", strings.ToLower(ref.Kind), ref.Name))
			return "", false
		}
		for _, rule := range rules {
			if m.matches(rule, r) {
				s := subjects[subj]
				who := fmt.Sprintf("%s %q", s.Kind, s.Name)
				if s.Kind == "ServiceAccount" {
					ns := s.Namespace
					if ns == "" {
						ns = bindingNS
					}
					who = fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
				}
				return fmt.Sprintf("RBAC: allowed by %s %q of %s %q to %s", kind, bindingName, ref.Kind, ref.Name, who), true
			}
		}
		return "", false
	}
	for _, name := range sortedKeys(m.crbs) {
		b := m.crbs[name]
		if reason, ok := try("ClusterRoleBinding", b.Name, "", b.RoleRef, b.Subjects); ok {
			return true, reason
		}
	}
	if r.namespace != "" && r.path == "" {
		var names []string
		for k := range m.rbs {
			if k.ns == r.namespace {
				names = append(names, k.name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			b := m.rbs[rbacModelKey{r.namespace, name}]
			if reason, ok := try("RoleBinding", b.Name+"/"+b.Namespace, b.Namespace, b.RoleRef, b.Subjects); ok {
				return true, reason
			}
		}
	}
	// An aggregate error states each distinct message once
	// (apimachinery util/errors aggregate.Error).
	var distinct []string
	for _, msg := range missing {
		if !slices.Contains(distinct, msg) {
			distinct = append(distinct, msg)
		}
	}
	missing = distinct
	switch len(missing) {
	case 0:
		return false, ""
	case 1:
		return false, "rbac: RBAC: " + missing[0]
	}
	return false, "rbac: RBAC: [" + strings.Join(missing, ", ") + "]"
}

// subjectIs reports whether binding subject s is the request's user.
func (m *rbacModel) subjectIs(s rbacv1.Subject, bindingNS string, r modelRequest) bool {
	switch s.Kind {
	case "User":
		return s.Name == r.user
	case "Group":
		return slices.Contains(r.groups, s.Name)
	case "ServiceAccount":
		ns := s.Namespace
		if ns == "" {
			ns = bindingNS
		}
		return ns != "" && r.user == "system:serviceaccount:"+ns+":"+s.Name
	}
	return false
}

// matches is one rule against the request.
func (m *rbacModel) matches(rule rbacv1.PolicyRule, r modelRequest) bool {
	if !slices.Contains(rule.Verbs, "*") && !slices.Contains(rule.Verbs, r.verb) {
		return false
	}
	if r.path != "" {
		for _, u := range rule.NonResourceURLs {
			if u == "*" || u == r.path || (strings.HasSuffix(u, "*") && strings.HasPrefix(r.path, strings.TrimSuffix(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !slices.Contains(rule.APIGroups, "*") && !slices.Contains(rule.APIGroups, r.group) {
		return false
	}
	full := r.resource
	if r.subresource != "" {
		full += "/" + r.subresource
	}
	resourceOK := slices.Contains(rule.Resources, "*") || slices.Contains(rule.Resources, full) ||
		(r.subresource != "" && slices.Contains(rule.Resources, "*/"+r.subresource))
	return resourceOK && (len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, r.name))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rbacMachine drives the server and the model.
type rbacMachine struct {
	cs     kubernetes.Interface
	model  *rbacModel
	prefix string
}

// The small universes the draws come from; names carry the run's prefix.
var (
	rbacVerbs        = []string{"get", "list", "create", "delete", "*"}
	rbacGroups       = []string{"", "apps", "*"}
	rbacResources    = []string{"pods", "configmaps", "deployments", "pods/log", "*/scale", "deployments/scale", "*"}
	rbacResourceName = []string{"a", "b"}
	rbacURLs         = []string{"/healthz", "/healthz/*", "/metrics", "*"}
)

func (m *rbacMachine) name(t *rapid.T, what string, n int) string {
	return m.prefix + what + strconv.Itoa(rapid.IntRange(0, n).Draw(t, what))
}

func (m *rbacMachine) ns(t *rapid.T) string {
	return m.prefix + "ns" + strconv.Itoa(rapid.IntRange(0, 1).Draw(t, "ns"))
}

// drawRules draws 1 to 3 rules; non-resource URLs only for a ClusterRole
// (a Role with them is invalid).
func (m *rbacMachine) drawRules(t *rapid.T, cluster bool) []rbacv1.PolicyRule {
	rules := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) rbacv1.PolicyRule {
		verbs := rapid.SliceOfNDistinct(rapid.SampledFrom(rbacVerbs), 1, 2, rapid.ID[string]).Draw(t, "verbs")
		if cluster && rapid.IntRange(0, 4).Draw(t, "nonResource") == 0 {
			return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: rapid.SliceOfNDistinct(rapid.SampledFrom(rbacURLs), 1, 2, rapid.ID[string]).Draw(t, "urls")}
		}
		r := rbacv1.PolicyRule{
			Verbs:     verbs,
			APIGroups: rapid.SliceOfNDistinct(rapid.SampledFrom(rbacGroups), 1, 2, rapid.ID[string]).Draw(t, "groups"),
			Resources: rapid.SliceOfNDistinct(rapid.SampledFrom(rbacResources), 1, 2, rapid.ID[string]).Draw(t, "resources"),
		}
		if rapid.Bool().Draw(t, "named") {
			r.ResourceNames = rapid.SliceOfNDistinct(rapid.SampledFrom(rbacResourceName), 1, 2, rapid.ID[string]).Draw(t, "names")
		}
		return r
	}), 1, 3).Draw(t, "rules")
	return rules
}

// subjects are drawn among the run's users, groups and service accounts.
func (m *rbacMachine) drawSubjects(t *rapid.T) []rbacv1.Subject {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) rbacv1.Subject {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			return rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: m.name(t, "user", 1)}
		case 1:
			return rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: m.name(t, "group", 1)}
		}
		s := rbacv1.Subject{Kind: "ServiceAccount", Name: m.name(t, "sa", 1)}
		if rapid.Bool().Draw(t, "saNamespace") {
			s.Namespace = m.ns(t)
		}
		return s
	}), 1, 2).Draw(t, "subjects")
}

func (m *rbacMachine) WriteClusterRole(t *rapid.T) {
	name := m.name(t, "cr", 1)
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: m.drawRules(t, true)}
	if _, ok := m.model.clusterRoles[name]; ok {
		m.update(t, func(ctx context.Context) error {
			cur, err := m.cs.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				cur.Rules = cr.Rules
				_, err = m.cs.RbacV1().ClusterRoles().Update(ctx, cur, metav1.UpdateOptions{})
			}
			return err
		})
	} else if _, err := m.cs.RbacV1().ClusterRoles().Create(context.Background(), cr, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(ClusterRole %s): %v", name, err)
	}
	m.model.clusterRoles[name] = cr.Rules
}

func (m *rbacMachine) WriteRole(t *rapid.T) {
	key := rbacModelKey{m.ns(t), m.name(t, "role", 1)}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: key.name, Namespace: key.ns}, Rules: m.drawRules(t, false)}
	if _, ok := m.model.roles[key]; ok {
		m.update(t, func(ctx context.Context) error {
			cur, err := m.cs.RbacV1().Roles(key.ns).Get(ctx, key.name, metav1.GetOptions{})
			if err == nil {
				cur.Rules = role.Rules
				_, err = m.cs.RbacV1().Roles(key.ns).Update(ctx, cur, metav1.UpdateOptions{})
			}
			return err
		})
	} else if _, err := m.cs.RbacV1().Roles(key.ns).Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(Role %v): %v", key, err)
	}
	m.model.roles[key] = role.Rules
}

// roleRef refers to a role of the run, which may not exist (index 2 never
// does).
func (m *rbacMachine) roleRef(t *rapid.T, namespaced bool) rbacv1.RoleRef {
	if namespaced && rapid.Bool().Draw(t, "refRole") {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: m.name(t, "role", 2)}
	}
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: m.name(t, "cr", 2)}
}

func (m *rbacMachine) WriteClusterRoleBinding(t *rapid.T) {
	name := m.name(t, "crb", 3)
	if _, ok := m.model.crbs[name]; ok {
		t.Skip("exists (roleRef is immutable)")
	}
	b := rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: m.roleRef(t, false), Subjects: m.drawSubjects(t)}
	if _, err := m.cs.RbacV1().ClusterRoleBindings().Create(context.Background(), &b, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(ClusterRoleBinding %s): %v", name, err)
	}
	m.model.crbs[name] = b
}

func (m *rbacMachine) WriteRoleBinding(t *rapid.T) {
	key := rbacModelKey{m.ns(t), m.name(t, "rb", 3)}
	if _, ok := m.model.rbs[key]; ok {
		t.Skip("exists (roleRef is immutable)")
	}
	b := rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: key.name, Namespace: key.ns}, RoleRef: m.roleRef(t, true), Subjects: m.drawSubjects(t)}
	if _, err := m.cs.RbacV1().RoleBindings(key.ns).Create(context.Background(), &b, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(RoleBinding %v): %v", key, err)
	}
	m.model.rbs[key] = b
}

func (m *rbacMachine) DeleteClusterRole(t *rapid.T) {
	name := m.name(t, "cr", 1)
	if _, ok := m.model.clusterRoles[name]; !ok {
		t.Skip("absent")
	}
	if err := m.cs.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(ClusterRole %s): %v", name, err)
	}
	delete(m.model.clusterRoles, name)
}

func (m *rbacMachine) DeleteRoleBinding(t *rapid.T) {
	key := rbacModelKey{m.ns(t), m.name(t, "rb", 3)}
	if _, ok := m.model.rbs[key]; !ok {
		t.Skip("absent")
	}
	if err := m.cs.RbacV1().RoleBindings(key.ns).Delete(context.Background(), key.name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(RoleBinding %v): %v", key, err)
	}
	delete(m.model.rbs, key)
}

// update retries an update that lost to nobody (the machine is the only
// writer), failing on any error.
func (m *rbacMachine) update(t *rapid.T, do func(context.Context) error) {
	if err := do(context.Background()); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// Review asks a random SubjectAccessReview and compares it with the model.
// Half the requests are aimed: at a subject of one of the run's bindings,
// and at what one of the run's rules names, so that allowed answers (and
// the rules' edge cases: "*", "*/scale", names) come up often.
func (m *rbacMachine) Review(t *rapid.T) {
	r := m.drawRequester(t)
	spec := authorizationv1.SubjectAccessReviewSpec{User: r.user, Groups: r.groups}
	rule, aimed := m.drawRunRule(t)
	r.verb = rapid.SampledFrom([]string{"get", "list", "create", "delete", "watch"}).Draw(t, "verb")
	if aimed && !slices.Contains(rule.Verbs, "*") {
		r.verb = rapid.SampledFrom(rule.Verbs).Draw(t, "ruleVerb")
	}
	if (aimed && len(rule.NonResourceURLs) > 0) || (!aimed && rapid.IntRange(0, 4).Draw(t, "nonResourceRequest") == 0) {
		r.path = rapid.SampledFrom([]string{"/healthz", "/healthz/ping", "/metrics", "/api", "/version"}).Draw(t, "path")
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: r.path, Verb: r.verb}
	} else {
		m.drawResource(t, &r, rule, aimed)
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: r.namespace, Verb: r.verb, Group: r.group,
			Resource: r.resource, Subresource: r.subresource, Name: r.name}
	}
	got, err := m.cs.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SubjectAccessReview(%+v): %v", r, err)
	}
	allowed, reason := m.model.decide(r)
	want := authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Reason: reason}
	if diff := cmp.Diff(want, got.Status); diff != "" {
		t.Fatalf("SubjectAccessReview(%+v) mismatch (-model +server):\n%s", r, diff)
	}
}

// drawRequester draws the user and groups, often a subject of one of the
// run's bindings.
func (m *rbacMachine) drawRequester(t *rapid.T) modelRequest {
	r := modelRequest{user: m.name(t, "user", 1)}
	if rapid.IntRange(0, 3).Draw(t, "asServiceAccount") == 0 {
		ns := m.ns(t)
		r.user = "system:serviceaccount:" + ns + ":" + m.name(t, "sa", 1)
		r.groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
	}
	r.groups = append(r.groups, rapid.SliceOfNDistinct(rapid.SampledFrom([]string{m.prefix + "group0", m.prefix + "group1", "system:authenticated"}), 0, 2, rapid.ID[string]).Draw(t, "groups")...)
	if rapid.IntRange(0, 20).Draw(t, "master") == 0 {
		r.groups = append(r.groups, "system:masters")
	}
	return r
}

// drawRunRule picks a rule of the run's roles half the time.
func (m *rbacMachine) drawRunRule(t *rapid.T) (rbacv1.PolicyRule, bool) {
	var rules []rbacv1.PolicyRule
	for name, rs := range m.model.clusterRoles {
		if strings.HasPrefix(name, m.prefix) {
			rules = append(rules, rs...)
		}
	}
	for k, rs := range m.model.roles {
		if strings.HasPrefix(k.name, m.prefix) {
			rules = append(rules, rs...)
		}
	}
	if len(rules) == 0 || !rapid.Bool().Draw(t, "aimed") {
		return rbacv1.PolicyRule{}, false
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].String() < rules[j].String() }) // map order is random
	return rapid.SampledFrom(rules).Draw(t, "rule"), true
}

// drawResource fills the request's resource attributes, from rule when
// aimed.
func (m *rbacMachine) drawResource(t *rapid.T, r *modelRequest, rule rbacv1.PolicyRule, aimed bool) {
	r.namespace = rapid.SampledFrom([]string{m.prefix + "ns0", m.prefix + "ns1", ""}).Draw(t, "namespace")
	r.group = rapid.SampledFrom([]string{"", "apps"}).Draw(t, "group")
	r.resource = rapid.SampledFrom([]string{"pods", "configmaps", "deployments", "statefulsets"}).Draw(t, "resource")
	r.subresource = rapid.SampledFrom([]string{"", "log", "scale", "status"}).Draw(t, "subresource")
	r.name = rapid.SampledFrom([]string{"", "a", "b", "c"}).Draw(t, "name")
	if !aimed {
		return
	}
	if g := rapid.SampledFrom(rule.APIGroups).Draw(t, "ruleGroup"); g != "*" {
		r.group = g
	}
	res := rapid.SampledFrom(rule.Resources).Draw(t, "ruleResource")
	switch base, sub, _ := strings.Cut(res, "/"); {
	case res == "*":
	case base == "*":
		r.subresource = sub
	default:
		r.resource, r.subresource = base, sub
	}
	// Mostly one of the rule's names; else the drawn one, which may be
	// another (denied) or none.
	if len(rule.ResourceNames) > 0 && rapid.IntRange(0, 2).Draw(t, "useRuleName") > 0 {
		r.name = rapid.SampledFrom(rule.ResourceNames).Draw(t, "ruleName")
	}
}

func (m *rbacMachine) Check(*rapid.T) {}

// TestRBACAuthorizerAgainstModel runs the machine on one RBAC server.
func TestRBACAuthorizerAgainstModel(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithAuthorization(AuthorizationRBAC))
	cs := srv.Clientset()
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		prefix := "r" + strconv.Itoa(run) + "-"
		for i := range 2 {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: prefix + "ns" + strconv.Itoa(i)}}
			if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				rt.Fatal(err)
			}
		}
		model, err := loadRBACModel(context.Background(), cs)
		if err != nil {
			rt.Fatal(err)
		}
		rt.Repeat(rapid.StateMachineActions(&rbacMachine{cs: cs, model: model, prefix: prefix}))
	})
}
