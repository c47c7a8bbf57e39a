package fakeapiserver

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// errTokenInvalidated is kube-apiserver's answer for a token whose bound
// object is gone (claims.go).
var errTokenInvalidated = errors.New("service account token has been invalidated")

// Core resources a token names.
var (
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	podsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	secretsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	nodesGVR           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

// validateTokenClaims is claims.go validator.Validate after the times: the
// service account must exist with the token's UID and not be deleted
// (past the leeway), and so must the secret, pod or node the token is
// bound to. It returns the identity the token stands for: the service
// account with its credential ID and bound pod and node.
func (s *Server) validateTokenClaims(c *saClaims) (*serviceaccount.ServiceAccountInfo, error) {
	k := c.Kubernetes
	deletedBefore := s.cfg.Clock.Now().Add(-jwtLeeway)
	sa, err := s.currentMeta(serviceAccountsGVR, k.Namespace, k.Svcacct.Name)
	if err != nil {
		return nil, err
	}
	if string(sa.GetUID()) != k.Svcacct.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.GetUID(), k.Svcacct.UID)
	}
	if deletedBy(sa, deletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.Svcacct.Name)
	}
	info := &serviceaccount.ServiceAccountInfo{Name: k.Svcacct.Name, Namespace: k.Namespace, UID: k.Svcacct.UID}
	if c.ID != "" {
		info.CredentialID = "JTI=" + c.ID // apiserver authentication/token/jwt CredentialIDForJTI
	}
	if k.Secret != nil {
		if err := s.checkBound(secretsGVR, k.Namespace, "secret", "service account secret ref", k.Secret, deletedBefore); err != nil {
			return nil, err
		}
	}
	if k.Pod != nil {
		if err := s.checkBound(podsGVR, k.Namespace, "pod", "service account pod ref", k.Pod, deletedBefore); err != nil {
			return nil, err
		}
		info.PodName, info.PodUID = k.Pod.Name, k.Pod.UID
	}
	if k.Node != nil {
		if k.Pod == nil {
			if err := s.checkBound(nodesGVR, "", "node", "service account node ref", k.Node, deletedBefore); err != nil {
				return nil, err
			}
		}
		info.NodeName, info.NodeUID = k.Node.Name, k.Node.UID
	}
	return info, nil
}

// checkBound checks that the object ref names still exists with its UID
// and is not being deleted since before deletedBefore.
func (s *Server) checkBound(gvr schema.GroupVersionResource, namespace, what, claim string, ref *claimRef, deletedBefore time.Time) error {
	m, err := s.currentMeta(gvr, namespace, ref.Name)
	if err != nil {
		return errTokenInvalidated
	}
	if string(m.GetUID()) != ref.UID {
		return fmt.Errorf("%s UID (%s) does not match %s claim (%s)", what, m.GetUID(), claim, ref.UID)
	}
	if deletedBy(m, deletedBefore) {
		return errTokenInvalidated
	}
	return nil
}

// deletedBy reports whether m's deletion began before t.
func deletedBy(m metav1.Object, t time.Time) bool {
	ts := m.GetDeletionTimestamp()
	return ts != nil && ts.Time.Before(t)
}

// currentMeta reads the live object gvr/namespace/name (404 if absent or
// not served).
func (s *Server) currentMeta(gvr schema.GroupVersionResource, namespace, name string) (metav1.Object, error) {
	res, ok := s.resources.lookup(gvr)
	if !ok {
		return nil, fmt.Errorf("%s is not served", gvr.Resource)
	}
	obj, err := s.current(res, namespace, name)
	if err != nil {
		return nil, err
	}
	return metaOf(obj), nil
}

// metaOf is obj's ObjectMeta.
func metaOf(obj runtime.Object) metav1.Object { return mustAccessor(obj) }
