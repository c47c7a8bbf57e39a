package crfake

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// A test that used controller-runtime's fake with its own kinds registered
// in the scheme never installed their CRDs: the fake stores any kind the
// scheme has. A server serves only what a CRD defines, so Build creates
// one for each such kind, the closest a CRD gets to "any object of this Go
// type": a schema that keeps every field (x-kubernetes-preserve-unknown-
// fields), every version of the kind served, no conversion. What it cannot
// know it takes from the builder: the scope from WithRESTMapper, else from
// the seeded objects (cluster-scoped when every seeded object of the kind
// has no namespace), else namespaced; a status subresource when
// WithStatusSubresource names the kind, as controller-runtime's fake gives
// a kind outside client-go's scheme a status subresource only then.

// installCRDs creates the CRDs of WithCRDs and the generated ones on srv
// through cl.
func (b *ClientBuilder) installCRDs(ctx context.Context, cl client.Client, srv *fakeclientset.Server, seeds []apiruntime.Object) error {
	crds := append([]*apiextensionsv1.CustomResourceDefinition(nil), b.crds...)
	generated, err := b.generatedCRDs(srv, seeds)
	if err != nil {
		return err
	}
	crds = append(crds, generated...)
	for _, crd := range crds {
		if err := createCRD(ctx, cl, crd); err != nil {
			return err
		}
	}
	return nil
}

// createCRD creates crd (unstructured, so the client's scheme needs no
// apiextensions types) and checks it is Established: the server
// establishes a CRD within the create that made it
// (fakeapiserver/crd_lifecycle.go), so one read tells.
func createCRD(ctx context.Context, cl client.Client, crd *apiextensionsv1.CustomResourceDefinition) error {
	content, err := apiruntime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return fmt.Errorf("CRD %s: %w", crd.Name, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := cl.Create(ctx, u); err != nil {
		return fmt.Errorf("create CRD %s: %w", crd.Name, err)
	}
	if err := cl.Get(ctx, client.ObjectKey{Name: crd.Name}, u); err != nil {
		return fmt.Errorf("read CRD %s: %w", crd.Name, err)
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == string(apiextensionsv1.Established) && m["status"] == string(apiextensionsv1.ConditionTrue) {
			return nil
		}
	}
	return fmt.Errorf("CRD %s is not Established: %v", crd.Name, conds)
}

// generatedCRDs are the CRDs of the scheme's kinds in groups srv does not
// serve and no CRD of WithCRDs names.
func (b *ClientBuilder) generatedCRDs(srv *fakeclientset.Server, seeds []apiruntime.Object) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	served, err := servedGroups(srv)
	if err != nil {
		return nil, err
	}
	for _, crd := range b.crds {
		served[crd.Spec.Group] = true
	}
	kinds := customKinds(b.kinds(), served)
	if len(kinds) == 0 {
		return nil, nil
	}
	status, err := b.statusKinds()
	if err != nil {
		return nil, err
	}
	clusterScoped := b.seededScopes(seeds)
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(kinds))
	for _, gk := range sortedKinds(kinds) {
		namespaced := true
		if m, err := b.mapping(gk); err == nil {
			namespaced = m.Scope.Name() == meta.RESTScopeNameNamespace
		} else if c, ok := clusterScoped[gk]; ok {
			namespaced = !c
		}
		out = append(out, generatedCRD(gk, kinds[gk], namespaced, status[gk]))
	}
	return out, nil
}

// mapping asks WithRESTMapper's mapper about gk.
func (b *ClientBuilder) mapping(gk schema.GroupKind) (*meta.RESTMapping, error) {
	if b.restMapper == nil {
		return nil, fmt.Errorf("no mapper")
	}
	return b.restMapper.RESTMapping(gk)
}

// seededScopes says, per kind seeded, whether every seeded object of it
// has no namespace.
func (b *ClientBuilder) seededScopes(seeds []apiruntime.Object) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, obj := range seeds {
		if meta.IsListType(obj) {
			continue
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		gvk, err := apiutil.GVKForObject(obj, b.kinds())
		if err != nil {
			continue
		}
		noNS := m.GetNamespace() == ""
		if prev, ok := out[gvk.GroupKind()]; ok {
			noNS = noNS && prev
		}
		out[gvk.GroupKind()] = noNS
	}
	return out
}

// servedGroups are the API groups srv serves (one discovery request).
func servedGroups(srv *fakeclientset.Server) (map[string]bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(srv.RESTConfig(), srv.HTTPClient())
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	out := map[string]bool{}
	for _, g := range groups.Groups {
		out[g.Name] = true
	}
	return out, nil
}

// customKinds are the kinds of s (types with object metadata; a list
// type is not needed, as a CRD names its list kind KIND+"List" anyway) in
// groups not served, by group-kind, with their versions. Only
// groups a CRD may have count: a DNS subdomain with a dot, outside the
// k8s.io and kubernetes.io groups (whose CRDs need API approval and which
// name the built-in APIs a server might not serve, as client-go's scheme's
// betas). Any other is left to the server's 404, as on a cluster.
func customKinds(s *apiruntime.Scheme, served map[string]bool) map[schema.GroupKind][]string {
	all := s.AllKnownTypes()
	out := map[schema.GroupKind][]string{}
	for gvk, t := range all {
		if served[gvk.Group] || !isCRDGroup(gvk.Group) || gvk.Version == apiruntime.APIVersionInternal {
			continue
		}
		if _, ok := reflect.New(t).Interface().(metav1.Object); !ok {
			continue
		}
		out[gvk.GroupKind()] = append(out[gvk.GroupKind()], gvk.Version)
	}
	return out
}

// isCRDGroup says whether a CRD may define group without approval.
func isCRDGroup(group string) bool {
	if !strings.Contains(group, ".") || len(validation.IsDNS1123Subdomain(group)) > 0 {
		return false
	}
	for _, protected := range []string{"k8s.io", "kubernetes.io"} {
		if group == protected || strings.HasSuffix(group, "."+protected) {
			return false
		}
	}
	return true
}

// sortedKinds orders kinds for a stable creation order.
func sortedKinds(kinds map[schema.GroupKind][]string) []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(kinds))
	for gk := range kinds {
		out = append(out, gk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// generatedCRD is the CRD of gk described above; the storage version is
// the highest by Kubernetes' version order.
func generatedCRD(gk schema.GroupKind, versions []string, namespaced, status bool) *apiextensionsv1.CustomResourceDefinition {
	sort.Slice(versions, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0 })
	plural, singular := meta.UnsafeGuessKindToResource(gk.WithVersion(""))
	scope := apiextensionsv1.NamespaceScoped
	if !namespaced {
		scope = apiextensionsv1.ClusterScoped
	}
	keep := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural.Resource + "." + gk.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gk.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural.Resource, Singular: singular.Resource, Kind: gk.Kind, ListKind: gk.Kind + "List",
			},
			Scope: scope,
		},
	}
	for i, v := range versions {
		cv := apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: true, Storage: i == 0,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", XPreserveUnknownFields: &keep,
			}},
		}
		if status {
			cv.Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
		}
		crd.Spec.Versions = append(crd.Spec.Versions, cv)
	}
	return crd
}
