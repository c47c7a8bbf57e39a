package fakeapiserver

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// policyConfigMapConstraints matches every write of configmaps.
var policyConfigMapConstraints = &admissionregistrationv1.MatchResources{
	ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: configMapRules[0]}},
}

func validatingPolicy(name, expression string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: policyConfigMapConstraints,
			Validations:      []admissionregistrationv1.Validation{{Expression: expression, Message: "refused by " + name}},
		},
	}
}

func validatingBinding(name, policy string, actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: actions},
	}
}

// createConfigMap creates ConfigMap name in default with data k=value.
func createConfigMap(t *testing.T, cs kubernetes.Interface, name, value string) (*corev1.ConfigMap, error) {
	t.Helper()
	return cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": value},
	}, metav1.CreateOptions{})
}

// TestValidatingPolicyEnforcedFromNextRequest: a policy and its binding
// refuse the very next write (no wait for a policy source), with the
// library's Status; an update of the policy and the binding's delete take
// effect as promptly.
func TestValidatingPolicyEnforcedFromNextRequest(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	vaps := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	if _, err := vaps.Create(ctx, validatingPolicy("p", "object.data.k != 'bad'"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := createConfigMap(t, cs, "before-binding", "bad"); err != nil {
		t.Fatalf("create before the binding: %v", err)
	}
	bindings := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	if _, err := bindings.Create(ctx, validatingBinding("b", "p", admissionregistrationv1.Deny), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := createConfigMap(t, cs, "a", "bad")
	msg := "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: refused by p"
	want := &metav1.Status{
		Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
		Message: `configmaps "a" is forbidden: ` + msg,
		Details: &metav1.StatusDetails{Name: "a", Kind: "configmaps", Causes: []metav1.StatusCause{{Message: msg}}},
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		t.Fatalf("create = %v, want the policy's refusal", err)
	}
	got := se.Status()
	if diff := cmp.Diff(want, &got); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
	if _, err := createConfigMap(t, cs, "good", "fine"); err != nil {
		t.Errorf("create that passes: %v", err)
	}

	p, err := vaps.Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Validations[0].Expression = "object.data.k != 'fine'"
	if _, err := vaps.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := createConfigMap(t, cs, "bad-now-allowed", "bad"); err != nil {
		t.Errorf("create after the policy's update: %v", err)
	}
	if _, err := createConfigMap(t, cs, "fine-now-refused", "fine"); !apierrors.IsInvalid(err) {
		t.Errorf("create refused by the updated policy = %v, want Invalid", err)
	}
	if err := bindings.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := createConfigMap(t, cs, "after-binding", "fine"); err != nil {
		t.Errorf("create after the binding's delete: %v", err)
	}
}

// TestValidatingPolicyWarns: a Warn binding lets the write through with
// the library's warning.
func TestValidatingPolicyWarns(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	var warnings recordedWarnings
	cfg := srv.RESTConfig()
	cfg.WarningHandler = &warnings
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := t.Context()
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, validatingPolicy("p", "false"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, validatingBinding("b", "p", admissionregistrationv1.Warn), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := createConfigMap(t, cs, "a", "v"); err != nil {
		t.Fatal(err)
	}
	want := []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': refused by p"}
	if diff := cmp.Diff(want, warnings.get()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestMutatingPolicyApplies: an ApplyConfiguration mutation is in the
// stored object from the request after the binding's create.
func TestMutatingPolicyApplies(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	never := admissionregistrationv1.NeverReinvocationPolicy
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   policyConfigMapConstraints,
			ReinvocationPolicy: never,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"mutated": object.data.k}}}`,
				},
			}},
		},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		name := fmt.Sprintf("cm-%d", i)
		if _, err := createConfigMap(t, cs, name, "v"+name); err != nil {
			t.Fatal(err)
		}
		got, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"mutated": "v" + name}, got.Labels); diff != "" {
			t.Errorf("stored labels of %s (-want +got):\n%s", name, diff)
		}
	}
}

// recordedWarnings is a rest.WarningHandler keeping the warnings.
type recordedWarnings struct {
	mu  sync.Mutex
	all []string
}

func (w *recordedWarnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.TrimSpace(text) != "" {
		w.all = append(w.all, text)
	}
}

func (w *recordedWarnings) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

var _ rest.WarningHandler = (*recordedWarnings)(nil)

// TestValidatingPolicyStatusTypeChecking: with the status controller on,
// a policy's status gets its type-checking warnings and the observed
// generation, also behind the guard against DNS rebinding lw-sim serve
// turns on (Config.AllowedHosts), which refuses requests to hosts it was
// not told about (the controller's schema requests once went to such a
// host, and every policy was left without warnings).
func TestValidatingPolicyStatusTypeChecking(t *testing.T) {
	t.Parallel()
	for name, hosts := range map[string][]string{"any host": nil, "allowed hosts": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testValidatingPolicyStatusTypeChecking(t, hosts)
		})
	}
}

func testValidatingPolicyStatusTypeChecking(t *testing.T, allowedHosts []string) {
	srv := Start(t, WithConfig(func(cfg *Config) {
		cfg.Controllers = []string{ControllerValidatingAdmissionPolicyStatus}
		cfg.AllowedHosts = allowedHosts
	}))
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "typed"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas > '1'"}},
		},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=typed"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		got, ok := ev.Object.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		if !ok || got.Status.ObservedGeneration != 1 {
			continue
		}
		if got.Status.TypeChecking == nil || len(got.Status.TypeChecking.ExpressionWarnings) != 1 ||
			got.Status.TypeChecking.ExpressionWarnings[0].FieldRef != "spec.validations[0].expression" {
			t.Fatalf("status = %+v, want one warning on spec.validations[0].expression", got.Status)
		}
		t.Logf("warning: %s", got.Status.TypeChecking.ExpressionWarnings[0].Warning)
		return
	}
	t.Fatal("watch ended before the status was written")
}
