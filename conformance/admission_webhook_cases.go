package conformance

// Cases for admission webhooks as kube-apiserver calls them (apiserver
// pkg/admission/plugin/webhook: mutating and validating dispatchers,
// generic/webhook.go ShouldCallHook, errors/statuserror.go ToStatusErr,
// util/webhook): AdmissionReview v1 over HTTPS to a url with its caBundle
// (a webhookServer this process serves on loopback), rules, selectors,
// matchConditions, failurePolicy, timeouts, patches, warnings and dry
// runs. Each case's configurations select only its own namespace, so the
// shared cases running beside it are not admitted by them, and each
// waits until its configuration is in effect (waitProbed).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// probeLabel marks the probe ConfigMaps of waitProbed: only the probe
// webhook of a configuration admits them.
const probeLabel = "lwsim-probe"

// webhookCleanupTimeout bounds the delete of a case's configuration once
// the case ended (its context is done by then).
const webhookCleanupTimeout = 30 * time.Second

// admissionWebhookCases are the cases of this file, in the order [Cases]
// runs them.
func admissionWebhookCases() []Case {
	return []Case{
		{Name: "WebhookAllowRequest", Run: runWebhookAllowRequest},
		{Name: "WebhookDeny", Run: runWebhookDeny},
		{Name: "WebhookPatch", Run: runWebhookPatch},
		{Name: "WebhookWarnings", Run: runWebhookWarnings},
		{Name: "WebhookFailurePolicy", Run: runWebhookFailurePolicy},
		{Name: "WebhookTimeout", Run: runWebhookTimeout},
		{Name: "WebhookNotMatching", Run: runWebhookNotMatching},
		{Name: "WebhookMatchConditions", Run: runWebhookMatchConditions},
		{Name: "WebhookDryRun", Run: runWebhookDryRun},
		{Name: "WebhookServiceReference", Run: runWebhookServiceReference},
		{Name: "WebhookCustomResourceEquivalent", Run: runWebhookCustomResourceEquivalent},
		{Name: "WebhookReinvocation", Run: runWebhookReinvocation},
		{Name: "WebhookStatusSubresource", Run: runWebhookStatusSubresource},
		{Name: "WebhookSubresourceKinds", Run: runWebhookSubresourceKinds},
		{Name: "WebhookManagedFields", Run: runWebhookManagedFields},
		{Name: "WebhookCustomResourceScale", Run: runWebhookCustomResourceScale},
	}
}

// hook is one webhook of a configuration. Zero fields take defaults: the
// rules match every operation on configmaps, the namespace selector the
// case's namespace, failurePolicy and timeout the API's defaults (Fail,
// 10 s).
type hook struct {
	name            string // the webhook's name is name + ".lwsim.test"
	path            string // on the webhookServer; ignored when client is set
	client          object // a clientConfig of its own (an unreachable url, a service)
	rules           []object
	failurePolicy   string
	timeoutSeconds  int
	nsSelector      object
	objectSelector  object
	matchConditions []object
	sideEffects     string
	matchPolicy     string
	reinvocation    string // reinvocationPolicy, mutating webhooks only
}

// configMapRule is a rule for the given operations on configmaps.
func configMapRule(ops ...string) object {
	return object{"operations": ops, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"configmaps"}}
}

// webhookObject is h as it sits in a configuration of the case's
// namespace e.ns; its object selector also leaves out the probes.
func (h hook) webhookObject(wh *webhookServer, e *env) object {
	rules := h.rules
	if rules == nil {
		rules = []object{configMapRule("*")}
	}
	nsSel := h.nsSelector
	if nsSel == nil {
		nsSel = object{"matchLabels": object{"kubernetes.io/metadata.name": e.ns}}
	}
	objSel := object{}
	for k, v := range h.objectSelector {
		objSel[k] = v
	}
	exprs, _ := objSel["matchExpressions"].([]object)
	objSel["matchExpressions"] = append(exprs, object{"key": probeLabel, "operator": "DoesNotExist"})
	client := h.client
	if client == nil {
		client = wh.clientConfig(h.path)
	}
	sideEffects := h.sideEffects
	if sideEffects == "" {
		sideEffects = "None"
	}
	w := object{
		"name": h.name + ".lwsim.test", "clientConfig": client, "rules": rules,
		"namespaceSelector": nsSel, "objectSelector": objSel,
		"sideEffects": sideEffects, "admissionReviewVersions": []string{"v1"},
	}
	if h.failurePolicy != "" {
		w["failurePolicy"] = h.failurePolicy
	}
	if h.timeoutSeconds != 0 {
		w["timeoutSeconds"] = h.timeoutSeconds
	}
	if h.matchConditions != nil {
		w["matchConditions"] = h.matchConditions
	}
	if h.matchPolicy != "" {
		w["matchPolicy"] = h.matchPolicy
	}
	if h.reinvocation != "" {
		w["reinvocationPolicy"] = h.reinvocation
	}
	return w
}

// installWebhooks creates a configuration of the kind ("mutating" or
// "validating") named after the case's namespace, with a probe webhook
// and hooks, deletes it when the test ends, and waits until it is in
// effect.
func installWebhooks(ctx context.Context, t *testing.T, e *env, wh *webhookServer, kind string, hooks ...hook) {
	t.Helper()
	probe := hook{name: "probe", path: "/probe", objectSelector: object{"matchLabels": object{probeLabel: "yes"}}}
	webhooks := []object{probe.webhookObject(wh, e)}
	// The probe's own selector must not exclude the probes.
	webhooks[0]["objectSelector"] = object{"matchLabels": object{probeLabel: "yes"}}
	for _, h := range hooks {
		webhooks = append(webhooks, h.webhookObject(wh, e))
	}
	resource, kindName := "validatingwebhookconfigurations", "ValidatingWebhookConfiguration"
	if kind == "mutating" {
		resource, kindName = "mutatingwebhookconfigurations", "MutatingWebhookConfiguration"
	}
	path := "/apis/admissionregistration.k8s.io/v1/" + resource
	name := kind + "-" + e.ns
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": kindName,
		"metadata": object{"name": name}, "webhooks": webhooks,
	}})
	r.mustCode(t, http.StatusCreated, "create "+kindName)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), webhookCleanupTimeout)
		defer cancel()
		e.c.do(ctx, t, request{Method: http.MethodDelete, Path: path + "/" + name})
	})
	wh.waitProbed(ctx, t, e)
}

// reviewShape is what a case checks of an AdmissionRequest.
type reviewShape struct {
	Operation, Name, Namespace, SubResource string
	Kind, RequestKind                       metav1.GroupVersionKind
	Resource                                metav1.GroupVersionResource
	DryRun                                  bool
	OptionsKind                             string
	HasObject, HasOldObject, HasUser        bool
}

// shapeOfReview reduces r to what both servers send alike (not the uid,
// not the user, whose name differs between them).
func shapeOfReview(t *testing.T, r admissionv1.AdmissionRequest) reviewShape {
	t.Helper()
	var opts struct{ Kind, APIVersion string }
	if len(r.Options.Raw) > 0 {
		_ = json.Unmarshal(r.Options.Raw, &opts)
	}
	s := reviewShape{
		Operation: string(r.Operation), Name: r.Name, Namespace: r.Namespace, SubResource: r.SubResource,
		Kind: r.Kind, Resource: r.Resource, DryRun: r.DryRun != nil && *r.DryRun,
		OptionsKind: opts.APIVersion + "/" + opts.Kind,
		HasObject:   len(r.Object.Raw) > 0, HasOldObject: len(r.OldObject.Raw) > 0, HasUser: r.UserInfo.Username != "",
	}
	if r.RequestKind != nil {
		s.RequestKind = *r.RequestKind
	}
	return s
}

// configMapReview is the reviewShape of a write of ConfigMap name in ns.
func configMapReview(op, ns, name, options string, object, old bool) reviewShape {
	gvk := metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	return reviewShape{
		Operation: op, Name: name, Namespace: ns, Kind: gvk, RequestKind: gvk,
		Resource:    metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		OptionsKind: "meta.k8s.io/v1/" + options, HasObject: object, HasOldObject: old, HasUser: true,
	}
}

// runWebhookAllowRequest: a validating webhook that allows gets one
// AdmissionReview per write: CREATE with the object and CreateOptions,
// UPDATE (a PUT and a patch) with both objects and UpdateOptions, DELETE
// with the old object only and DeleteOptions; the writes succeed. A
// write the real server retries is reviewed again (dropRetriedReviews).
func runWebhookAllowRequest(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating", hook{name: "allow", path: "/allow"})
	created := e.create(ctx, "a", nil)
	created["data"] = object{"k": "w"}
	e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: created}).mustCode(t, http.StatusOK, "update")
	e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/merge-patch+json",
		Body: object{"data": object{"k": "p"}}}).mustCode(t, http.StatusOK, "patch")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a"}).mustCode(t, http.StatusOK, "delete")
	var got []reviewShape
	for _, r := range dropRetriedReviews(t, wh.requests("/allow", e.ns)) {
		got = append(got, shapeOfReview(t, r))
	}
	want := []reviewShape{
		configMapReview("CREATE", e.ns, "a", "CreateOptions", true, false),
		configMapReview("UPDATE", e.ns, "a", "UpdateOptions", true, true),
		configMapReview("UPDATE", e.ns, "a", "UpdateOptions", true, true),
		configMapReview("DELETE", e.ns, "a", "DeleteOptions", false, true),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AdmissionReview requests (-want +got):\n%s", diff)
	}
}

// dropRetriedReviews is reqs with each write's repeated reviews dropped.
// The real server reviews a write again when its update retries on a
// conflict with its watch cache's stale copy (the etcd3 store's
// GuaranteedUpdate runs the update function, admission included, once
// per attempt), which a quiet test cannot rule out. A review repeats its
// write when it directly follows one of the same shape whose object,
// metadata aside, is the same; the writes a case compares must each
// differ from the one before in that way.
func dropRetriedReviews(t *testing.T, reqs []admissionv1.AdmissionRequest) []admissionv1.AdmissionRequest {
	t.Helper()
	var kept []admissionv1.AdmissionRequest
	var lastShape reviewShape
	lastBody := ""
	for _, r := range reqs {
		shape, body := shapeOfReview(t, r), objectWithoutMetadata(r.Object.Raw)
		if len(kept) > 0 && shape == lastShape && body == lastBody {
			continue
		}
		kept, lastShape, lastBody = append(kept, r), shape, body
	}
	return kept
}

// objectWithoutMetadata is raw's JSON without its metadata, in a
// canonical form; raw itself when it does not decode.
func objectWithoutMetadata(raw []byte) string {
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return string(raw)
	}
	delete(obj, "metadata")
	b, _ := json.Marshal(obj)
	return string(b)
}

// runWebhookDeny: a refusal is the webhook's code with "admission webhook
// %q denied the request: <message>", or 400 "... without explanation"
// when it gives no status; from a mutating and from a validating
// webhook, on create and on delete; nothing is written.
func runWebhookDeny(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	e.create(ctx, "old", nil)
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "deny", path: "/deny", objectSelector: object{"matchLabels": object{"deny": "full"}}},
		hook{name: "bare", path: "/deny-bare", objectSelector: object{"matchLabels": object{"deny": "bare"}}},
		hook{name: "delete", path: "/deny", rules: []object{configMapRule("DELETE")}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"deny": "full"}, "v")})
	checkStatus(t, "create a webhook denies", r, wantStatus(http.StatusConflict, "",
		`admission webhook "deny.lwsim.test" denied the request: no a`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"deny": "bare"}, "v")})
	checkStatus(t, "create a webhook denies without a status", r, wantStatus(http.StatusBadRequest, "",
		`admission webhook "bare.lwsim.test" denied the request without explanation`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/old"})
	checkStatus(t, "delete a webhook denies", r, wantStatus(http.StatusConflict, "",
		`admission webhook "delete.lwsim.test" denied the request: no old`, nil))
	e.c.do(ctx, t, request{Path: e.cms() + "/a"}).mustCode(t, http.StatusNotFound, "get the denied create")
	e.c.do(ctx, t, request{Path: e.cms() + "/old"}).mustCode(t, http.StatusOK, "get the object whose delete was denied")

	installWebhooks(ctx, t, e, wh, "mutating",
		hook{name: "mdeny", path: "/deny", objectSelector: object{"matchLabels": object{"deny": "mutating"}}})
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("c", map[string]string{"deny": "mutating"}, "v")})
	checkStatus(t, "create a mutating webhook denies", r, wantStatus(http.StatusConflict, "",
		`admission webhook "mdeny.lwsim.test" denied the request: no c`, nil))
}

// runWebhookPatch: a mutating webhook's JSON patch is in the created and
// stored object, and applied again on update.
func runWebhookPatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "mutating", hook{name: "patch", path: "/patch"})
	created := e.create(ctx, "a", nil)
	want := map[string]any{"patched": "yes"}
	if diff := cmp.Diff(want, metaOf(created)["annotations"]); diff != "" {
		t.Errorf("created annotations (-want +got):\n%s", diff)
	}
	stored := decoded(t, e.c.do(ctx, t, request{Path: e.cms() + "/a"}))
	if diff := cmp.Diff(want, metaOf(stored)["annotations"]); diff != "" {
		t.Errorf("stored annotations (-want +got):\n%s", diff)
	}
	delete(metaOf(stored), "annotations")
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: stored})
	r.mustCode(t, http.StatusOK, "update without the annotation")
	if diff := cmp.Diff(want, metaOf(decoded(t, r))["annotations"]); diff != "" {
		t.Errorf("updated annotations (-want +got):\n%s", diff)
	}
}

// runWebhookWarnings: a webhook's warnings are Warning headers of the
// answer ("299 - <quoted text>").
func runWebhookWarnings(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating", hook{name: "warn", path: "/warn"})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	if diff := cmp.Diff([]string{`299 - "careful with a"`}, r.Header.Values("Warning")); diff != "" {
		t.Errorf("Warning headers (-want +got):\n%s", diff)
	}
}

// unreachableURL is a webhook url nothing listens on.
const unreachableURL = "https://127.0.0.1:1/gone"

// runWebhookFailurePolicy: a webhook that cannot be reached fails the
// write with 500 InternalError "failed calling webhook" under
// failurePolicy Fail (the default), and is skipped under Ignore.
func runWebhookFailurePolicy(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "fail", client: object{"url": unreachableURL}, objectSelector: object{"matchLabels": object{"policy": "fail"}}},
		hook{name: "ignore", client: object{"url": unreachableURL}, failurePolicy: "Ignore", objectSelector: object{"matchLabels": object{"policy": "ignore"}}})
	msg := `failed calling webhook "fail.lwsim.test": failed to call webhook: Post "https://127.0.0.1:1/gone?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"policy": "fail"}, "v")})
	checkStatus(t, "create with an unreachable webhook (Fail)", r, internalError(msg))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"policy": "ignore"}, "v")})
	r.mustCode(t, http.StatusCreated, "create with an unreachable webhook (Ignore)")
	if w := r.Header.Values("Warning"); len(w) != 0 {
		t.Errorf("Warning headers under Ignore = %q, want none", w)
	}
}

// internalError is apierrors.NewInternalError's status for msg.
func internalError(msg string) statusShape {
	return wantStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: "+msg,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: msg}}})
}

// runWebhookTimeout: a webhook slower than its timeoutSeconds fails the
// write under Fail (the client's deadline error) and is skipped under
// Ignore.
func runWebhookTimeout(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "slow", path: "/slow", timeoutSeconds: 1, objectSelector: object{"matchLabels": object{"policy": "fail"}}},
		hook{name: "slowignore", path: "/slow", timeoutSeconds: 1, failurePolicy: "Ignore", objectSelector: object{"matchLabels": object{"policy": "ignore"}}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"policy": "fail"}, "v")})
	msg := fmt.Sprintf(`failed calling webhook "slow.lwsim.test": failed to call webhook: Post "%s/slow?timeout=1s": context deadline exceeded`, wh.srv.URL)
	checkStatus(t, "create with a slow webhook (Fail)", r, internalError(msg))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"policy": "ignore"}, "v")})
	r.mustCode(t, http.StatusCreated, "create with a slow webhook (Ignore)")
}

// runWebhookNotMatching: a denying webhook is not called for a resource
// its rules leave out, an operation they leave out, a namespace or an
// object its selectors leave out; each is called where it matches.
func runWebhookNotMatching(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	secrets := object{"operations": []string{"*"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"secrets"}}
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "secrets", path: "/deny", rules: []object{secrets}},
		hook{name: "updates", path: "/deny", rules: []object{configMapRule("UPDATE")}},
		hook{name: "elsewhere", path: "/deny", nsSelector: object{"matchLabels": object{"kubernetes.io/metadata.name": "kube-system"}}},
		hook{name: "labelled", path: "/deny", objectSelector: object{"matchLabels": object{"deny": "yes"}}})
	created := e.create(ctx, "plain", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("labelled", map[string]string{"deny": "yes"}, "v")})
	checkStatus(t, "create of a labelled object", r, wantStatus(http.StatusConflict, "",
		`admission webhook "labelled.lwsim.test" denied the request: no labelled`, nil))
	created["data"] = object{"k": "w"}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/plain", Body: created})
	checkStatus(t, "update", r, wantStatus(http.StatusConflict, "",
		`admission webhook "updates.lwsim.test" denied the request: no plain`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "secrets"), Body: object{
		"apiVersion": "v1", "kind": "Secret", "metadata": object{"name": "s"},
	}})
	checkStatus(t, "create of a secret", r, wantStatus(http.StatusConflict, "",
		`admission webhook "secrets.lwsim.test" denied the request: no s`, nil))
}

// runWebhookMatchConditions: a webhook is called only when its
// matchConditions (CEL, the authorizer's checks included) all hold; a
// condition that fails to evaluate
// fails closed under failurePolicy Fail (403) and skips the webhook under
// Ignore.
func runWebhookMatchConditions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "prefix", path: "/deny", matchConditions: []object{
			{"name": "deny-prefix", "expression": `object.metadata.name.startsWith("deny")`},
		}},
		hook{name: "broken", path: "/deny", objectSelector: object{"matchLabels": object{"cel": "fail"}}, matchConditions: []object{
			{"name": "missing-key", "expression": `object.data.missing == "x"`},
		}},
		hook{name: "authz", path: "/deny", objectSelector: object{"matchLabels": object{"cel": "authz"}}, matchConditions: []object{
			{"name": "may-create", "expression": `authorizer.group("").resource("configmaps").namespace(request.namespace).check("create").allowed()`},
		}},
		hook{name: "brokenignore", path: "/deny", failurePolicy: "Ignore", objectSelector: object{"matchLabels": object{"cel": "ignore"}}, matchConditions: []object{
			{"name": "missing-key", "expression": `object.data.missing == "x"`},
		}})
	e.create(ctx, "keep", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("deny-me", nil, "v")})
	checkStatus(t, "create matching the condition", r, wantStatus(http.StatusConflict, "",
		`admission webhook "prefix.lwsim.test" denied the request: no deny-me`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("celfail", map[string]string{"cel": "fail"}, "v")})
	checkStatus(t, "create where a condition errs (Fail)", r, wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
		`configmaps "celfail" is forbidden: expression 'object.data.missing == "x"' resulted in error: no such key: missing`,
		&metav1.StatusDetails{Name: "celfail", Kind: "configmaps"}))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("authz", map[string]string{"cel": "authz"}, "v")})
	checkStatus(t, "create where the authorizer allows", r, wantStatus(http.StatusConflict, "",
		`admission webhook "authz.lwsim.test" denied the request: no authz`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("celignore", map[string]string{"cel": "ignore"}, "v")})
	r.mustCode(t, http.StatusCreated, "create where a condition errs (Ignore)")
}

// runWebhookDryRun: a dry-run write calls the webhooks (all of sideEffects
// None or NoneOnDryRun) with dryRun true, is refused when one refuses,
// and stores nothing.
func runWebhookDryRun(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "none", path: "/allow"},
		hook{name: "noneondryrun", path: "/allow", sideEffects: "NoneOnDryRun"},
		hook{name: "deny", path: "/deny", objectSelector: object{"matchLabels": object{"deny": "yes"}}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "All"), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "dry-run create")
	var got []reviewShape
	for _, req := range wh.requests("/allow", e.ns) {
		got = append(got, shapeOfReview(t, req))
	}
	want := configMapReview("CREATE", e.ns, "a", "CreateOptions", true, false)
	want.DryRun = true
	if diff := cmp.Diff([]reviewShape{want, want}, got); diff != "" {
		t.Errorf("AdmissionReview requests of the dry run (-want +got):\n%s", diff)
	}
	e.c.do(ctx, t, request{Path: e.cms() + "/a"}).mustCode(t, http.StatusNotFound, "get after the dry run")
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "All"), Body: cm("b", map[string]string{"deny": "yes"}, "v")})
	checkStatus(t, "dry-run create a webhook denies", r, wantStatus(http.StatusConflict, "",
		`admission webhook "deny.lwsim.test" denied the request: no b`, nil))
}

// runWebhookServiceReference: a service reference resolves through the
// Service: a missing Service fails the call naming it, an existing one
// is called at its cluster IP as https://<name>.<namespace>.svc:<port>,
// which without a cluster network fails.
func runWebhookServiceReference(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	svc := object{"apiVersion": "v1", "kind": "Service", "metadata": object{"name": "hooks"},
		"spec": object{"ports": []object{{"port": 443, "targetPort": 8443}}}}
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: svc}).mustCode(t, http.StatusCreated, "create service")
	installWebhooks(ctx, t, e, wh, "validating",
		hook{name: "missing", client: object{"service": object{"namespace": e.ns, "name": "nosuch", "path": "/x"}},
			objectSelector: object{"matchLabels": object{"svc": "missing"}}},
		hook{name: "present", timeoutSeconds: 1, client: object{"service": object{"namespace": e.ns, "name": "hooks", "path": "/x"}},
			objectSelector: object{"matchLabels": object{"svc": "present"}}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"svc": "missing"}, "v")})
	checkStatus(t, "create through a missing service", r, internalError(
		`failed calling webhook "missing.lwsim.test": failed to call webhook: Post "https://nosuch.`+e.ns+`.svc:443/x?timeout=10s": service "nosuch" not found`))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"svc": "present"}, "v")})
	// What the dial of the cluster IP meets depends on the machine's
	// network (nothing: the timeout; an intercepting proxy: its TLS
	// error), the same for both servers on one machine; the call's URL
	// is the service's DNS name.
	st := r.status(t)
	prefix := `Internal error occurred: failed calling webhook "present.lwsim.test": failed to call webhook: Post "https://hooks.` + e.ns + `.svc:443/x?timeout=1s": `
	if r.Code != http.StatusInternalServerError || st.Reason != metav1.StatusReasonInternalError || !strings.HasPrefix(st.Message, prefix) {
		t.Errorf("create through a service = %d %s %q, want 500 InternalError %q...", r.Code, st.Reason, st.Message, prefix)
	}
}

// runWebhookCustomResourceEquivalent: a webhook whose rule names only a
// custom resource's other served version is called for a write through
// this one under matchPolicy Equivalent (the default), with the object
// in the rule's version (kind and resource v1beta1, requestKind and
// requestResource v1), and its patch lands; under Exact it is not called.
func runWebhookCustomResourceEquivalent(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	wh := startWebhookServer(t)
	beta := object{"operations": []string{"CREATE"}, "apiGroups": []string{ce.group}, "apiVersions": []string{"v1beta1"}, "resources": []string{"widgets"}}
	installWebhooks(ctx, t, ce.env, wh, "validating", hook{name: "exact", path: "/deny", rules: []object{beta}, matchPolicy: "Exact"})
	installWebhooks(ctx, t, ce.env, wh, "mutating", hook{name: "equivalent", path: "/patch", rules: []object{beta}})
	r := ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Body: ce.widget("w", object{"size": 2})})
	r.mustCode(t, http.StatusCreated, "create widget through v1")
	if diff := cmp.Diff(map[string]any{"patched": "yes"}, metaOf(decoded(t, r))["annotations"]); diff != "" {
		t.Errorf("created annotations (-want +got):\n%s", diff)
	}
	type seen struct {
		Kind, RequestKind         metav1.GroupVersionKind
		Resource, RequestResource metav1.GroupVersionResource
		APIVersion                string
	}
	var got []seen
	for _, req := range wh.requests("/patch", ce.ns) {
		var obj struct{ APIVersion string }
		_ = json.Unmarshal(req.Object.Raw, &obj)
		s := seen{Kind: req.Kind, Resource: req.Resource, APIVersion: obj.APIVersion}
		if req.RequestKind != nil && req.RequestResource != nil {
			s.RequestKind, s.RequestResource = *req.RequestKind, *req.RequestResource
		}
		got = append(got, s)
	}
	want := []seen{{
		Kind:            metav1.GroupVersionKind{Group: ce.group, Version: "v1beta1", Kind: "Widget"},
		RequestKind:     metav1.GroupVersionKind{Group: ce.group, Version: "v1", Kind: "Widget"},
		Resource:        metav1.GroupVersionResource{Group: ce.group, Version: "v1beta1", Resource: "widgets"},
		RequestResource: metav1.GroupVersionResource{Group: ce.group, Version: "v1", Resource: "widgets"},
		APIVersion:      ce.group + "/v1beta1",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests of the Equivalent webhook (-want +got):\n%s", diff)
	}
}

// runWebhookReinvocation: mutating webhooks run in order; one with
// reinvocationPolicy IfNeeded is called once more when a later one
// changed the object, one with Never (the default) is not.
func runWebhookReinvocation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	installWebhooks(ctx, t, e, wh, "mutating",
		hook{name: "again", path: "/allow", reinvocation: "IfNeeded"},
		hook{name: "never", path: "/never"},
		hook{name: "patch", path: "/patch"})
	e.create(ctx, "a", nil)
	got := map[string]int{}
	for _, p := range []string{"/allow", "/never", "/patch"} {
		got[p] = len(wh.requests(p, e.ns))
	}
	if diff := cmp.Diff(map[string]int{"/allow": 2, "/never": 1, "/patch": 1}, got); diff != "" {
		t.Errorf("calls per webhook (-want +got):\n%s", diff)
	}
}

// runWebhookStatusSubresource: a rule naming services/status admits the
// status subresource's writes (the request's subResource "status") and
// not the main resource's.
func runWebhookStatusSubresource(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	status := object{"operations": []string{"*"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"services/status"}}
	installWebhooks(ctx, t, e, wh, "validating", hook{name: "status", path: "/deny", rules: []object{status}})
	svc := object{"apiVersion": "v1", "kind": "Service", "metadata": object{"name": "svc"},
		"spec": object{"ports": []object{{"port": 80}}}}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "services"), Body: svc})
	r.mustCode(t, http.StatusCreated, "create service")
	created := decoded(t, r)
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: nsPath(e.ns, "services") + "/svc/status", Body: created})
	checkStatus(t, "update services/status", r, wantStatus(http.StatusConflict, "",
		`admission webhook "status.lwsim.test" denied the request: no svc`, nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: nsPath(e.ns, "services") + "/svc", ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"labels": object{"a": "b"}}}})
	r.mustCode(t, http.StatusOK, "patch the service")
	var subs []string
	for _, req := range wh.requests("/deny", e.ns) {
		subs = append(subs, string(req.Operation)+" "+req.Resource.Resource+"/"+req.SubResource)
	}
	if diff := cmp.Diff([]string{"UPDATE services/status"}, subs); diff != "" {
		t.Errorf("webhook requests (-want +got):\n%s", diff)
	}
}

// runWebhookSubresourceKinds: the subresources that speak a kind of their
// own are admitted as that kind (the endpoint's scope.Kind): a pod's
// eviction as a policy/v1 Eviction, its binding as a v1 Binding, a
// service account's token as an authentication/v1 TokenRequest (CREATE,
// the URL's name, CreateOptions), a scale as an autoscaling/v1 Scale
// (UPDATE, the old Scale too, UpdateOptions), through mutating and
// validating webhooks whose rules name them ("*/scale" for every scale).
func runWebhookSubresourceKinds(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	rule := func(ops []string, groups, versions, resources []string) object {
		return object{"operations": ops, "apiGroups": groups, "apiVersions": versions, "resources": resources}
	}
	rules := []object{
		rule([]string{"CREATE"}, []string{""}, []string{"v1"}, []string{"pods/eviction", "pods/binding", "serviceaccounts/token"}),
		rule([]string{"UPDATE"}, []string{"*"}, []string{"*"}, []string{"*/scale"}),
	}
	installWebhooks(ctx, t, e, wh, "validating", hook{name: "allow", path: "/allow", rules: rules})
	installWebhooks(ctx, t, e, wh, "mutating", hook{name: "warn", path: "/warn", rules: rules})

	e.createPod(ctx, pod("evicted", "", object{"name": "c", "image": "busybox"}))
	e.createPod(ctx, pod("bound", "", object{"name": "c", "image": "busybox"}))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "serviceaccounts"), Body: object{
		"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object{"name": "sa"}}}).mustCode(t, http.StatusCreated, "create service account")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("d", 1)}).mustCode(t, http.StatusCreated, "create deployment")

	writes := []struct {
		req  request
		code int
		name string
	}{
		{request{Method: http.MethodPost, Path: e.pods() + "/evicted/eviction", Body: object{
			"apiVersion": "policy/v1", "kind": "Eviction", "metadata": object{"name": "evicted"}}}, http.StatusCreated, "evicted"},
		{request{Method: http.MethodPost, Path: e.pods() + "/bound/binding", Body: object{
			"apiVersion": "v1", "kind": "Binding", "metadata": object{"name": "bound"}, "target": object{"kind": "Node", "name": "node-1"}}}, http.StatusCreated, "bound"},
		{request{Method: http.MethodPost, Path: nsPath(e.ns, "serviceaccounts") + "/sa/token", Body: object{
			"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": object{}}}, http.StatusCreated, "sa"},
		{request{Method: http.MethodPatch, Path: e.deployments() + "/d/scale", ContentType: "application/merge-patch+json",
			Body: object{"spec": object{"replicas": 3}}}, http.StatusOK, "d"},
	}
	for _, w := range writes {
		r := e.c.do(ctx, t, w.req)
		r.mustCode(t, w.code, w.req.Method+" "+w.req.Path)
		if diff := cmp.Diff([]string{`299 - "careful with ` + w.name + `"`}, r.Header.Values("Warning")); diff != "" {
			t.Errorf("%s %s: Warning headers of the mutating webhook (-want +got):\n%s", w.req.Method, w.req.Path, diff)
		}
	}
	review := func(op, name, sub string, kind metav1.GroupVersionKind, res metav1.GroupVersionResource, options string, old bool) reviewShape {
		return reviewShape{Operation: op, Name: name, Namespace: e.ns, SubResource: sub, Kind: kind, RequestKind: kind, Resource: res,
			OptionsKind: "meta.k8s.io/v1/" + options, HasObject: true, HasOldObject: old, HasUser: true}
	}
	pods := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	want := []reviewShape{
		review("CREATE", "evicted", "eviction", metav1.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, pods, "CreateOptions", false),
		review("CREATE", "bound", "binding", metav1.GroupVersionKind{Version: "v1", Kind: "Binding"}, pods, "CreateOptions", false),
		review("CREATE", "sa", "token", metav1.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"},
			metav1.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, "CreateOptions", false),
		review("UPDATE", "d", "scale", metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"},
			metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "UpdateOptions", true),
	}
	type objectKinds struct{ Object, OldObject string }
	kindOf := func(raw []byte) string {
		var o struct {
			APIVersion, Kind string
			Spec             struct{ Replicas *int }
		}
		if len(raw) == 0 || json.Unmarshal(raw, &o) != nil {
			return ""
		}
		s := o.APIVersion + "/" + o.Kind
		if o.Spec.Replicas != nil {
			s += fmt.Sprintf(" replicas %d", *o.Spec.Replicas)
		}
		return s
	}
	wantObjects := []objectKinds{
		{Object: "policy/v1/Eviction"}, {Object: "v1/Binding"}, {Object: "authentication.k8s.io/v1/TokenRequest"},
		{Object: "autoscaling/v1/Scale replicas 3", OldObject: "autoscaling/v1/Scale replicas 1"},
	}
	for _, path := range []string{"/allow", "/warn"} {
		var got []reviewShape
		var objects []objectKinds
		for _, r := range dropRetriedReviews(t, wh.requests(path, e.ns)) {
			got = append(got, shapeOfReview(t, r))
			objects = append(objects, objectKinds{Object: kindOf(r.Object.Raw), OldObject: kindOf(r.OldObject.Raw)})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: AdmissionReview requests (-want +got):\n%s", path, diff)
		}
		if diff := cmp.Diff(wantObjects, objects); diff != "" {
			t.Errorf("%s: objects reviewed (-want +got):\n%s", path, diff)
		}
	}
}

// runWebhookManagedFields: the managedFields a mutating webhook leaves
// are the object's, unless they no longer decode: then they are reset to
// what they were before admission, with a warning (apiserver
// endpoints/handlers/fieldmanager/admission.go). Webhooks that empty
// them or make an entry invalid, on create and on an update by another
// manager, and one that renames a manager on create.
func runWebhookManagedFields(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	wh := startWebhookServer(t)
	var hooks []hook
	for _, p := range []string{"remove", "invalid", "rename"} {
		// The renaming webhook admits creates only: on update it would
		// rename the first entry, and entries written in the same second
		// come in no fixed order.
		ops := []string{"CREATE", "UPDATE"}
		if p == "rename" {
			ops = ops[:1]
		}
		hooks = append(hooks, hook{name: "mf-" + p, path: "/mf-" + p, objectSelector: object{"matchLabels": object{"mf": p}},
			rules: []object{configMapRule(ops...)}})
	}
	installWebhooks(ctx, t, e, wh, "mutating", hooks...)
	const invalidWarning = `299 - ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: invalid fieldsType \"FieldsV2\" in managed fields entry 0"`
	tester := v1Entry(t, "tester", "Update", `{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:mf":{}}}}`)
	updater := v1Entry(t, "updater", "Update", `{"f:data":{"f:k2":{}}}`)
	renamed := func(e managedEntry) managedEntry {
		e.Manager = "webhook"
		return e
	}
	tests := []struct {
		mode             string
		created, updated []managedEntry
		warnings         []string
	}{
		{mode: "remove"},
		{mode: "invalid", created: []managedEntry{tester}, updated: []managedEntry{tester, updater}, warnings: []string{invalidWarning}},
		{mode: "rename", created: []managedEntry{renamed(tester)}, updated: []managedEntry{updater, renamed(tester)}},
	}
	for _, tc := range tests {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("fieldManager", "tester"),
			Body: cm(tc.mode, map[string]string{"mf": tc.mode}, "v")})
		r.mustCode(t, http.StatusCreated, "create "+tc.mode)
		if diff := cmp.Diff(tc.warnings, r.Header.Values("Warning"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("create %s: Warning headers (-want +got):\n%s", tc.mode, diff)
		}
		checkManaged(t, "created "+tc.mode, decoded(t, r), tc.created...)
		checkManaged(t, "stored "+tc.mode, decoded(t, e.c.do(ctx, t, request{Path: e.cms() + "/" + tc.mode})), tc.created...)
		r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/" + tc.mode, Query: q("fieldManager", "updater"),
			ContentType: "application/merge-patch+json", Body: object{"data": object{"k2": "w"}}})
		r.mustCode(t, http.StatusOK, "update "+tc.mode)
		if diff := cmp.Diff(tc.warnings, r.Header.Values("Warning"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("update %s: Warning headers (-want +got):\n%s", tc.mode, diff)
		}
		checkManaged(t, "updated "+tc.mode, decoded(t, r), tc.updated...)
	}
}

// runWebhookCustomResourceScale: a custom resource's scale subresource is
// admitted as an autoscaling/v1 Scale too, with the old Scale, by a
// "*/scale" rule of its group.
func runWebhookCustomResourceScale(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	wh := startWebhookServer(t)
	rules := []object{{"operations": []string{"UPDATE"}, "apiGroups": []string{ce.group}, "apiVersions": []string{"*"}, "resources": []string{"*/scale"}}}
	installWebhooks(ctx, t, ce.env, wh, "validating", hook{name: "allow", path: "/allow", rules: rules})
	installWebhooks(ctx, t, ce.env, wh, "mutating", hook{name: "warn", path: "/warn", rules: rules})
	ce.c.do(ctx, t, request{Method: http.MethodPost, Path: ce.widgets(), Body: ce.widget("a", object{"replicas": 1})}).
		mustCode(t, http.StatusCreated, "create widget")
	r := ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/a/scale", ContentType: "application/merge-patch+json",
		Body: object{"spec": object{"replicas": 2}}})
	r.mustCode(t, http.StatusOK, "patch widget scale")
	if diff := cmp.Diff([]string{`299 - "careful with a"`}, r.Header.Values("Warning")); diff != "" {
		t.Errorf("Warning headers of the mutating webhook (-want +got):\n%s", diff)
	}
	scale := metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	want := []reviewShape{{Operation: "UPDATE", Name: "a", Namespace: ce.ns, SubResource: "scale", Kind: scale, RequestKind: scale,
		Resource:    metav1.GroupVersionResource{Group: ce.group, Version: "v1", Resource: "widgets"},
		OptionsKind: "meta.k8s.io/v1/UpdateOptions", HasObject: true, HasOldObject: true, HasUser: true}}
	for _, path := range []string{"/allow", "/warn"} {
		var got []reviewShape
		var replicas []string
		for _, req := range dropRetriedReviews(t, wh.requests(path, ce.ns)) {
			got = append(got, shapeOfReview(t, req))
			var o, old struct{ Spec struct{ Replicas int } }
			_ = json.Unmarshal(req.Object.Raw, &o)
			_ = json.Unmarshal(req.OldObject.Raw, &old)
			replicas = append(replicas, fmt.Sprintf("%d -> %d", old.Spec.Replicas, o.Spec.Replicas))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: AdmissionReview requests (-want +got):\n%s", path, diff)
		}
		if diff := cmp.Diff([]string{"1 -> 2"}, replicas); diff != "" {
			t.Errorf("%s: replicas reviewed (-want +got):\n%s", path, diff)
		}
	}
}
