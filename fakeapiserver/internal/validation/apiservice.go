package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// APIService is kube-aggregator's ValidateAPIService and, on
// update, ValidateAPIServiceUpdate (pkg/apis/apiregistration/validation):
// the name is spec.version + "." + spec.group; only v1 may have an empty
// group; group and version are a DNS subdomain and label; priorities are
// in range; a local APIService has no CA bundle nor insecureSkipTLSVerify,
// a remote one a complete, valid service reference.
func APIService(svc *apiregistrationv1.APIService, old runtime.Object) field.ErrorList {
	required := svc.Spec.Version + "." + svc.Spec.Group
	errs := validateMetaCreate(svc, func(name string, _ bool) []string {
		if failures := content.IsPathSegmentName(name); len(failures) > 0 {
			return failures
		}
		if name != required {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", required)}
		}
		return nil
	})
	if old != nil {
		errs = append(MetaUpdate(svc, old), errs...)
	}
	return append(errs, validateAPIServiceSpec(&svc.Spec)...)
}

// validateAPIServiceSpec is ValidateAPIService's checks of the spec.
func validateAPIServiceSpec(spec *apiregistrationv1.APIServiceSpec) field.ErrorList {
	var errs field.ErrorList
	specPath := field.NewPath("spec")
	if spec.Group == "" && spec.Version != "v1" {
		errs = append(errs, field.Required(specPath.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(spec.Group) {
			errs = append(errs, field.Invalid(specPath.Child("group"), spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(spec.Version) {
		errs = append(errs, field.Invalid(specPath.Child("version"), spec.Version, msg))
	}
	if spec.GroupPriorityMinimum <= 0 || spec.GroupPriorityMinimum > 20000 {
		errs = append(errs, field.Invalid(specPath.Child("groupPriorityMinimum"), spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if spec.VersionPriority <= 0 || spec.VersionPriority > 1000 {
		errs = append(errs, field.Invalid(specPath.Child("versionPriority"), spec.VersionPriority, "must be positive and less than 1000"))
	}
	if spec.Service == nil {
		if len(spec.CABundle) != 0 {
			errs = append(errs, field.Invalid(specPath.Child("caBundle"), fmt.Sprintf("%d bytes", len(spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	svcPath := specPath.Child("service")
	if spec.Service.Namespace == "" {
		errs = append(errs, field.Required(svcPath.Child("namespace"), ""))
	}
	if spec.Service.Name == "" {
		errs = append(errs, field.Required(svcPath.Child("name"), ""))
	}
	port := int32(0)
	if spec.Service.Port != nil {
		port = *spec.Service.Port
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(svcPath.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}
