package fakeapiserver

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// A request's way through authentication and authorization, as
// kube-apiserver's filter chain orders them
// (apiserver pkg/server/config.go DefaultBuildHandlerChain): authenticate
// (authn.go; 401), impersonate (impersonate.go; 400/403), authorize
// (authz.go; 403), then the handlers. buildHandler (handler.go) runs them.

// errUnauthorized is the 401 of a request whose credentials failed
// (endpoints/filters/authentication.go Unauthorized).
func errUnauthorized() error { return apierrors.NewUnauthorized("Unauthorized") }

// checkAuthConfig rejects configurations the server cannot serve.
func checkAuthConfig(cfg Config) error {
	if err := checkAuthorizationMode(cfg.Authorization); err != nil {
		return err
	}
	if cfg.ClientCA != nil && cfg.TLS == nil {
		return errors.New("fakeapiserver: ClientCA needs TLS: client certificates come with a TLS handshake")
	}
	return nil
}

// setUpAuth builds the server's authenticator, authorizer and token
// signer.
func (s *Server) setUpAuth() error {
	var err error
	if s.tokens, err = newTokenSigner(); err != nil {
		return fmt.Errorf("fakeapiserver: %w", err)
	}
	src, err := s.rbacSource()
	if err != nil {
		return err
	}
	if s.authz, err = newAuthz(s.cfg.Authorization, src); err != nil {
		return err
	}
	if s.cfg.Authorization == AuthorizationRBAC {
		if _, ok := src.(*storeRBAC); !ok {
			return errors.New("fakeapiserver: RBAC authorization needs rbac.authorization.k8s.io/v1 served")
		}
	}
	s.authn = s.newAuthenticator()
	return nil
}

// rbacSource is the policy the RBAC authorizer reads: the store's, or the
// captured bootstrap policy when the server does not serve
// rbac.authorization.k8s.io/v1.
func (s *Server) rbacSource() (rbacSource, error) {
	keys := [4]string{}
	for i, r := range []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"} {
		res, ok := s.resources.lookup(rbacGroupVersion.WithResource(r))
		if !ok {
			p, err := capturedPolicy()
			if err != nil {
				return nil, err
			}
			return staticRBAC{p}, nil
		}
		keys[i] = res.storageKey
	}
	return &storeRBAC{st: s.store, clusterRoles: keys[0], clusterBindings: keys[1], roles: keys[2], binds: keys[3]}, nil
}
