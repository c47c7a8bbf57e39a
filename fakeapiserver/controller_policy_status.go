package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// The ValidatingAdmissionPolicy status controller (Config.Controllers:
// ControllerValidatingAdmissionPolicyStatus), kube-controller-manager's
// pkg/controller/validatingadmissionpolicystatus: a policy whose
// generation is past status.observedGeneration is type-checked
// (k8s.io/apiserver's validating.TypeChecker, against the schemas of the
// kinds its matchConstraints name and of its paramKind) and its status
// applied, force, by the field manager "validatingadmissionpolicy-status":
// observedGeneration and typeChecking.expressionWarnings. It runs after
// writes of policies.
//
// kube-controller-manager resolves the schemas of built-in kinds from the
// generated OpenAPI definitions and the rest from /openapi/v3; the fake
// serves the same definitions at /openapi/v3 and resolves everything
// there, through its own handler (policyStatusChecker).

// policyStatusManager is the real controller's field manager.
const policyStatusManager = "validatingadmissionpolicy-status"

// policyStatusUserAgent is the real controller's User-Agent.
const policyStatusUserAgent = "kube-controller-manager/" + kubeGitVersion + " (linux/amd64) kubernetes/lwsim/system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller"

// policyTypeChecker is the server's type checker, made on first use.
type policyTypeChecker struct {
	once    sync.Once
	checker *validatingpolicy.TypeChecker
	err     error
}

// typeChecker returns the type checker over the server's /openapi/v3.
func (s *Server) typeChecker() (*validatingpolicy.TypeChecker, error) {
	c := &s.policyChecker
	c.once.Do(func() {
		cfg := rest.CopyConfig(s.RESTConfig())
		cfg.TLSClientConfig = rest.TLSClientConfig{}
		// The server's own URL, not a made-up host: the handler's guard
		// against DNS rebinding (Config.AllowedHosts, on in lw-sim serve)
		// refuses other Host headers, and the resolver takes that refusal
		// for a missing schema, leaving every policy without warnings.
		cfg.Host = s.URL()
		cfg.UserAgent = policyStatusUserAgent
		cfg.Transport = handlerTransport{h: s.Handler()}
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			c.err = fmt.Errorf("fakeapiserver: policy status discovery client: %w", err)
			return
		}
		c.checker = &validatingpolicy.TypeChecker{
			SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: dc},
			RestMapper:     serverRESTMapper{s: s},
		}
	})
	return c.checker, c.err
}

// reconcilePolicyStatus type-checks the policies whose generation is
// newer than their observedGeneration and applies their status.
func (s *Server) reconcilePolicyStatus(ctx context.Context, _ time.Time) time.Time {
	policies := s.storedAdmissionConfigs(validatingPolicyResources.policies)
	if len(policies) == 0 {
		return time.Time{}
	}
	checker, err := s.typeChecker()
	if err != nil {
		s.cfg.Logger.Warn("fakeapiserver: policy status controller", "err", err)
		return time.Time{}
	}
	for _, obj := range policies {
		p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		if !ok || p.Generation <= p.Status.ObservedGeneration {
			continue
		}
		// The apply configuration the real controller builds: no
		// expressionWarnings at all when there is none.
		typeChecking := map[string]any{}
		for _, w := range checker.Check(p) {
			warnings, _ := typeChecking["expressionWarnings"].([]any)
			typeChecking["expressionWarnings"] = append(warnings, map[string]any{"fieldRef": w.FieldRef, "warning": w.Warning})
		}
		body := map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": p.Name},
			"status": map[string]any{
				"observedGeneration": p.Generation,
				"typeChecking":       typeChecking,
			},
		}
		path := bootstrapObject{gvr: validatingPolicyResources.policies}.path() + "/" + p.Name + "/status"
		_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPatch, path: path,
			query: map[string][]string{"fieldManager": {policyStatusManager}, "force": {"true"}},
			body:  body, contentType: "application/apply-patch+yaml", userAgent: policyStatusUserAgent})
		if err != nil {
			s.cfg.Logger.Warn("fakeapiserver: policy status controller", "policy", p.Name, "err", err)
		}
	}
	return time.Time{}
}

// handlerTransport serves requests with the server's handler, in process.
type handlerTransport struct{ h http.Handler }

// RoundTrip implements http.RoundTripper.
func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
