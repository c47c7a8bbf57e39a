package fakeapiserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// Authentication, as kube-apiserver's authenticator chain does it
// (kubernetes pkg/kubeapiserver/authenticator/config.go New), built from
// k8s.io/apiserver's own authenticators:
//
//  1. a client certificate verified against [Config.ClientCA] is the user
//     its subject names: CN the user, O the groups (request/x509
//     CommonNameUserConversion); any other certificate is 401
//     (frontProxyVerifier);
//  2. a bearer token ("Bearer" in any case, request/bearertoken) is
//     [Config.Token], the loopback admin (adminUser), or a service-account
//     token this server minted (satoken.go); any other token is 401;
//  3. a user found so far is put in system:authenticated
//     (group.AuthenticatedGroupAdder);
//  4. a request with no credentials is system:anonymous in
//     system:unauthenticated; one whose credentials failed is 401
//     (union.NewFailOnError).
//
// A server with neither Token nor ClientCA has no credentials to check, as
// lw-sim had before it authenticated: a request without credentials is the
// loopback admin, and a bearer token is a service account when it is one
// of the server's tokens, else also the admin. That keeps
// fakeapiserver.Start(t) with no options an open cluster for its tests.

const (
	// loopbackUser is the user kube-apiserver's loopback token is
	// (apiserver pkg/authentication/user APIServerUser), the identity the
	// fake gives [Config.Token]: an admin, as the credentials
	// kube-apiserver itself and its test server hand out.
	loopbackUser = user.APIServerUser
)

// adminUser is the identity of [Config.Token] (and of every request when
// no credentials are configured): kube-apiserver's loopback user,
// system:apiserver in system:authenticated and system:masters (apiserver
// pkg/server/config.go AuthorizeClientBearerToken), with a UID fixed per
// server start. It is one value per server, shared by the requests it
// authenticates (each keeps its user for as long as it runs, an open
// watch too), so nobody may modify it.
func (s *Server) adminUser() *user.DefaultInfo { return s.admin }

// newAdminUser builds [Server.adminUser] for a server whose admin has uid.
func newAdminUser(uid string) *user.DefaultInfo {
	return &user.DefaultInfo{Name: loopbackUser, UID: uid, Groups: []string{user.AllAuthenticated, user.SystemPrivilegedGroup}}
}

// newAuthenticator builds the request authenticator for s.cfg (see
// above): the loopback token's own bearer authenticator in union with the
// configured chain, as apiserver pkg/server/config.go
// AuthorizeClientBearerToken puts it in front (so a token nobody knows
// fails in both, the same "invalid bearer token" twice, once reported).
func (s *Server) newAuthenticator() authenticator.Request {
	if s.cfg.Token == "" && s.cfg.ClientCA == nil {
		return s.openAuthenticator(bearertoken.New(s.serviceAccountTokens()))
	}
	var chain []authenticator.Request
	if s.cfg.ClientCA != nil {
		opts := x509request.DefaultVerifyOptions()
		opts.Roots = s.cfg.ClientCA
		chain = append(chain, frontProxyVerifier(), x509request.New(opts, x509request.CommonNameUserConversion))
	}
	chain = append(chain, bearertoken.New(s.serviceAccountTokens()))
	main := union.NewFailOnError(group.NewAuthenticatedGroupAdder(union.New(chain...)), anonymous.NewAuthenticator(nil))
	if s.cfg.Token == "" {
		return main
	}
	return union.New(bearertoken.New(authenticator.WrapAudienceAgnosticToken(s.apiAudiences(), s.staticTokenAuthenticator())), main)
}

// errFrontProxyCA is the front-proxy verifier's failure for a client
// certificate its CA did not sign.
var errFrontProxyCA = errors.New("x509: certificate signed by unknown authority")

// frontProxyVerifier stands for the request-header authenticator of
// clusters that serve aggregated APIs (--requestheader-client-ca-file,
// which kubeadm always sets, and the reference kube-apiserver has): it
// verifies every client certificate against the front proxy's CA and
// fails for any other (request/x509 Verifier). A certificate the client CA
// authenticates wins the union anyway; one that names no user (no CN) is
// then 401, not anonymous, as on those clusters. The fake has no front
// proxy, so no certificate passes it.
func frontProxyVerifier() authenticator.Request {
	return authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			return nil, false, nil
		}
		return nil, false, errFrontProxyCA
	})
}

// staticTokenAuthenticator authenticates [Config.Token] as the admin, as
// the loopback token authenticator does (authenticatorfactory.NewFromTokens
// over apiserver's tokenfile): an unknown token is no opinion, which
// bearertoken turns into "invalid bearer token".
func (s *Server) staticTokenAuthenticator() authenticator.Token {
	return authenticator.TokenFunc(func(_ context.Context, token string) (*authenticator.Response, bool, error) {
		if subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) != 1 {
			return nil, false, nil
		}
		return &authenticator.Response{User: s.adminUser()}, true, nil
	})
}

// openAuthenticator is the authenticator of a server without credentials:
// a service-account token of this server is its service account (in
// system:authenticated), anything else the admin.
func (s *Server) openAuthenticator(tokens authenticator.Request) authenticator.Request {
	withGroup := group.NewAuthenticatedGroupAdder(tokens)
	return authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		if resp, ok, err := withGroup.AuthenticateRequest(r); ok && err == nil {
			return resp, true, nil
		}
		r.Header.Del("Authorization")
		auds, _ := authenticator.AudiencesFrom(r.Context())
		return &authenticator.Response{User: s.adminUser(), Audiences: auds}, true, nil
	})
}

// authContext is ctx with what authentication reads from a request's
// context: the server's API audiences, as kube-apiserver's
// WithAuthentication filter sets them (endpoints/filters/authentication.go),
// and a recorder that makes the authenticators' warnings (a bearer token
// after two spaces) Warning headers of w.
func (s *Server) authContext(ctx context.Context, w http.ResponseWriter) context.Context {
	return withWarnings(authenticator.WithAudiences(ctx, s.apiAudiences()), w)
}

// authenticate runs the authenticator over r, whose context is an
// authContext, and returns r carrying the user
// (genericapirequest.UserFrom), or ok false after writing the real 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	resp, ok, err := s.authn.AuthenticateRequest(r)
	if err != nil || !ok {
		s.writeError(w, r, errUnauthorized())
		return nil, false
	}
	return r.WithContext(genericapirequest.WithUser(r.Context(), resp.User)), true
}

// userOf returns the user r was authenticated as (nil outside the handler
// chain, which only tests reach).
func userOf(r *http.Request) user.Info {
	u, _ := genericapirequest.UserFrom(r.Context())
	return u
}
