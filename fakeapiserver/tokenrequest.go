package fakeapiserver

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

// The TokenRequest subresource, POST serviceaccounts/NAME/token
// (client-go ServiceAccounts(ns).CreateToken, kubectl create token), as
// kubernetes pkg/registry/core/serviceaccount/storage/token.go answers it:
// a token this server signed (satoken.go) for the service account,
// optionally bound to a pod, secret or node, which the server then
// authenticates as that service account.

const (
	// defaultTokenExpirationSeconds is TokenRequestSpec's default
	// (pkg/apis/authentication/v1/defaults.go).
	defaultTokenExpirationSeconds = 60 * 60
	// minTokenExpirationSeconds and maxTokenExpirationSeconds bound
	// spec.expirationSeconds (pkg/apis/authentication/validation
	// MinTokenAgeSec, and 2^32).
	minTokenExpirationSeconds = 10 * 60
	maxTokenExpirationSeconds = 1 << 32
	// warnOnlyTokenExpirationSeconds and extendedTokenExpirationSeconds
	// are kube-apiserver's safe rollout of bound tokens: a pod-bound token
	// for the API audiences asked for 3607 s (the kubelet's projected
	// default) is valid for a year and warns after 3607 s
	// (pkg/serviceaccount/claims.go; --service-account-extend-token-expiration
	// is on by default).
	warnOnlyTokenExpirationSeconds = 60*60 + 7
	extendedTokenExpirationSeconds = 24 * 365 * 60 * 60
)

// tokenRequestGVK is the kind the subresource speaks.
var tokenRequestGVK = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// handleTokenRequest answers POST .../serviceaccounts/NAME/token: the
// create handler's decoding (as a TokenRequest, defaulted, namespaced by
// the URL) and managedFields, then TokenREST.Create; 201 with the request,
// its spec completed and its status holding the token.
func (s *Server) handleTokenRequest(req *request) (response, error) {
	sreq := subresourceRequest(req, tokenRequestGVK, func() runtime.Object { return &authenticationv1.TokenRequest{} })
	obj, out, err := s.decodeCreate(sreq)
	if err != nil {
		return response{}, err
	}
	tr, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return response{}, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, tr); err != nil {
		return response{}, err
	}
	if tr.Spec.ExpirationSeconds == nil {
		tr.Spec.ExpirationSeconds = ptr.To[int64](defaultTokenExpirationSeconds)
	}
	s.trackTokenRequest(req, tr)
	if err := s.admitMutating(writeAdmission(req, nil), admission.Create, tr, nil); err != nil {
		return response{}, err
	}
	if tr, err = s.createToken(req, tr); err != nil {
		return response{}, err
	}
	return response{code: http.StatusCreated, out: out, obj: tr}, nil
}

// createToken is TokenREST.Create for tr, a request for the service
// account req names.
func (s *Server) createToken(req *request, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	name, ns := req.info.name, req.info.namespace
	if tr.Name != "" && tr.Name != name {
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata").Child("name"), tr.Name, "must match the service account name if specified")}
		return nil, apierrors.NewInvalid(tokenRequestGVK.GroupKind(), name, errs)
	}
	saObj, err := s.current(req.res, ns, name)
	if err != nil {
		return nil, err
	}
	sa := saObj.(*corev1.ServiceAccount)
	// TokenRequestServiceAccountUIDValidation (beta, on): a UID must be
	// the service account's.
	if tr.UID != "" && tr.UID != sa.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: tokenRequestGVK.Group, Resource: tokenRequestGVK.Kind}, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", tr.UID, sa.UID))
	}
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = s.apiAudiences()
	}
	tr.Name, tr.Namespace, tr.UID = sa.Name, sa.Namespace, sa.UID
	now := s.cfg.Clock.Now()
	tr.CreationTimestamp = metav1.NewTime(now)
	tr.Status = authenticationv1.TokenRequestStatus{}
	if errs := validateTokenRequest(tr); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestGVK.GroupKind(), "", errs)
	}
	if err := s.admitValidating(writeAdmission(req, nil), admission.Create, tr.DeepCopy(), nil); err != nil {
		return nil, err
	}
	claims, err := s.tokenClaims(tr, sa, now)
	if err != nil {
		return nil, err
	}
	token, err := s.tokens.sign(claims)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %w", err))
	}
	out := tr.DeepCopy()
	out.Status = authenticationv1.TokenRequestStatus{
		Token:               token,
		ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*out.Spec.ExpirationSeconds) * time.Second)),
	}
	return out, nil
}

// validateTokenRequest is ValidateTokenRequest
// (pkg/apis/authentication/validation/validation.go).
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	exp := *tr.Spec.ExpirationSeconds
	if exp < minTokenExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > maxTokenExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
	}
	if isWebhookRef(tr.Spec.BoundObjectRef) {
		if len(tr.Spec.Audiences) != 1 {
			errs = append(errs, field.Invalid(spec.Child("audiences"), tr.Spec.Audiences, "must be length 1 when bound to a webhook config"))
		}
		return append(errs, validateWebhookAttestations(tr.Spec.Attestations, spec.Child("attestations"))...)
	}
	if len(tr.Spec.Attestations) != 0 {
		// Upstream returns this error alone.
		return field.ErrorList{field.Invalid(spec.Child("attestations"), tr.Spec.Attestations, "attestations may only be specified with a webhook bound object reference")}
	}
	return errs
}

// isWebhookRef reports a reference to an admissionregistration.k8s.io/v1
// webhook configuration.
func isWebhookRef(ref *authenticationv1.BoundObjectReference) bool {
	if ref == nil || ref.APIVersion != "admissionregistration.k8s.io/v1" {
		return false
	}
	return ref.Kind == "ValidatingWebhookConfiguration" || ref.Kind == "MutatingWebhookConfiguration"
}

// validateWebhookAttestations is validation.go's check of a webhook-bound
// request's attestations: exactly admissionReviewAPIGroups, one value, "*"
// or an API group name.
func validateWebhookAttestations(attestations map[string]authenticationv1.AttestationValue, path *field.Path) field.ErrorList {
	if len(attestations) != 1 {
		return field.ErrorList{field.Invalid(path, attestations, "webhook bound requests require exactly one admissionReviewAPIGroups attestation")}
	}
	var errs field.ErrorList
	for key, values := range attestations {
		p := path.Key(key)
		switch {
		case key != authenticationv1.AttestationAdmissionReviewAPIGroups:
			errs = append(errs, field.NotSupported(p, key, []string{authenticationv1.AttestationAdmissionReviewAPIGroups}))
		case len(values) != 1:
			errs = append(errs, field.Invalid(p, values, "must specify a single value"))
		case values[0] == "":
			errs = append(errs, field.Invalid(p.Index(0), values[0], "may not be an empty string"))
		case values[0] != "*":
			for _, reason := range validation.IsDNS1123Subdomain(values[0]) {
				errs = append(errs, field.Invalid(p.Index(0), values[0], "must specify a valid API Group: "+reason))
			}
		}
	}
	return errs
}

// tokenClaims are the claims of tr's token (claims.go Claims): the bound
// object checked as TokenREST checks it, and the expiry extended for a
// pod-bound token of the kubelet's default lifetime.
func (s *Server) tokenClaims(tr *authenticationv1.TokenRequest, sa *corev1.ServiceAccount, now time.Time) (*saClaims, error) {
	k := k8sClaims{Namespace: sa.Namespace, Svcacct: claimRef{Name: sa.Name, UID: string(sa.UID)}}
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		if err := s.bindToken(&k, sa, ref); err != nil {
			return nil, err
		}
	}
	exp := *tr.Spec.ExpirationSeconds
	if k.Pod != nil && exp == warnOnlyTokenExpirationSeconds && s.isAPIAudiences(tr.Spec.Audiences) {
		k.WarnAfter = now.Add(time.Duration(exp) * time.Second).Unix()
		exp = extendedTokenExpirationSeconds
	}
	return &saClaims{
		Audience:   tr.Spec.Audiences,
		Expiry:     now.Add(time.Duration(exp) * time.Second).Unix(),
		IssuedAt:   now.Unix(),
		Issuer:     s.issuer(),
		ID:         string(uuid.NewUUID()), // ServiceAccountTokenJTI (GA)
		Kubernetes: k,
		NotBefore:  now.Unix(),
		Subject:    "system:serviceaccount:" + sa.Namespace + ":" + sa.Name,
	}, nil
}

// bindToken resolves spec.boundObjectRef as TokenREST does: a Pod (whose
// service account must be sa, and whose node is named in the claims), a
// Secret or a Node of sa's namespace, each 404 when missing and 409 when
// its UID is not ref's; any other kind is 400.
func (s *Server) bindToken(k *k8sClaims, sa *corev1.ServiceAccount, ref *authenticationv1.BoundObjectReference) error {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var uid types.UID
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		obj, err := s.currentOf(podsGVR, sa.Namespace, ref.Name)
		if err != nil {
			return err
		}
		pod := obj.(*corev1.Pod)
		if pod.Spec.ServiceAccountName != sa.Name {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", sa.Name))
		}
		uid, k.Pod = pod.UID, &claimRef{Name: pod.Name, UID: string(pod.UID)}
		if node := pod.Spec.NodeName; node != "" {
			// ServiceAccountTokenPodNodeInfo (GA): the node's UID when it
			// exists, else its name alone.
			k.Node = &claimRef{Name: node}
			if m, err := s.currentMeta(nodesGVR, "", node); err == nil {
				k.Node.UID = string(m.GetUID())
			}
		}
	case gvk.Group == "" && gvk.Kind == "Node":
		m, err := s.currentMeta(nodesGVR, "", ref.Name)
		if err != nil {
			return err
		}
		uid, k.Node = m.GetUID(), &claimRef{Name: m.GetName(), UID: string(m.GetUID())}
	case gvk.Group == "" && gvk.Kind == "Secret":
		m, err := s.currentMeta(secretsGVR, sa.Namespace, ref.Name)
		if err != nil {
			return err
		}
		uid, k.Secret = m.GetUID(), &claimRef{Name: m.GetName(), UID: string(m.GetUID())}
	case isWebhookRef(ref):
		// APIServerWebhookAuthenticationToken is alpha, off in v1.37.
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (feature gate %s is disabled)", gvk.String(), "APIServerWebhookAuthenticationToken"))
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if ref.UID != "" && uid != ref.UID {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return nil
}

// currentOf reads the live object gvr/namespace/name (404 if absent).
func (s *Server) currentOf(gvr schema.GroupVersionResource, namespace, name string) (runtime.Object, error) {
	res, ok := s.resources.lookup(gvr)
	if !ok {
		return nil, fmt.Errorf("%s is not served", gvr.Resource)
	}
	return s.current(res, namespace, name)
}

// trackTokenRequest records the requester's fields on tr as the create
// handler records them on a subresource body before TokenREST runs: one
// Update entry of authentication.k8s.io/v1 with subresource "token" (so
// the audiences TokenREST fills in are owned by nobody). Like
// FieldManager.UpdateNoErrors it never fails the request.
func (s *Server) trackTokenRequest(req *request, tr *authenticationv1.TokenRequest) {
	fm, err := s.tokenFields()
	if err != nil {
		return
	}
	if out, ok := s.track(fm, managerName(req), &authenticationv1.TokenRequest{}, tr).(*authenticationv1.TokenRequest); ok {
		*tr = *out
	}
}

// tokenFields is the field manager of the token subresource, built on
// first use. client-go's schema has no TokenRequest (it is no resource of
// its own), so its fields are deduced from the object: every field
// granular, which gives the real server's entry for a TokenRequest body.
func (s *Server) tokenFields() (*managedfields.FieldManager, error) {
	s.tokenFM.once.Do(func() {
		tc := managedfields.NewDeducedTypeConverter()
		s.tokenFM.fm, s.tokenFM.err = managedfields.NewDefaultFieldManager(tc, s.cfg.Scheme, defaulterFunc(func(runtime.Object) {}),
			s.cfg.Scheme, tokenRequestGVK, tokenRequestGVK.GroupVersion(), "token", nil)
	})
	return s.tokenFM.fm, s.tokenFM.err
}

// lazyFieldManager is one field manager built on first use.
type lazyFieldManager struct {
	once sync.Once
	fm   *managedfields.FieldManager
	err  error
}

// isAPIAudiences reports whether every one of auds is an API audience
// (TokenREST isKubeAudiences).
func (s *Server) isAPIAudiences(auds []string) bool {
	api := s.apiAudiences()
	for _, a := range auds {
		if !api.Has(a) {
			return false
		}
	}
	return true
}
