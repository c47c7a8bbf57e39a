package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestInvalidDeletionCost: helper.GetDeletionCostFromPodAnnotations
// refuses a sign or leading zero before parsing, then anything that is
// not a 32-bit integer.
func TestInvalidDeletionCost(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"0": false, "-0": false, "-5": false, "-05": false, "2147483647": false, "-2147483648": false,
		"": true, "+1": true, "08": true, "00": true, "2147483648": true, "1.5": true, "x": true, "-": true,
	} {
		if got := invalidDeletionCost(map[string]string{podDeletionCostKey: v}); got != want {
			t.Errorf("invalidDeletionCost(%q) = %v, want %v", v, got, want)
		}
	}
	if invalidDeletionCost(nil) {
		t.Error("invalidDeletionCost(nil) = true, want false")
	}
}

// TestPodDeletionCostToleratesStoredBadData: a stored invalid
// pod-deletion-cost is not checked again (a conformance case cannot
// store one: the real server's create refuses it).
func TestPodDeletionCostToleratesStoredBadData(t *testing.T) {
	t.Parallel()
	pod := func(cost string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{podDeletionCostKey: cost}}}
	}
	if errs := validatePodAnnotationUpdates(pod("+2"), pod("+1")); len(errs) != 0 {
		t.Errorf("stored bad cost: errors %v, want none", errs)
	}
	want := field.ErrorList{field.Invalid(annotationsPath.Key(podDeletionCostKey), "+2", "must be a 32bit integer")}
	if diff := cmp.Diff(want, validatePodAnnotationUpdates(pod("+2"), pod("1"))); diff != "" {
		t.Errorf("stored good cost (-want +got):\n%s", diff)
	}
}
