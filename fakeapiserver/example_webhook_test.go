package fakeapiserver_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// exampleTB is the testing.TB of the example: a failure panics.
type exampleTB struct{ cleanups []func() }

func (*exampleTB) Helper()                        {}
func (*exampleTB) Errorf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (*exampleTB) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (tb *exampleTB) Cleanup(f func())            { tb.cleanups = append(tb.cleanups, f) }
func (tb *exampleTB) done() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}

// Example_webhook tests a validating admission webhook: the server calls
// it over HTTPS with an AdmissionReview for each matching write, as
// kube-apiserver does, and answers its refusal to the client.
func Example_webhook() {
	tb := &exampleTB{}
	defer tb.done()
	srv := fakeapiserver.Start(tb)
	cs := srv.Clientset()
	ctx := context.Background()

	// The webhook under test: refuses ConfigMaps without data.
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		var cm corev1.ConfigMap
		_ = json.Unmarshal(review.Request.Object.Raw, &cm)
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: len(cm.Data) > 0}
		if !review.Response.Allowed {
			review.Response.Result = &metav1.Status{Message: "data is required"}
		}
		_ = json.NewEncoder(w).Encode(review)
	}))
	defer hook.Close()

	url := hook.URL + "/validate"
	none := admissionregistrationv1.SideEffectClassNone
	_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "configmaps"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "configmaps.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL:      &url,
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}),
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}

	// In effect from the next request on.
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{})
	fmt.Println(err)
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "full"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	fmt.Println(err)
	// Output:
	// admission webhook "configmaps.example.com" denied the request: data is required
	// <nil>
}
