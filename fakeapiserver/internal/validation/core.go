package validation

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxDataSize is the limit on the summed values of a ConfigMap's data and
// binaryData or a Secret's data (core.MaxSecretSize, 1 MiB).
const maxDataSize = 1 << 20

// immutableWhenSet is the error of changing a ConfigMap or Secret marked
// immutable.
const immutableWhenSet = "field is immutable when `immutable` is set"

// Namespace is ValidateNamespace / ValidateNamespaceUpdate: the
// name is a DNS label (63 characters at most, no dots).
func Namespace(obj, old runtime.Object) field.ErrorList {
	if old != nil {
		return MetaUpdate(obj, old)
	}
	errs := validateMetaCreate(obj, apimachineryvalidation.ValidateNamespaceName)
	if ns, ok := obj.(*corev1.Namespace); ok {
		for _, f := range ns.Spec.Finalizers {
			errs = append(errs, apimachineryvalidation.ValidateFinalizerName(string(f), field.NewPath("spec", "finalizers"))...)
		}
	}
	return errs
}

// ConfigMap is ValidateConfigMap / ValidateConfigMapUpdate: keys
// are config-map keys, data and binaryData share no key and sum to 1 MiB
// at most, and an immutable ConfigMap keeps its data.
func ConfigMap(cm *corev1.ConfigMap, old runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if o, ok := old.(*corev1.ConfigMap); ok {
		errs = MetaUpdate(cm, o)
		if o.Immutable != nil && *o.Immutable {
			if cm.Immutable == nil || !*cm.Immutable {
				errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
			}
			if !reflect.DeepEqual(cm.Data, o.Data) {
				errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
			}
			if !reflect.DeepEqual(cm.BinaryData, o.BinaryData) {
				errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableWhenSet))
			}
		}
	}
	errs = append(errs, validateMetaCreate(cm, apimachineryvalidation.NameIsDNSSubdomain)...)
	total := 0
	for key, value := range cm.Data {
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, msg))
		}
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, "duplicate of key present in binaryData"))
		}
		total += len(value)
	}
	for key, value := range cm.BinaryData {
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, msg))
		}
		total += len(value)
	}
	if total > maxDataSize {
		// The empty path: the error is about the whole object.
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxDataSize))
	}
	return errs
}

// Secret is ValidateSecret / ValidateSecretUpdate: keys, the 1 MiB
// limit on data (stringData counts, as the real server has merged it into
// data before validating), the keys each well-known type requires, and
// immutability of type and of an immutable Secret's data.
func Secret(s *corev1.Secret, old runtime.Object) field.ErrorList {
	data := secretData(s)
	var errs field.ErrorList
	if o, ok := old.(*corev1.Secret); ok {
		errs = MetaUpdate(s, o)
		if s.Type != o.Type {
			errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, "field is immutable"))
		}
		if o.Immutable != nil && *o.Immutable {
			if s.Immutable == nil || !*s.Immutable {
				errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
			}
			if !reflect.DeepEqual(data, secretData(o)) {
				errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
			}
		}
	}
	errs = append(errs, validateMetaCreate(s, apimachineryvalidation.NameIsDNSSubdomain)...)
	dataPath := field.NewPath("data")
	total := 0
	for key, value := range data {
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, msg))
		}
		total += len(value)
	}
	if total > maxDataSize {
		errs = append(errs, field.TooLong(dataPath, "", maxDataSize))
	}
	return append(errs, validateSecretType(s, data, dataPath)...)
}

// secretData is the data of a Secret with stringData merged in, as the
// v1-to-internal conversion does before validation.
func secretData(s *corev1.Secret) map[string][]byte {
	if len(s.StringData) == 0 {
		return s.Data
	}
	data := make(map[string][]byte, len(s.Data)+len(s.StringData))
	for k, v := range s.Data {
		data[k] = v
	}
	for k, v := range s.StringData {
		data[k] = []byte(v)
	}
	return data
}

// validateSecretType checks the keys a well-known Secret type requires.
func validateSecretType(s *corev1.Secret, data map[string][]byte, dataPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	required := func(keys ...string) {
		for _, k := range keys {
			if _, ok := data[k]; !ok {
				errs = append(errs, field.Required(dataPath.Key(k), ""))
			}
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(metadataPath.Child("annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		required(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		required(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := data[corev1.BasicAuthUsernameKey]
		_, pass := data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			required(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		required(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return errs
}

// Service is the part of ValidateService / ValidateServiceUpdate
// tests hit: the name is a DNS label, ports are required (except for
// headless and ExternalName services) and each is valid, the selector is
// a label map, and an allocated clusterIP may not change. The IP fields
// themselves are checked, and cluster IPs allocated, before validation
// (fakeapiserver service_prepare.go), as the service REST does.
func Service(svc *corev1.Service, old runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if o, ok := old.(*corev1.Service); ok {
		errs = MetaUpdate(svc, o)
		errs = append(errs, validateClusterIPUpdate(svc, o)...)
	} else {
		// RelaxedServiceNameValidation (on in v1.37, KEP-5311): a DNS
		// label, no longer a DNS-1035 one.
		errs = validateMetaCreate(svc, apimachineryvalidation.NameIsDNSLabel)
	}
	specPath := field.NewPath("spec")
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone
	if len(svc.Spec.Ports) == 0 && !headless && svc.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(specPath.Child("ports"), ""))
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && svc.Spec.ExternalName == "" {
		errs = append(errs, field.Required(specPath.Child("externalName"), ""))
	}
	names := map[string]bool{}
	for i := range svc.Spec.Ports {
		errs = append(errs, validateServicePort(&svc.Spec.Ports[i], len(svc.Spec.Ports) > 1, names, specPath.Child("ports").Index(i))...)
	}
	if svc.Spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(svc.Spec.Selector, specPath.Child("selector"))...)
	}
	return errs
}

// validateServicePort is validateServicePort. An unset protocol is what
// defaulting fills (TCP), so only a set one is checked; an unset
// targetPort is checked as the port defaulting copies into it.
func validateServicePort(sp *corev1.ServicePort, requireName bool, names map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && sp.Name == "":
		errs = append(errs, field.Required(path.Child("name"), ""))
	case sp.Name != "":
		errs = append(errs, validateDNS1123Label(sp.Name, path.Child("name"))...)
		if names[sp.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), sp.Name))
		}
		names[sp.Name] = true
	}
	for _, msg := range utilvalidation.IsValidPortNum(int(sp.Port)) {
		errs = append(errs, field.Invalid(path.Child("port"), sp.Port, msg))
	}
	if sp.Protocol != "" {
		errs = append(errs, validateOneOf(path.Child("protocol"), string(sp.Protocol), supportedPortProtocols...)...)
	}
	target := sp.TargetPort
	if target == intstr.FromInt32(0) || target == intstr.FromString("") {
		target = intstr.FromInt32(sp.Port)
	}
	switch {
	case target.Type == intstr.Int:
		for _, msg := range utilvalidation.IsValidPortNum(target.IntValue()) {
			errs = append(errs, field.Invalid(path.Child("targetPort"), target.IntValue(), msg))
		}
	case target.Type == intstr.String:
		for _, msg := range utilvalidation.IsValidPortName(target.StrVal) {
			errs = append(errs, field.Invalid(path.Child("targetPort"), target.StrVal, msg))
		}
	}
	return errs
}

// validateClusterIPUpdate is validateUpgradeDowngradeClusterIPs for the
// single-stack case: a set clusterIP may not change. An update that omits
// it keeps the old one (the service REST patches allocated values in).
func validateClusterIPUpdate(svc, old *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if old.Spec.ClusterIP == "" || svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == old.Spec.ClusterIP {
		return nil
	}
	if old.Spec.ClusterIP == corev1.ClusterIPNone && svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return nil
	}
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 {
		ips = []string{svc.Spec.ClusterIP}
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), ips, "may not change once set")}
}
