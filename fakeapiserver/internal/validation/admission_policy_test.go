package validation

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestPolicyUpdateToleratesStoredMatchConditions: on update, a policy's
// matchConditions are compiled again only when they or the paramKind
// change (ignoreValidatingAdmissionPolicyMatchConditions), so a stored
// condition an older server accepted does not block other changes. No
// HTTP path can store such a policy, so this is the one check of that
// tolerance.
func TestPolicyUpdateToleratesStoredMatchConditions(t *testing.T) {
	t.Parallel()
	stored := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "1"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				MatchPolicy:       ptr.To(admissionregistrationv1.Equivalent),
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{"*"},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "old", Expression: "params.x == 1"}},
			Validations:     []admissionregistrationv1.Validation{{Expression: "true"}},
		},
	}
	next := stored.DeepCopy()
	next.Spec.Validations[0].Expression = "false"
	if errs := ValidatingAdmissionPolicy(next, stored); len(errs) != 0 {
		t.Errorf("update keeping the stored matchConditions: %v, want no errors", errs)
	}
	next.Spec.MatchConditions[0].Name = "renamed"
	if errs := ValidatingAdmissionPolicy(next, stored); len(errs) != 1 || errs[0].Field != "spec.matchConditions[0].expression" {
		t.Errorf("update changing the matchConditions: %v, want the expression's compile error", errs)
	}
	if errs := ValidatingAdmissionPolicy(stored, nil); len(errs) != 1 || errs[0].Field != "spec.matchConditions[0].expression" {
		t.Errorf("create: %v, want the expression's compile error", errs)
	}
}

// TestBindingUpdateRatchetsDeclarativeRules: the declarative required
// rules of a ValidatingAdmissionPolicyBinding do not check a field an
// update leaves unchanged.
func TestBindingUpdateRatchetsDeclarativeRules(t *testing.T) {
	t.Parallel()
	stored := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "1"}}
	next := stored.DeepCopy()
	next.Labels = map[string]string{"a": "b"}
	if errs := ValidatingAdmissionPolicyBinding(next, stored); len(errs) != 0 {
		t.Errorf("update keeping an empty policyName and validationActions: %v, want no errors", errs)
	}
	if errs := ValidatingAdmissionPolicyBinding(stored, nil); len(errs) != 2 {
		t.Errorf("create: %v, want policyName and validationActions required", errs)
	}
}
