package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NamespaceFinalizeUpdate is ValidateNamespaceFinalizeUpdate (kubernetes
// pkg/apis/core/validation/validation.go), the validation of a write
// through a Namespace's finalize subresource: the metadata update checks,
// then each spec.finalizers entry is a qualified name (apimachinery's
// ValidateFinalizerName) and, without a "/", a standard one. It is a
// [Func].
func NamespaceFinalizeUpdate(obj, old runtime.Object) field.ErrorList {
	errs := MetaUpdate(obj, old)
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return errs
	}
	path := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		idx := path.Index(i)
		errs = append(errs, apimachineryvalidation.ValidateFinalizerName(string(f), idx)...)
		if !strings.Contains(string(f), "/") && !standardFinalizers[string(f)] {
			errs = append(errs, field.Invalid(idx, string(f), "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}
