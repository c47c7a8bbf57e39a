package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// storedWebhookConfiguration is a configuration an older server could
// have stored and v1.37 refuses on create: side effects Some, webhook
// names repeated, no admissionReviewVersion it accepts, a label value in
// a selector requirement no longer valid, a matchCondition that does not
// compile.
func storedWebhookConfiguration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	url := "https://example.com/hook"
	hook := admissionregistrationv1.ValidatingWebhook{
		Name:          "a.example.com",
		ClientConfig:  admissionregistrationv1.WebhookClientConfig{URL: &url},
		FailurePolicy: ptr.To(admissionregistrationv1.Fail),
		MatchPolicy:   ptr.To(admissionregistrationv1.Equivalent),
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "a", Operator: metav1.LabelSelectorOpIn, Values: []string{"bad value!"}},
		}},
		ObjectSelector:          &metav1.LabelSelector{},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassSome),
		TimeoutSeconds:          ptr.To[int32](10),
		AdmissionReviewVersions: []string{"v0"},
		MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "old", Expression: "params.x == 1"}},
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook, hook},
	}
}

// errorFieldNames are the fields of errs, in order.
func errorFieldNames(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Field
	}
	return out
}

// TestWebhookConfigurationUpdateToleratesStored: an update relaxes each
// rule the stored configuration already broke
// (ValidateValidatingWebhookConfigurationUpdate) and compiles the
// matchConditions again only when some webhook's change. No HTTP path
// can store such a configuration, so this is the one check of that
// tolerance.
func TestWebhookConfigurationUpdateToleratesStored(t *testing.T) {
	t.Parallel()
	stored := storedWebhookConfiguration()
	next := stored.DeepCopy()
	next.Webhooks[1].TimeoutSeconds = ptr.To[int32](20)
	if errs := ValidatingWebhookConfiguration(next, stored); len(errs) != 0 {
		t.Errorf("update keeping what the stored object broke: %v, want no errors", errs)
	}

	next.Webhooks[0].MatchConditions[0].Name = "renamed"
	got := errorFieldNames(ValidatingWebhookConfiguration(next, stored))
	want := []string{"webhooks[0].matchConditions[0].expression", "webhooks[1].matchConditions[0].expression"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("update changing a matchCondition: fields (-want +got):\n%s", diff)
	}

	got = errorFieldNames(ValidatingWebhookConfiguration(stored, nil))
	want = []string{
		"webhooks[0].sideEffects", "webhooks[0].namespaceSelector.matchExpressions[0].values[0]", "webhooks[0].matchConditions[0].expression", "webhooks[0].admissionReviewVersions",
		"webhooks[1].sideEffects", "webhooks[1].namespaceSelector.matchExpressions[0].values[0]", "webhooks[1].matchConditions[0].expression", "webhooks[1].admissionReviewVersions",
		"webhooks[1].name",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("create: fields (-want +got):\n%s", diff)
	}
}

// TestWebhookConfigurationUpdateFromValid: once the stored configuration
// keeps a rule, an update must too.
func TestWebhookConfigurationUpdateFromValid(t *testing.T) {
	t.Parallel()
	stored := storedWebhookConfiguration()
	stored.Webhooks = stored.Webhooks[:1]
	stored.Webhooks[0].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNone)
	stored.Webhooks[0].AdmissionReviewVersions = []string{"v1"}
	stored.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{}
	stored.Webhooks[0].MatchConditions = nil
	next := stored.DeepCopy()
	next.Webhooks = append(next.Webhooks, next.Webhooks[0])
	next.Webhooks[1].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassUnknown)
	got := errorFieldNames(ValidatingWebhookConfiguration(next, stored))
	want := []string{"webhooks[1].sideEffects", "webhooks[1].name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("update of a valid configuration: fields (-want +got):\n%s", diff)
	}
}
