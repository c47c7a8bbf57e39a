package fakeapiserver

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// BenchmarkCreateThroughWebhook measures one ConfigMap create through the
// typed clientset: with no webhook, through one validating webhook that
// allows, through one mutating webhook that patches (an HTTPS call each,
// to a webhook in this process), and through one ValidatingAdmissionPolicy
// whose CEL validation passes. With LWSIM_KUBECONFIG set it
// measures the same against that cluster too (make conformance-real's
// server: same machine, same run).
func BenchmarkCreateThroughWebhook(b *testing.B) {
	targets := map[string]func(b *testing.B) kubernetes.Interface{
		"fake": func(b *testing.B) kubernetes.Interface { return Start(b).Clientset() },
	}
	if path := os.Getenv("LWSIM_KUBECONFIG"); path != "" {
		targets["real"] = func(b *testing.B) kubernetes.Interface {
			cfg, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				b.Fatal(err)
			}
			cfg.QPS, cfg.Burst = -1, 0
			hc, err := rest.HTTPClientFor(cfg)
			if err != nil {
				b.Fatal(err)
			}
			// The connections to the real server end with the benchmark
			// (goleak); client-go's wrapping round trippers hide
			// CloseIdleConnections from http.Client's.
			b.Cleanup(func() { utilnet.CloseIdleConnectionsFor(hc.Transport) })
			cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
			if err != nil {
				b.Fatal(err)
			}
			return cs
		}
	}
	for _, target := range []string{"fake", "real"} {
		connect, ok := targets[target]
		if !ok {
			continue
		}
		for _, mode := range []string{"none", "validating", "mutating", "policy"} {
			b.Run(target+"/"+mode, func(b *testing.B) {
				benchCreateThroughWebhook(b, connect(b), mode)
			})
		}
	}
}

// benchCreateThroughWebhook creates ConfigMaps in a fresh namespace that
// the webhook of mode (none, validating, mutating) admits.
func benchCreateThroughWebhook(b *testing.B, cs kubernetes.Interface, mode string) {
	ctx := context.Background()
	ns := "bench-" + mode + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	wh := startTestWebhook(b)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	switch mode {
	case "validating":
		cfg := validatingConfig(ns, wh.clientConfig("/allow"))
		cfg.Webhooks[0].NamespaceSelector = sel
		if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
		})
	case "mutating":
		cfg := mutatingConfig(ns, wh.clientConfig("/patch"))
		cfg.Webhooks[0].NamespaceSelector = sel
		if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), ns, metav1.DeleteOptions{})
		})
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	switch mode {
	case "policy":
		installBenchPolicy(b, cs, ns, sel)
		waitPolicyRefuses(b, cms)
	case "validating", "mutating":
		waitWebhookCalled(b, wh, cms)
	}
	calls := len(wh.requests())
	i := 0
	for b.Loop() {
		i++
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c-" + strconv.Itoa(i)}}, metav1.CreateOptions{}); err != nil {
			b.Fatalf("Create: %v", err)
		}
	}
	if (mode == "validating" || mode == "mutating") && len(wh.requests())-calls < i {
		b.Fatalf("webhook called %d times for %d creates", len(wh.requests())-calls, i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// waitWebhookCalled makes dry-run creates until one reached wh: a real
// server applies a new configuration once its informer has it.
func waitWebhookCalled(b *testing.B, wh *testWebhook, cms interface {
	Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
}) {
	b.Helper()
	for range 600 {
		_, _ = cms.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if len(wh.requests()) > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("webhook configuration not in effect after a minute")
}

// installBenchPolicy creates a ValidatingAdmissionPolicy, bound to ns,
// that refuses only ConfigMaps labelled "probe".
func installBenchPolicy(b *testing.B, cs kubernetes.Interface, ns string, sel *metav1.LabelSelector) {
	ctx := context.Background()
	ar := cs.AdmissionregistrationV1()
	p := validatingPolicy(ns, "!has(object.metadata.labels) || !('probe' in object.metadata.labels)")
	if _, err := ar.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ar.ValidatingAdmissionPolicies().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	binding := validatingBinding(ns, ns, admissionregistrationv1.Deny)
	binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: sel}
	if _, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = ar.ValidatingAdmissionPolicyBindings().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
}

// waitPolicyRefuses makes dry-run creates of a ConfigMap labelled "probe"
// until one is refused: a real server enforces a policy once its policy
// source compiled it.
func waitPolicyRefuses(b *testing.B, cms interface {
	Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
}) {
	b.Helper()
	for range 600 {
		_, err := cms.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"probe": "yes"}}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsInvalid(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("admission policy not in effect after a minute")
}
