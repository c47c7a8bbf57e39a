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

// policyMachine creates, updates and deletes ValidatingAdmissionPolicies
// (each refusing a ConfigMap whose data.k is its forbidden value) and
// their bindings, in any order (a binding may name a policy that does
// not exist yet), and checks after every step that a create is refused
// exactly when a bound policy of the model forbids its value: the policy
// plugin is rebuilt over every change (admission_policies.go).
type policyMachine struct {
	ctx context.Context
	cs  kubernetes.Interface
	// forbids is the model's policies: index → the value it refuses.
	forbids map[int]string
	// bound is the model's bindings: index of the policy each names.
	bound map[int]bool
}

const policyKeys = 3

var policyValues = []string{"a", "b", "c"}

func policyName(i int) string { return "rapid-" + strconv.Itoa(i) }

// PutPolicy creates policy i, or changes the value it forbids.
func (m *policyMachine) PutPolicy(t *rapid.T) {
	i := rapid.IntRange(0, policyKeys-1).Draw(t, "policy")
	v := rapid.SampledFrom(policyValues).Draw(t, "forbids")
	vaps := m.cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	p := validatingPolicy(policyName(i), "object.data.k != '"+v+"'")
	if _, ok := m.forbids[i]; ok {
		cur, err := vaps.Get(m.ctx, policyName(i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Spec = p.Spec
		if _, err := vaps.Update(m.ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	} else if _, err := vaps.Create(m.ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	m.forbids[i] = v
}

// DeletePolicy deletes policy i if it exists (its binding stays).
func (m *policyMachine) DeletePolicy(t *rapid.T) {
	i := rapid.IntRange(0, policyKeys-1).Draw(t, "policy")
	if _, ok := m.forbids[i]; !ok {
		t.Skip("no such policy")
	}
	if err := m.cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(m.ctx, policyName(i), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	delete(m.forbids, i)
}

// Bind creates the binding of policy i, or deletes it.
func (m *policyMachine) Bind(t *rapid.T) {
	i := rapid.IntRange(0, policyKeys-1).Draw(t, "policy")
	bindings := m.cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	if m.bound[i] {
		if err := bindings.Delete(m.ctx, policyName(i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		delete(m.bound, i)
		return
	}
	if _, err := bindings.Create(m.ctx, validatingBinding(policyName(i), policyName(i), admissionregistrationv1.Deny), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	m.bound[i] = true
}

// Check creates a ConfigMap with a drawn value and expects a refusal
// exactly when a bound policy forbids it.
func (m *policyMachine) Check(t *rapid.T) {
	v := rapid.SampledFrom(policyValues).Draw(t, "value")
	_, err := m.cs.CoreV1().ConfigMaps("default").Create(m.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "c-"}, Data: map[string]string{"k": v},
	}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	refused := false
	for i, f := range m.forbids {
		refused = refused || (m.bound[i] && f == v)
	}
	switch {
	case refused && !apierrors.IsInvalid(err):
		t.Fatalf("create of %q with policies %v bound %v = %v, want 422", v, m.forbids, m.bound, err)
	case !refused && err != nil:
		t.Fatalf("create of %q with policies %v bound %v = %v, want success", v, m.forbids, m.bound, err)
	}
}

func TestValidatingPolicySyncRapid(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		ar := cs.AdmissionregistrationV1()
		if err := ar.ValidatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			rt.Fatal(err)
		}
		if err := ar.ValidatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			rt.Fatal(err)
		}
		m := &policyMachine{ctx: ctx, cs: cs, forbids: map[int]string{}, bound: map[int]bool{}}
		rt.Repeat(rapid.StateMachineActions(m))
	})
}
