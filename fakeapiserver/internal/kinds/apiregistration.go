package kinds

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// apiregistrationKinds: kube-aggregator pkg/registry/apiservice/strategy.go.
// Defaults: kube-aggregator's generated defaulter (internal/defaults
// defaults.go); validation: internal/validation apiservice.go; printer:
// internal/tables printers_apiregistration.go. The local APIServices and
// the CRD registration controller are the server's (apiservices.go).
var apiregistrationKinds = []kind{
	{gk("apiregistration.k8s.io", "APIService"), Strategy{
		Default:          typed(apiregistrationv1.SetObjectDefaults_APIService),
		Validate:         validation.TypedCreate(validation.APIService),
		PrepareForCreate: typedTimed(prepareAPIServiceForCreate),
		// apiServerStatusStrategy resets labels, annotations, finalizers
		// and owners, and its reset fields all of metadata.
		ResetFields: ResetFields{StatusResetsMetadata: true},
	}},
}

// prepareAPIServiceForCreate is the APIService registry's PrepareForCreate
// (kube-aggregator pkg/registry/apiservice/strategy.go): the status starts
// empty (the server zeroes it), and a local APIService (no spec.service)
// Available.
func prepareAPIServiceForCreate(svc *apiregistrationv1.APIService, now metav1.Time) {
	if svc.Spec.Service != nil {
		return
	}
	svc.Status.Conditions = []apiregistrationv1.APIServiceCondition{{
		Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, LastTransitionTime: now,
		Reason: "Local", Message: "Local APIServices are always available",
	}}
}
