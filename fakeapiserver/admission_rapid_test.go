package fakeapiserver

import (
	"context"
	"strconv"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"
)

// webhookConfigMachine creates, switches and deletes validating webhook
// configurations, each admitting the ConfigMaps labelled with its own
// key through /allow or /deny, and checks after every step that a create
// is refused exactly by the configurations the model holds: the store
// facade's sync (admission_sources.go) keeps the plugin's configuration
// cache in step with every add, update and delete.
type webhookConfigMachine struct {
	ctx context.Context
	cs  kubernetes.Interface
	wh  *testWebhook
	// deny is the model: configuration index → whether it denies.
	deny map[int]bool
}

const webhookConfigKeys = 4

func (m *webhookConfigMachine) configs() interface {
	Create(context.Context, *admissionregistrationv1.ValidatingWebhookConfiguration, metav1.CreateOptions) (*admissionregistrationv1.ValidatingWebhookConfiguration, error)
	Get(context.Context, string, metav1.GetOptions) (*admissionregistrationv1.ValidatingWebhookConfiguration, error)
	Update(context.Context, *admissionregistrationv1.ValidatingWebhookConfiguration, metav1.UpdateOptions) (*admissionregistrationv1.ValidatingWebhookConfiguration, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return m.cs.AdmissionregistrationV1().ValidatingWebhookConfigurations()
}

func configName(i int) string { return "rapid-" + strconv.Itoa(i) }

func (m *webhookConfigMachine) path(deny bool) string {
	if deny {
		return "/deny"
	}
	return "/allow"
}

// Put creates configuration i, or switches its verdict.
func (m *webhookConfigMachine) Put(t *rapid.T) {
	i := rapid.IntRange(0, webhookConfigKeys-1).Draw(t, "config")
	deny := rapid.Bool().Draw(t, "deny")
	cfg := validatingConfig(configName(i), m.wh.clientConfig(m.path(deny)))
	cfg.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"k" + strconv.Itoa(i): "yes"}}
	if _, ok := m.deny[i]; ok {
		cur, err := m.configs().Get(m.ctx, configName(i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Webhooks = cfg.Webhooks
		if _, err := m.configs().Update(m.ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	} else if _, err := m.configs().Create(m.ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	m.deny[i] = deny
}

// Delete deletes configuration i if it exists.
func (m *webhookConfigMachine) Delete(t *rapid.T) {
	i := rapid.IntRange(0, webhookConfigKeys-1).Draw(t, "config")
	if _, ok := m.deny[i]; !ok {
		t.Skip("no such configuration")
	}
	if err := m.configs().Delete(m.ctx, configName(i), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	delete(m.deny, i)
}

// Check creates a ConfigMap carrying every key and expects a refusal when
// a configuration of the model denies, else success.
func (m *webhookConfigMachine) Check(t *rapid.T) {
	labels := map[string]string{}
	for i := range webhookConfigKeys {
		labels["k"+strconv.Itoa(i)] = "yes"
	}
	_, err := m.cs.CoreV1().ConfigMaps("default").Create(m.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "c-", Labels: labels}}, metav1.CreateOptions{})
	denied := false
	for _, d := range m.deny {
		denied = denied || d
	}
	switch {
	case denied && !apierrors.IsConflict(err):
		t.Fatalf("create with denying configurations %v = %v, want 409", m.deny, err)
	case !denied && err != nil:
		t.Fatalf("create with configurations %v = %v, want success", m.deny, err)
	}
}

func TestAdmissionConfigSyncRapid(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	wh := startTestWebhook(t)
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		if err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			rt.Fatal(err)
		}
		m := &webhookConfigMachine{ctx: ctx, cs: cs, wh: wh, deny: map[int]bool{}}
		rt.Repeat(rapid.StateMachineActions(m))
	})
}
