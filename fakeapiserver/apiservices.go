package fakeapiserver

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The APIServices of apiregistration.k8s.io/v1, kube-aggregator's record
// of who serves each group-version:
//
//   - one local APIService per built-in group-version the server serves
//     (spec.service nil, the priorities of internal/discovery
//     priorities.go), created at start and labelled
//     kube-aggregator.kubernetes.io/automanaged=onstart: never recreated
//     once deleted (kube-aggregator pkg/controllers/autoregister
//     checkAPIService, "sync on start"; kubernetes pkg/controlplane/
//     apiserver/aggregator.go apiServicesToRegister);
//   - one per served version of every CRD, priority 1000/100, labelled
//     automanaged=true and kept in step with the CRDs: created, reset and
//     deleted by the CRD registration controller (kubernetes
//     pkg/controlplane/controller/crdregistration), soon after the CRD
//     changes (reconcileAPIServices, in the controller loop).
//
// A local APIService is Available at once (the registry's PrepareForCreate,
// prepareAPIServiceCreate). Users may create, update and delete
// APIServices; they are stored and validated, but lw-sim proxies to no
// aggregated server and its discovery stays that of the resources it
// serves (conformance/DIVERGENCES.md).

const (
	// automanagedLabel says how the autoregister controller syncs an
	// APIService (autoregister_controller.go AutoRegisterManagedLabel).
	automanagedLabel = "kube-aggregator.kubernetes.io/automanaged"
	// automanagedOnStart marks those synced once, at start.
	automanagedOnStart = "onstart"
	// automanagedAlways marks those synced continuously (CRDs').
	automanagedAlways = "true"
)

// The resources the APIService controllers read and write.
var (
	apiServicesGVR = schema.GroupVersionResource{Group: apiregistrationv1.GroupName, Version: "v1", Resource: "apiservices"}
	crdsGVR        = schema.GroupVersionResource{Group: apiextensionsv1.GroupName, Version: "v1", Resource: "customresourcedefinitions"}
)

// apiServiceName is the name of gv's APIService: version.group ("v1." for
// the core group).
func apiServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// newAPIService is the APIService of gv at priority p with the
// automanaged label value sync.
func newAPIService(gv schema.GroupVersion, p discovery.Priority, sync string) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiregistrationv1.SchemeGroupVersion.String(), Kind: "APIService"},
		ObjectMeta: metav1.ObjectMeta{Name: apiServiceName(gv), Labels: map[string]string{automanagedLabel: sync}},
		Spec: apiregistrationv1.APIServiceSpec{Group: gv.Group, Version: gv.Version,
			GroupPriorityMinimum: p.Group, VersionPriority: p.Version},
	}
}

// localAPIServiceObjects are the local APIServices of the built-in
// group-versions the server serves, created at New.
func (s *Server) localAPIServiceObjects() []bootstrapObject {
	var out []bootstrapObject
	for _, gv := range s.resources.servedGroupVersions() {
		p, ok := discovery.BuiltinPriority(gv)
		if !ok {
			continue
		}
		out = append(out, bootstrapObject{gvr: apiServicesGVR, name: apiServiceName(gv), body: newAPIService(gv, p, automanagedOnStart)})
	}
	return out
}

// reconcileAPIServices is the CRD registration controller and the
// autoregister controller's continuous sync: every served version of
// every CRD has its APIService with the CRD priority; automanaged=true
// ones no CRD wants are deleted; others are left alone.
func (s *Server) reconcileAPIServices(ctx context.Context, now time.Time) time.Time {
	apiRes, ok := s.resources.lookup(apiServicesGVR)
	crdRes, okCRD := s.resources.lookup(crdsGVR)
	if !ok || !okCRD {
		return time.Time{}
	}
	want, err := s.crdAPIServices(crdRes)
	if err != nil {
		return now.Add(apfStatusRetry)
	}
	have, err := s.store.List(apiRes.storageKey, store.ListOptions{})
	if err != nil {
		return now.Add(apfStatusRetry)
	}
	failed := false
	for _, obj := range have.Items {
		cur, ok := obj.(*apiregistrationv1.APIService)
		if !ok {
			continue
		}
		desired, wanted := want[cur.Name]
		delete(want, cur.Name)
		if err := s.syncAPIService(ctx, cur, desired, wanted); err != nil {
			failed = true
		}
	}
	for _, desired := range want {
		path := bootstrapObject{gvr: apiServicesGVR}.path()
		if _, err := s.loopback(ctx, loopbackRequest{method: http.MethodPost, path: path, body: desired}); err != nil && !apierrors.IsAlreadyExists(err) {
			failed = true
		}
	}
	if failed {
		return now.Add(apfStatusRetry)
	}
	return time.Time{}
}

// crdAPIServices are the APIServices the stored CRDs call for, by name.
func (s *Server) crdAPIServices(crdRes *resourceInfo) (map[string]*apiregistrationv1.APIService, error) {
	crds, err := s.store.List(crdRes.storageKey, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	want := map[string]*apiregistrationv1.APIService{}
	for _, obj := range crds.Items {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
				want[apiServiceName(gv)] = newAPIService(gv, discovery.CustomResourcePriority, automanagedAlways)
			}
		}
	}
	return want, nil
}

// syncAPIService brings the stored cur in line: an APIService not managed
// continuously is left alone; one no CRD wants is deleted (with its uid
// as precondition); one whose spec differs gets the desired spec.
func (s *Server) syncAPIService(ctx context.Context, cur, desired *apiregistrationv1.APIService, wanted bool) error {
	if cur.Labels[automanagedLabel] != automanagedAlways {
		return nil
	}
	path := bootstrapObject{gvr: apiServicesGVR}.path() + "/" + cur.Name
	var err error
	switch {
	case !wanted:
		opts := metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(cur.UID))}
		_, err = s.loopback(ctx, loopbackRequest{method: http.MethodDelete, path: path, body: &opts})
	case !reflect.DeepEqual(cur.Spec, desired.Spec):
		next := cur.DeepCopy()
		next.TypeMeta = desired.TypeMeta
		next.Spec = desired.Spec
		_, err = s.loopback(ctx, loopbackRequest{method: http.MethodPut, path: path, body: next, query: url.Values{}})
	}
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // changed meanwhile: that write wakes the loop again
	}
	return err
}
