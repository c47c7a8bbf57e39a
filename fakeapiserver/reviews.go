package fakeapiserver

import (
	"context"
	"errors"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// reviewFunc answers the create of a review kind: it validates the decoded
// body (already namespaced) and returns the object to send back with 201.
// Reviews are answered from the request's identity (after impersonation)
// and the server's authenticator and authorizer, as kubernetes
// pkg/registry/authorization and pkg/registry/authentication answer them.
type reviewFunc func(s *Server, req *request, obj runtime.Object) (runtime.Object, error)

// reviewHandlers are the create-only kinds this server answers, by group
// and kind (kubernetes pkg/registry/authorization and
// pkg/registry/authentication). Other create-only kinds of kube-apiserver
// (core/v1 bindings) are not served.
var reviewHandlers = map[schema.GroupKind]reviewFunc{
	{Group: authorizationv1.GroupName, Kind: "SelfSubjectAccessReview"}:  reviewSelfSubjectAccess,
	{Group: authorizationv1.GroupName, Kind: "SubjectAccessReview"}:      reviewSubjectAccess,
	{Group: authorizationv1.GroupName, Kind: "LocalSubjectAccessReview"}: reviewLocalSubjectAccess,
	{Group: authorizationv1.GroupName, Kind: "SelfSubjectRulesReview"}:   reviewSelfSubjectRules,
	{Group: authenticationv1.GroupName, Kind: "SelfSubjectReview"}:       reviewSelfSubject,
	{Group: authenticationv1.GroupName, Kind: "TokenReview"}:             reviewToken,
}

// addReview registers a create-only kind described by kube-apiserver's
// discovery entry api.
func (t *resourceTable) addReview(scheme *runtime.Scheme, r Resource, api metav1.APIResource, review reviewFunc) error {
	if _, err := scheme.New(r.Kind); err != nil {
		return err
	}
	info := &resourceInfo{
		Resource:   r,
		gvr:        r.Kind.GroupVersion().WithResource(api.Name),
		singular:   api.SingularName,
		verbs:      api.Verbs,
		builtin:    true,
		review:     review,
		newObject:  func() runtime.Object { o, _ := scheme.New(r.Kind); return o },
		storageKey: r.Kind.GroupVersion().WithResource(api.Name).GroupResource().String(),
	}
	t.byGVR[info.gvr] = info
	t.byGVK[r.Kind] = info
	return nil
}

// handleReview answers a POST to a review resource: the create handler's
// decoding and namespace steps, then the review; 201 with its answer.
// Nothing is stored and no resourceVersion is consumed.
func (s *Server) handleReview(req *request) (response, error) {
	obj, out, err := s.decodeCreate(req)
	if err != nil {
		return response{}, err
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, obj); err != nil {
		return response{}, err
	}
	if obj, err = req.res.review(s, req, obj); err != nil {
		return response{}, err
	}
	return response{code: http.StatusCreated, out: out, obj: obj}, nil
}

// reviewInvalid is the 422 of a review's validation: kube-apiserver's
// review registries report it under an empty kind.
func reviewInvalid(group string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: group}, "", errs)
}

// validateAttributes is the union check of every access review spec
// (kubernetes pkg/apis/authorization/validation).
func validateAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) field.ErrorList {
	if (res == nil) == (nonRes == nil) {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), nonRes, "exactly one of nonResourceAttributes or resourceAttributes must be specified")}
	}
	return nil
}

// validateSubject is the subject check of SubjectAccessReview and
// LocalSubjectAccessReview.
func validateSubject(spec authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	if spec.User == "" && len(spec.Groups) == 0 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "user"), spec.User, "at least one of user or group must be specified")}
	}
	return nil
}

// reviewSelfSubjectAccess is selfsubjectaccessreview REST.Create: the
// spec's attributes for the requesting user, authorized.
func reviewSelfSubjectAccess(s *Server, req *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectAccessReview)
	if errs := validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes); len(errs) > 0 {
		return nil, reviewInvalid(authorizationv1.GroupName, errs)
	}
	u := userOf(req.r)
	if u == nil {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	r.Status = s.accessReviewStatus(req, attributesFrom(u, r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes))
	return r, nil
}

// reviewSubjectAccess is subjectaccessreview REST.Create: the spec's
// attributes for the spec's user, groups, uid and extra.
func reviewSubjectAccess(s *Server, req *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SubjectAccessReview)
	errs := append(validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes), validateSubject(r.Spec)...)
	if len(errs) > 0 {
		return nil, reviewInvalid(authorizationv1.GroupName, errs)
	}
	r.Status = s.accessReviewStatus(req, attributesFrom(specUser(r.Spec), r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes))
	return r, nil
}

// reviewLocalSubjectAccess is localsubjectaccessreview REST.Create.
func reviewLocalSubjectAccess(s *Server, req *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.LocalSubjectAccessReview)
	errs := append(validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes), validateSubject(r.Spec)...)
	if a := r.Spec.ResourceAttributes; a != nil && a.Namespace != r.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), a.Namespace, "must match metadata.namespace"))
	}
	if r.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), r.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	if len(errs) > 0 {
		return nil, reviewInvalid(authorizationv1.GroupName, errs)
	}
	r.Status = s.accessReviewStatus(req, attributesFrom(specUser(r.Spec), r.Spec.ResourceAttributes, nil))
	return r, nil
}

// accessReviewStatus authorizes attrs: allowed or denied with the
// authorizer's reason, and the evaluation error
// (authorization/util BuildEvaluationError).
func (s *Server) accessReviewStatus(req *request, attrs *authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	decision, reason, err := s.authz.Authorize(req.r.Context(), attrs)
	st := authorizationv1.SubjectAccessReviewStatus{
		Allowed: decision == authorizer.DecisionAllow,
		Denied:  decision == authorizer.DecisionDeny,
		Reason:  reason,
	}
	var evalErrs []string
	if err != nil {
		evalErrs = append(evalErrs, err.Error())
	}
	if _, err := attrs.GetFieldSelector(); err != nil {
		evalErrs = append(evalErrs, "spec.resourceAttributes.fieldSelector ignored due to parse error")
	}
	if _, err := attrs.GetLabelSelector(); err != nil {
		evalErrs = append(evalErrs, "spec.resourceAttributes.labelSelector ignored due to parse error")
	}
	st.EvaluationError = strings.Join(evalErrs, "; ")
	return st
}

// specUser is the user a SubjectAccessReview asks about
// (authorization/util AuthorizationAttributesFrom).
func specUser(spec authorizationv1.SubjectAccessReviewSpec) user.Info {
	u := &user.DefaultInfo{Name: spec.User, Groups: spec.Groups, UID: spec.UID}
	if spec.Extra != nil {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = []string(v)
		}
	}
	return u
}

// attributesFrom is authorization/util ResourceAttributesFrom or
// NonResourceAttributesFrom: an empty version is "*", and raw label and
// field selectors are parsed (a parse error only becomes an evaluation
// error: RBAC ignores selectors).
func attributesFrom(u user.Info, res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) *authorizer.AttributesRecord {
	if res == nil {
		return &authorizer.AttributesRecord{User: u, Path: nonRes.Path, Verb: nonRes.Verb}
	}
	version := res.Version
	if version == "" {
		version = "*"
	}
	a := &authorizer.AttributesRecord{
		User: u, Verb: res.Verb, Namespace: res.Namespace, APIGroup: res.Group, APIVersion: version,
		Resource: res.Resource, Subresource: res.Subresource, Name: res.Name, ResourceRequest: true,
	}
	if sel := res.LabelSelector; sel != nil && sel.RawSelector != "" {
		if parsed, err := labels.Parse(sel.RawSelector); err != nil {
			a.LabelSelectorParsingErr = err
		} else {
			a.LabelSelectorRequirements, _ = parsed.Requirements()
		}
	}
	if sel := res.FieldSelector; sel != nil && sel.RawSelector != "" {
		if parsed, err := fields.ParseSelector(sel.RawSelector); err != nil {
			a.FieldSelectorParsingErr = err
		} else {
			a.FieldSelectorRequirements = parsed.Requirements()
		}
	}
	return a
}

// reviewSelfSubjectRules is selfsubjectrulesreview REST.Create: the rules
// the authorizer's rule resolver lists for the requesting user in the
// spec's namespace, in the order it visits them (RBAC: the
// ClusterRoleBindings', then the namespace's RoleBindings').
func reviewSelfSubjectRules(s *Server, req *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectRulesReview)
	u := userOf(req.r)
	if u == nil {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	rules, err := s.authz.rulesFor(u, r.Spec.Namespace)
	status := authorizationv1.SubjectRulesReviewStatus{}
	for _, rule := range rules {
		if len(rule.Resources) > 0 {
			status.ResourceRules = append(status.ResourceRules, authorizationv1.ResourceRule{
				Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames,
			})
		}
		if len(rule.NonResourceURLs) > 0 {
			status.NonResourceRules = append(status.NonResourceRules, authorizationv1.NonResourceRule{Verbs: rule.Verbs, NonResourceURLs: rule.NonResourceURLs})
		}
	}
	if err != nil {
		status.EvaluationError = err.Error()
	}
	// kube-apiserver echoes no spec: the registry returns a new object
	// with only the status.
	return &authorizationv1.SelfSubjectRulesReview{TypeMeta: r.TypeMeta, Status: status}, nil
}

// reviewSelfSubject is selfsubjectreview REST.Create: the requesting
// user, with the creation time kube-apiserver sets on the returned object.
func reviewSelfSubject(s *Server, req *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authenticationv1.SelfSubjectReview)
	u := userOf(req.r)
	if u == nil {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	return &authenticationv1.SelfSubjectReview{
		TypeMeta:   r.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(s.cfg.Clock.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfoOf(u)},
	}, nil
}

// reviewToken is tokenreview REST.Create: the token alone, as the bearer
// token of a request with no other credentials, through the server's
// authenticator, for the spec's audiences (default: the API audiences).
func reviewToken(s *Server, _ *request, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authenticationv1.TokenReview)
	if r.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	auds := authenticator.Audiences(r.Spec.Audiences)
	if len(auds) == 0 {
		auds = s.apiAudiences()
	}
	fake := (&http.Request{Header: http.Header{}}).WithContext(authenticator.WithAudiences(context.Background(), auds))
	fake.Header.Add("Authorization", "Bearer "+r.Spec.Token)
	resp, ok, err := s.authn.AuthenticateRequest(fake)
	r.Status = authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		r.Status.Error = err.Error()
	}
	if resp != nil && len(auds.Intersect(resp.Audiences)) == 0 {
		return nil, apierrors.NewInternalError(errors.New("error validating audiences")) // storage.go badAuthenticatorAuds
	}
	if resp != nil && resp.User != nil {
		r.Status.User = userInfoOf(resp.User)
		r.Status.Audiences = resp.Audiences
	}
	return r, nil
}

// userInfoOf is a user as reviews report it.
func userInfoOf(u user.Info) authenticationv1.UserInfo {
	info := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(extra))
		for k, v := range extra {
			info.Extra[k] = v
		}
	}
	return info
}
