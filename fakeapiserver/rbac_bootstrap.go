package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/captured"
)

// The bootstrap RBAC policy: the ClusterRoles, ClusterRoleBindings, Roles
// and RoleBindings kube-apiserver creates at start (its
// rbac/bootstrap-roles post-start hook, kubernetes pkg/registry/rbac/rest
// storage_rbac.go, from plugin/pkg/auth/authorizer/rbac/bootstrappolicy),
// as the real server created them (internal/captured). Every cluster has
// them, so every server seeds them; the RBAC authorizer (rbac_authorizer.go)
// then gives system:masters, system:authenticated and
// system:unauthenticated what a cluster gives them.

// rbacGroupVersion is the group-version the policy is written in.
var rbacGroupVersion = schema.GroupVersion{Group: rbacv1.GroupName, Version: "v1"}

// bootstrapPolicy is the captured policy, decoded.
type bootstrapPolicy struct {
	ClusterRoles        []*rbacv1.ClusterRole        `json:"clusterroles"`
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding `json:"clusterrolebindings"`
	Roles               []*rbacv1.Role               `json:"roles"`
	RoleBindings        []*rbacv1.RoleBinding        `json:"rolebindings"`
}

// capturedPolicy decodes the captured policy once per process. The value
// is shared and never modified: seeding deep-copies each object.
var capturedPolicy = sync.OnceValues(func() (*bootstrapPolicy, error) {
	raw, err := captured.RBACBootstrap()
	if err != nil {
		return nil, err
	}
	var p bootstrapPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("fakeapiserver: captured bootstrap RBAC policy: %w", err)
	}
	return &p, nil
})

// seedItem is one object of the policy and the resource it is stored as.
type seedItem struct {
	resource string
	obj      runtime.Object
}

// objects lists the policy in the order it is created: roles before the
// bindings that name them.
func (p *bootstrapPolicy) objects() []seedItem {
	var out []seedItem
	for _, o := range p.ClusterRoles {
		out = append(out, seedItem{"clusterroles", o})
	}
	for _, o := range p.ClusterRoleBindings {
		out = append(out, seedItem{"clusterrolebindings", o})
	}
	for _, o := range p.Roles {
		out = append(out, seedItem{"roles", o})
	}
	for _, o := range p.RoleBindings {
		out = append(out, seedItem{"rolebindings", o})
	}
	return out
}

// seedBootstrapPolicy creates the bootstrap policy, owned by
// kube-apiserver as the system namespaces are (seed.go). A
// server that does not serve rbac.authorization.k8s.io/v1 has nowhere to
// store it; its authorizer then reads the captured policy directly
// (rbac_source.go).
func (s *Server) seedBootstrapPolicy() error {
	if _, ok := s.resources.lookup(rbacGroupVersion.WithResource("clusterroles")); !ok {
		return nil
	}
	p, err := capturedPolicy()
	if err != nil {
		return err
	}
	items := p.objects()
	fields, err := s.seedFields(items)
	if err != nil {
		return err
	}
	now := metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
	for i, it := range items {
		obj := it.obj.DeepCopyObject()
		m := mustAccessor(obj)
		entries := slices.Clone(fields[i])
		for j := range entries {
			entries[j].Time = now.DeepCopy()
		}
		m.SetManagedFields(entries)
		res, _ := s.resources.lookup(rbacGroupVersion.WithResource(it.resource))
		// The objects are what kube-apiserver validated and stored: the
		// system fields and the store are all a create adds to them here
		// (the validation and etcd size checks of createObject would
		// double a server's start time).
		s.fillCreateMeta(res, obj)
		if _, err := s.store.Create(res.storageKey, objectKey(res, m.GetNamespace(), m.GetName()), obj); err != nil {
			return fmt.Errorf("fakeapiserver: seed %s %s/%s: %w", it.resource, m.GetNamespace(), m.GetName(), err)
		}
	}
	return nil
}

// seedFieldsMemo holds the managedFields of each policy object as
// kube-apiserver's create records them, computed by the first server that
// seeds: they depend on the object and the schema only (the time is
// restamped per server), and the field manager costs most of seeding.
var seedFieldsMemo struct {
	once    sync.Once
	entries [][]metav1.ManagedFieldsEntry
	err     error
}

// seedFields returns the memoised managedFields of items (one slice per
// item; shared: callers copy before changing).
func (s *Server) seedFields(items []seedItem) ([][]metav1.ManagedFieldsEntry, error) {
	seedFieldsMemo.once.Do(func() {
		seedFieldsMemo.entries, seedFieldsMemo.err = s.trackSeeds(items)
	})
	return seedFieldsMemo.entries, seedFieldsMemo.err
}

// trackSeeds runs the field manager over each item as a create by
// seedManager.
func (s *Server) trackSeeds(items []seedItem) ([][]metav1.ManagedFieldsEntry, error) {
	out := make([][]metav1.ManagedFieldsEntry, len(items))
	for i, it := range items {
		gvr := rbacGroupVersion.WithResource(it.resource)
		res, ok := s.resources.lookup(gvr)
		if !ok {
			return nil, fmt.Errorf("fakeapiserver: seed %s: not served", gvr)
		}
		fm, err := res.managers()
		if err != nil {
			return nil, fmt.Errorf("fakeapiserver: field manager of %s: %w", gvr.Resource, err)
		}
		tracked := s.track(fm.main, seedManager, res.newObject(), it.obj.DeepCopyObject())
		out[i] = mustAccessor(tracked).GetManagedFields()
	}
	return out, nil
}
