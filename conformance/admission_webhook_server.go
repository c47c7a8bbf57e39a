package conformance

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// slowWebhookDelay is how long /slow takes to answer: past the 1 s
// timeoutSeconds the timeout case gives it, well within the 10 s default.
const slowWebhookDelay = 4 * time.Second

// webhookServer is an HTTPS admission webhook the conformance process
// serves on loopback, with its own CA (httptest's), which both the fake
// and the real kube-apiserver call through a configuration's url and
// caBundle. Each path answers one way:
//
//	/allow, /probe  allowed (so is any other path)
//	/deny           refused, code 409 and the message "no <name>"
//	/deny-bare      refused without a status
//	/patch          allowed, a JSON patch adding the annotation patched=yes
//	/warn           allowed, the warning "careful with <name>"
//	/slow           allowed after slowWebhookDelay
//
// It records every AdmissionRequest by path.
type webhookServer struct {
	srv *httptest.Server

	// mu guards the fields below.
	mu   sync.Mutex
	seen map[string][]admissionv1.AdmissionRequest
}

// startWebhookServer starts a webhook server that the test's cleanup
// stops.
func startWebhookServer(t *testing.T) *webhookServer {
	t.Helper()
	wh := &webhookServer{seen: map[string][]admissionv1.AdmissionRequest{}}
	wh.srv = httptest.NewTLSServer(http.HandlerFunc(wh.serve))
	t.Cleanup(wh.srv.Close)
	return wh
}

// serve answers one AdmissionReview.
func (wh *webhookServer) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	req := review.Request
	wh.mu.Lock()
	wh.seen[r.URL.Path] = append(wh.seen[r.URL.Path], *req)
	wh.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	switch r.URL.Path {
	case "/deny":
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: http.StatusConflict, Message: "no " + req.Name}
	case "/deny-bare":
		resp.Allowed = false
	case "/patch":
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
		resp.Patch = []byte(`[{"op":"add","path":"/metadata/annotations","value":{"patched":"yes"}}]`)
	case "/mf-remove", "/mf-invalid", "/mf-rename":
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
		resp.Patch = []byte(managedFieldsPatches[r.URL.Path])
	case "/warn":
		resp.Warnings = []string{"careful with " + req.Name}
	case "/slow":
		select {
		case <-time.After(slowWebhookDelay):
		case <-r.Context().Done():
			return
		}
	}
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// requests returns what path was asked so far by namespace ns.
func (wh *webhookServer) requests(path, ns string) []admissionv1.AdmissionRequest {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	var out []admissionv1.AdmissionRequest
	for _, r := range wh.seen[path] {
		if r.Namespace == ns {
			out = append(out, r)
		}
	}
	return out
}

// clientConfig is a webhook clientConfig for path on wh: its URL and CA.
func (wh *webhookServer) clientConfig(path string) object {
	return object{
		"url":      wh.srv.URL + path,
		"caBundle": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wh.srv.Certificate().Raw}),
	}
}

// waitProbed polls until a dry-run create of a probe ConfigMap in ns has
// reached /probe, which tells that the configuration holding the probe
// webhook is in effect (kube-apiserver applies a new configuration once
// its informer has it). It fails the test after a minute.
func (wh *webhookServer) waitProbed(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		before := len(wh.requests("/probe", e.ns))
		probe := cm("probe", map[string]string{probeLabel: "yes"}, "v")
		e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "All"), Body: probe})
		if len(wh.requests("/probe", e.ns)) > before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook configuration not in effect after a minute (no probe reached the webhook)")
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for the webhook configuration: %v", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// managedFieldsPatches are the JSON patches of the webhooks that change
// an object's managedFields: remove them, make the first entry invalid
// (an unknown fieldsType), rename its manager.
var managedFieldsPatches = map[string]string{
	"/mf-remove":  `[{"op":"add","path":"/metadata/managedFields","value":[]}]`,
	"/mf-invalid": `[{"op":"replace","path":"/metadata/managedFields/0/fieldsType","value":"FieldsV2"}]`,
	"/mf-rename":  `[{"op":"replace","path":"/metadata/managedFields/0/manager","value":"webhook"}]`,
}
