package fakeapiserver

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The single user every request is made as. kube-apiserver reports this
// identity for its loopback client (the credentials StartTestServer and
// `kube-apiserver` itself hand out, which lw-sim's conformance suite uses
// against the real server): system:apiserver in system:authenticated and
// system:masters, with a UID fixed per server start. An lw-sim server has
// one user and authorizes everything, so every review answers "allowed".
const singleUserName = "system:apiserver"

// singleUserGroups are the single user's groups, in kube-apiserver's order.
func singleUserGroups() []string { return []string{"system:authenticated", "system:masters"} }

// reviewFunc answers the create of a review kind: it validates the decoded
// body (already namespaced) and returns the object to send back with 201.
type reviewFunc func(s *Server, obj runtime.Object) (runtime.Object, error)

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
	if obj, err = req.res.review(s, obj); err != nil {
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

func reviewSelfSubjectAccess(_ *Server, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectAccessReview)
	if errs := validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes); len(errs) > 0 {
		return nil, reviewInvalid(authorizationv1.GroupName, errs)
	}
	r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	return r, nil
}

func reviewSubjectAccess(_ *Server, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SubjectAccessReview)
	errs := append(validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes), validateSubject(r.Spec)...)
	if len(errs) > 0 {
		return nil, reviewInvalid(authorizationv1.GroupName, errs)
	}
	r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	return r, nil
}

func reviewLocalSubjectAccess(_ *Server, obj runtime.Object) (runtime.Object, error) {
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
	r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	return r, nil
}

// reviewSelfSubjectRules answers with the rules kube-apiserver's RBAC
// authorizer lists for system:masters, in its order: the roles every
// authenticated user is bound to by the bootstrap policy
// (system:basic-user, system:discovery, system:public-info-viewer), then
// cluster-admin's everything.
func reviewSelfSubjectRules(_ *Server, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authorizationv1.SelfSubjectRulesReview)
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	status := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules: []authorizationv1.ResourceRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
			{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		},
		NonResourceRules: []authorizationv1.NonResourceRule{
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}},
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}},
			{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
		},
	}
	// kube-apiserver echoes no spec: the registry returns a new object
	// with only the status (pkg/registry/authorization/selfsubjectrulesreview).
	return &authorizationv1.SelfSubjectRulesReview{TypeMeta: r.TypeMeta, Status: status}, nil
}

// reviewSelfSubject reports the single user, with the creation time
// kube-apiserver sets on the returned object.
func reviewSelfSubject(s *Server, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authenticationv1.SelfSubjectReview)
	return &authenticationv1.SelfSubjectReview{
		TypeMeta:   r.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(s.cfg.Clock.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: s.singleUser()},
	}, nil
}

// reviewToken authenticates a token as the server does: the configured
// token (any token when none is configured, as every request is then
// accepted) is the single user; another gets kube-apiserver's error.
func reviewToken(s *Server, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authenticationv1.TokenReview)
	if r.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	if s.cfg.Token != "" && r.Spec.Token != s.cfg.Token {
		r.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
		return r, nil
	}
	r.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: s.singleUser(), Audiences: r.Spec.Audiences}
	return r, nil
}

// singleUser is the identity every request is made as.
func (s *Server) singleUser() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: singleUserName, UID: s.userUID, Groups: singleUserGroups()}
}
