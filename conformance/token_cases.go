package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// tokenCases are the cases of this file, in the order [Cases] runs them.
func tokenCases() []Case {
	return []Case{
		{Name: "TokenRequest", Run: runTokenRequest},
		{Name: "TokenAuthentication", Run: runTokenAuthentication},
	}
}

// createServiceAccount creates a ServiceAccount in the case's namespace
// and returns its UID.
func (e *env) createServiceAccount(ctx context.Context, name string) string {
	e.t.Helper()
	o := e.mustCreate(ctx, nsPath(e.ns, "serviceaccounts"), object{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object{"name": name}})
	uid, _ := metaOf(o)["uid"].(string)
	return uid
}

// tokenPath is the TokenRequest path of a service account.
func (e *env) tokenPath(sa string) string {
	return nsPath(e.ns, "serviceaccounts") + "/" + sa + "/token"
}

// tokenRequest is a TokenRequest body with spec.
func tokenRequest(spec object) object {
	return object{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
}

// requestToken creates a token for sa and returns the whole answer.
func (e *env) requestToken(ctx context.Context, sa string, spec object) object {
	e.t.Helper()
	return e.mustCreate(ctx, e.tokenPath(sa), tokenRequest(spec))
}

// tokenOf is a TokenRequest answer's token.
func tokenOf(o object) string {
	st, _ := o["status"].(map[string]any)
	tok, _ := st["token"].(string)
	return tok
}

// withToken is a client authenticating with a bearer token alone.
func withToken(t testing.TB, target Target, token string) *client {
	t.Helper()
	return withCredentials(t, target, func(c *rest.Config) { c.BearerToken = token })
}

// whoami is the user a client is, by SelfSubjectReview.
func whoami(ctx context.Context, t *testing.T, c *client) (response, object) {
	t.Helper()
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		Body: object{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}})
	var o object
	if r.Code == http.StatusCreated {
		r.decode(t, &o)
		st, _ := o["status"].(map[string]any)
		u, _ := st["userInfo"].(map[string]any)
		return r, u
	}
	return r, nil
}

// jwtParts decodes a JWT's header and claims as raw JSON.
func jwtParts(t *testing.T, token string) (header, claims []byte) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts, want 3", token, len(parts))
	}
	header, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		t.Fatalf("token header: %v", err)
	}
	claims, err = base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token claims: %v", err)
	}
	return header, claims
}

// jsonKeys lists the keys of a JSON object in the order they appear.
func jsonKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, v)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return keys
				}
			}
		}
	}
}

// runTokenRequest: POST serviceaccounts/NAME/token (kubectl create token)
// answers 201 with the request completed (name, namespace and uid of the
// service account, expirationSeconds 3600, the API audiences), a
// managedFields entry of the token subresource, and an ES256 JWT whose
// claims are the service account's; and kube-apiserver's errors for a
// missing account, a bad expiration, a foreign name, a mismatched UID and
// bound objects of the wrong kind or account.
func runTokenRequest(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	uid := e.createServiceAccount(ctx, "robot")
	o := e.requestToken(ctx, "robot", object{})
	md := metaOf(o)
	spec, _ := o["spec"].(map[string]any)
	auds, _ := spec["audiences"].([]any)
	if md["name"] != "robot" || md["namespace"] != e.ns || md["uid"] != uid || spec["expirationSeconds"] != float64(3600) || len(auds) != 1 {
		t.Errorf("TokenRequest answer %v, want the service account's name, namespace and uid, expirationSeconds 3600 and one audience", o)
	}
	mf, _ := md["managedFields"].([]any)
	if len(mf) != 1 {
		t.Fatalf("managedFields = %v, want one entry", mf)
	}
	entry, _ := mf[0].(map[string]any)
	delete(entry, "time")
	delete(entry, "manager") // the client's User-Agent
	if diff := cmp.Diff(object{"operation": "Update", "apiVersion": "authentication.k8s.io/v1", "fieldsType": "FieldsV1",
		"fieldsV1": object{"f:spec": object{"f:expirationSeconds": object{}}}, "subresource": "token"}, object(entry)); diff != "" {
		t.Errorf("managedFields entry mismatch (-want +got):\n%s", diff)
	}
	header, claims := jwtParts(t, tokenOf(o))
	var h map[string]any
	if err := json.Unmarshal(header, &h); err != nil || h["alg"] != "ES256" || h["kid"] == "" || len(h) != 2 {
		t.Errorf("token header %s, want alg ES256 and a kid", header)
	}
	if diff := cmp.Diff(strs("aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"), jsonKeys(t, claims)); diff != "" {
		t.Errorf("token claim keys mismatch (-want +got):\n%s", diff)
	}
	var c struct {
		Aud []string `json:"aud"`
		Exp int64    `json:"exp"`
		Iat int64    `json:"iat"`
		Nbf int64    `json:"nbf"`
		Iss string   `json:"iss"`
		Sub string   `json:"sub"`
		K8s object   `json:"kubernetes.io"`
	}
	if err := json.Unmarshal(claims, &c); err != nil {
		t.Fatal(err)
	}
	wantK8s := object{"namespace": e.ns, "serviceaccount": object{"name": "robot", "uid": uid}}
	if c.Sub != "system:serviceaccount:"+e.ns+":robot" || c.Exp-c.Iat != 3600 || c.Nbf != c.Iat || len(c.Aud) != 1 || c.Aud[0] != auds[0] || !cmp.Equal(wantK8s, c.K8s) {
		t.Errorf("token claims %s; want sub, a 3600 s life, the request's audience and %v", claims, wantK8s)
	}

	invalid := func(field string, value any, detail, name string) statusShape {
		msg := fmt.Sprintf("Invalid value: %v: %s", value, detail)
		return wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, fmt.Sprintf("TokenRequest.authentication.k8s.io %q is invalid: %s: %s", name, field, msg),
			&metav1.StatusDetails{Name: name, Group: "authentication.k8s.io", Kind: "TokenRequest", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: field}}})
	}
	post := func(sa string, body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.tokenPath(sa), Body: body})
	}
	checkStatus(t, "token of a missing account", post("ghost", tokenRequest(object{})),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `serviceaccounts "ghost" not found`, &metav1.StatusDetails{Name: "ghost", Kind: "serviceaccounts"}))
	checkStatus(t, "expiration under 10 minutes", post("robot", tokenRequest(object{"expirationSeconds": 60})),
		invalid("spec.expirationSeconds", 60, "may not specify a duration less than 10 minutes", ""))
	checkStatus(t, "another name", post("robot", object{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": object{"name": "other"}, "spec": object{}}),
		invalid("metadata.name", `"other"`, "must match the service account name if specified", "robot"))
	checkStatus(t, "another uid", post("robot", object{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": object{"uid": "0b0b0b0b-0000-0000-0000-000000000000"}, "spec": object{}}),
		wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
			fmt.Sprintf(`Operation cannot be fulfilled on TokenRequest.authentication.k8s.io "robot": the UID in the token request (0b0b0b0b-0000-0000-0000-000000000000) does not match the UID of the service account (%s)`, uid),
			&metav1.StatusDetails{Name: "robot", Group: "authentication.k8s.io", Kind: "TokenRequest"}))
	checkStatus(t, "bound to a ConfigMap", post("robot", tokenRequest(object{"boundObjectRef": object{"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}})),
		badRequest("cannot bind token to object of type /v1, Kind=ConfigMap"))
	checkStatus(t, "bound to a missing pod", post("robot", tokenRequest(object{"boundObjectRef": object{"kind": "Pod", "apiVersion": "v1", "name": "nope"}})),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `pods "nope" not found`, &metav1.StatusDetails{Name: "nope", Kind: "pods"}))
	e.mustCreate(ctx, nsPath(e.ns, "pods"), object{"apiVersion": "v1", "kind": "Pod", "metadata": object{"name": "p"},
		"spec": object{"containers": []object{{"name": "c", "image": "nginx"}}}})
	checkStatus(t, "bound to a pod of another account", post("robot", tokenRequest(object{"boundObjectRef": object{"kind": "Pod", "apiVersion": "v1", "name": "p"}})),
		badRequest(`cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.`))
	checkStatus(t, "a token request on the collection", e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "serviceaccounts") + "/robot/token/x", Body: tokenRequest(object{})}),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", &metav1.StatusDetails{}))
}

// runTokenAuthentication: the server authenticates the tokens it minted
// as their service account (system:serviceaccount:NS:NAME in
// system:serviceaccounts and system:serviceaccounts:NS, its UID, the
// token's JTI as credential ID, the bound pod), RBAC authorizes them by
// their ServiceAccount subjects, and a token whose account or bound pod is
// gone, or whose audience is not the API's, is 401; TokenReview reports
// the same, with audiences.
func runTokenAuthentication(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	uid := e.createServiceAccount(ctx, "bot")
	answer := e.requestToken(ctx, "bot", object{})
	token := tokenOf(answer)
	spec, _ := answer["spec"].(map[string]any)
	apiAud := spec["audiences"].([]any)[0].(string)
	c := withToken(t, target, token)
	_, claims := jwtParts(t, token)
	var jti struct {
		ID string `json:"jti"`
	}
	_ = json.Unmarshal(claims, &jti)
	wantUser := object{
		"username": "system:serviceaccount:" + e.ns + ":bot", "uid": uid,
		"groups": []any{"system:serviceaccounts", "system:serviceaccounts:" + e.ns, "system:authenticated"},
		"extra":  object{"authentication.kubernetes.io/credential-id": []any{"JTI=" + jti.ID}},
	}
	_, u := whoami(ctx, t, c)
	if diff := cmp.Diff(wantUser, u); diff != "" {
		t.Errorf("whoami with the token mismatch (-want +got):\n%s", diff)
	}
	checkStatus(t, "list pods as the account", c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}),
		forbidden(fmt.Sprintf(`pods is forbidden: User "system:serviceaccount:%s:bot" cannot list resource "pods" in API group "" in the namespace %q`, e.ns, e.ns), &metav1.StatusDetails{Kind: "pods"}))
	e.createRole(ctx, "lister", rule(strs("list"), strs(""), strs("pods")))
	e.bindRole(ctx, "bot", "Role", "lister", object{"kind": "ServiceAccount", "name": "bot"}) // namespace defaulted to the binding's
	if r := until(ctx, hasCode(http.StatusOK), func() response { return c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}) }); r.Code != http.StatusOK {
		t.Errorf("list pods with a binding to the account: HTTP %d, want 200; body %s", r.Code, r.Body)
	}

	review := func(token string, audiences ...string) object {
		spec := object{"token": token}
		if len(audiences) > 0 {
			spec["audiences"] = audiences
		}
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authentication.k8s.io/v1/tokenreviews", Body: reviewBody("authentication.k8s.io", "TokenReview", spec)})
		r.mustCode(t, http.StatusCreated, "create TokenReview")
		var o object
		r.decode(t, &o)
		st, _ := o["status"].(map[string]any)
		return st
	}
	if diff := cmp.Diff(object{"authenticated": true, "user": wantUser, "audiences": []any{apiAud}}, review(token)); diff != "" {
		t.Errorf("TokenReview mismatch (-want +got):\n%s", diff)
	}
	// The API audience differs between servers (--service-account-issuer):
	// compare messages with it written as AUD.
	masked := func(st object) object {
		if s, ok := st["error"].(string); ok {
			st["error"] = strings.ReplaceAll(s, apiAud, "AUD")
		}
		return st
	}
	if diff := cmp.Diff(object{"user": object{}, "error": `[invalid bearer token, token audiences ["AUD"] is invalid for the target audiences ["other"]]`}, masked(review(token, "other"))); diff != "" {
		t.Errorf("TokenReview for another audience mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(object{"user": object{}, "error": "invalid bearer token"}, review("not-a-token")); diff != "" {
		t.Errorf("TokenReview of garbage mismatch (-want +got):\n%s", diff)
	}
	other := tokenOf(e.requestToken(ctx, "bot", object{"audiences": strs("other")}))
	r, _ := whoami(ctx, t, withToken(t, target, other))
	checkStatus(t, "whoami with a token for another audience", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
	if st := review(other, "other"); st["authenticated"] != true || !slices.Equal(st["audiences"].([]any), []any{"other"}) {
		t.Errorf("TokenReview of the other audience's token for it = %v, want authenticated for [other]", st)
	}

	e.mustCreate(ctx, nsPath(e.ns, "pods"), object{"apiVersion": "v1", "kind": "Pod", "metadata": object{"name": "p"},
		"spec": object{"serviceAccountName": "bot", "containers": []object{{"name": "c", "image": "nginx"}}}})
	bound := e.requestToken(ctx, "bot", object{"boundObjectRef": object{"kind": "Pod", "apiVersion": "v1", "name": "p"}})
	_, claims = jwtParts(t, tokenOf(bound))
	var pc struct {
		K8s struct {
			Pod object `json:"pod"`
		} `json:"kubernetes.io"`
	}
	_ = json.Unmarshal(claims, &pc)
	_, u = whoami(ctx, t, withToken(t, target, tokenOf(bound)))
	extra, _ := u["extra"].(map[string]any)
	if extra["authentication.kubernetes.io/pod-name"] == nil || !cmp.Equal(extra["authentication.kubernetes.io/pod-uid"], []any{pc.K8s.Pod["uid"]}) {
		t.Errorf("whoami with a pod-bound token: extra %v, want the pod's name and uid %v", extra, pc.K8s.Pod)
	}
	if r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: nsPath(e.ns, "pods") + "/p", Query: q("gracePeriodSeconds", "0")}); r.Code != http.StatusOK {
		t.Fatalf("delete pod: %d %s", r.Code, r.Body)
	}
	// The real server checks bound objects in its informer caches, which
	// learn of the delete a moment later: the token stops working then.
	r = until(ctx, hasCode(http.StatusUnauthorized), func() response { r, _ := whoami(ctx, t, withToken(t, target, tokenOf(bound))); return r })
	checkStatus(t, "whoami after the bound pod is gone", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
	if r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: nsPath(e.ns, "serviceaccounts") + "/bot"}); r.Code != http.StatusOK {
		t.Fatalf("delete service account: %d %s", r.Code, r.Body)
	}
	r = until(ctx, hasCode(http.StatusUnauthorized), func() response { r, _ := whoami(ctx, t, c); return r })
	checkStatus(t, "whoami after the account is gone", r, wantStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
	if diff := cmp.Diff(object{"user": object{}, "error": fmt.Sprintf(`[invalid bearer token, serviceaccounts "bot" not found]`)}, review(token)); diff != "" {
		t.Errorf("TokenReview after the account is gone mismatch (-want +got):\n%s", diff)
	}
}
