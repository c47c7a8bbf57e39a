package fakeapiserver

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// testWebhook is an HTTPS admission webhook: each path answers with a
// fixed verdict (/allow, /deny, /patch, /warn) and records the
// AdmissionReview requests it got.
type testWebhook struct {
	srv *httptest.Server

	mu   sync.Mutex
	seen []admissionv1.AdmissionRequest
}

func startTestWebhook(t testing.TB) *testWebhook {
	t.Helper()
	wh := &testWebhook{}
	wh.srv = httptest.NewTLSServer(http.HandlerFunc(wh.serve))
	t.Cleanup(wh.srv.Close)
	return wh
}

func (wh *testWebhook) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	wh.mu.Lock()
	wh.seen = append(wh.seen, *review.Request)
	wh.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	switch r.URL.Path {
	case "/deny":
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: http.StatusConflict, Message: "no " + review.Request.Name}
	case "/patch":
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
		resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}}]`)
	case "/warn":
		resp.Warnings = []string{"careful with " + review.Request.Name}
	}
	review.Response = resp
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// requests returns the requests the webhook got so far.
func (wh *testWebhook) requests() []admissionv1.AdmissionRequest {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return append([]admissionv1.AdmissionRequest(nil), wh.seen...)
}

// clientConfig is a webhook client config for path on wh, with its CA.
func (wh *testWebhook) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := wh.srv.URL + path
	return admissionregistrationv1.WebhookClientConfig{
		URL:      &u,
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wh.srv.Certificate().Raw}),
	}
}

// configMapRules matches every write of configmaps.
var configMapRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
}}

func mutatingConfig(name string, cc admissionregistrationv1.WebhookClientConfig) *admissionregistrationv1.MutatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: name + ".lwsim.test", ClientConfig: cc, Rules: configMapRules,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

func validatingConfig(name string, cc admissionregistrationv1.WebhookClientConfig) *admissionregistrationv1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: name + ".lwsim.test", ClientConfig: cc, Rules: configMapRules,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// TestAdmissionWebhookMutates: a mutating webhook's JSON patch is in the
// stored object, and the webhook saw the create with the request's
// options and user; a configuration applies from the next request on.
func TestAdmissionWebhookMutates(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	wh := startTestWebhook(t)
	ctx := t.Context()
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mutatingConfig("patch", wh.clientConfig("/patch")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{FieldManager: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"patched": "yes"}, cm.Labels); diff != "" {
		t.Errorf("created labels (-want +got):\n%s", diff)
	}
	reqs := wh.requests()
	if len(reqs) != 1 {
		t.Fatalf("webhook got %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Operation != admissionv1.Create || got.Name != "a" || got.Namespace != "default" || got.UserInfo.Username != loopbackUser ||
		got.Kind != (metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) || !strings.Contains(string(got.Options.Raw), `"fieldManager":"me"`) {
		t.Errorf("webhook request = %+v", got)
	}
	// An update is admitted as one, with the old object.
	cm.Data = map[string]string{"k": "v"}
	cm.Labels = nil
	cm, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil || cm.Labels["patched"] != "yes" {
		t.Fatalf("update = %v, %v; want the label patched in again", cm.Labels, err)
	}
	if reqs := wh.requests(); len(reqs) != 2 || reqs[1].Operation != admissionv1.Update || len(reqs[1].OldObject.Raw) == 0 {
		t.Errorf("webhook requests after the update = %d, last %+v", len(reqs), reqs[len(reqs)-1].Operation)
	}
}

// TestAdmissionWebhookDenies: a validating webhook's denial is the
// request's error with the webhook's code and the plugin's message, on
// create, patch and delete; nothing is stored.
func TestAdmissionWebhookDenies(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	wh := startTestWebhook(t)
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, validatingConfig("deny", wh.clientConfig("/deny")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	want := `admission webhook "deny.lwsim.test" denied the request: no a`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Errorf("denied create = %v, want 409 %q", err, want)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get of the denied object = %v, want NotFound", err)
	}
	if _, err := cms.Patch(ctx, "old", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("denied patch = %v, want 409", err)
	}
	if err := cms.Delete(ctx, "old", metav1.DeleteOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("denied delete = %v, want 409", err)
	}
	if reqs := wh.requests(); len(reqs) != 3 || reqs[2].Operation != admissionv1.Delete || reqs[2].Name != "old" {
		t.Errorf("webhook requests = %d", len(reqs))
	}
}

// TestAdmissionWebhookWarnsAndFails: warnings reach the client as Warning
// headers; an unreachable webhook fails the write under failurePolicy
// Fail and is skipped under Ignore.
func TestAdmissionWebhookWarnsAndFails(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	wh := startTestWebhook(t)
	var warnings warningRecorder
	cfg := srv.RESTConfig()
	cfg.WarningHandler = &warnings
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := t.Context()
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, validatingConfig("warn", wh.clientConfig("/warn")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"careful with a"}, warnings.msgs); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	gone := "https://127.0.0.1:1/gone"
	unreachable := validatingConfig("gone", admissionregistrationv1.WebhookClientConfig{URL: &gone})
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, unreachable, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	if !apierrors.IsInternalError(err) || !strings.HasPrefix(err.Error(), `Internal error occurred: failed calling webhook "gone.lwsim.test": failed to call webhook: Post "https://127.0.0.1:1/gone?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`) {
		t.Errorf("create with an unreachable webhook = %v", err)
	}
	ignore := admissionregistrationv1.Ignore
	unreachable.Webhooks[0].FailurePolicy = &ignore
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, unreachable, metav1.UpdateOptions{}); err != nil {
		// The stored one has a resourceVersion: read-modify-write.
		cur, gerr := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "gone", metav1.GetOptions{})
		if gerr != nil {
			t.Fatal(gerr)
		}
		cur.Webhooks[0].FailurePolicy = &ignore
		if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("create with an unreachable webhook under Ignore = %v", err)
	}
}
