package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// updatablePodSpecFields is how the pod-update error lists what may
// change (core validation updatablePodSpecFields).
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// Pod is core validation's ValidatePodCreate and ValidatePodUpdate,
// reduced to the metadata, the containers (required; names, images and
// ports), restartPolicy, dnsPolicy, nodeSelector, serviceAccountName and
// nodeName, and on update the rule that only images, activeDeadlineSeconds
// and added tolerations may change. The message of a forbidden spec change
// ends with a diff of the spec that kube-apiserver renders from its
// internal type; lw-sim renders it from core/v1 (see DIVERGENCES.md).
func Pod(pod *corev1.Pod, old runtime.Object) field.ErrorList {
	specPath := field.NewPath("spec")
	if old == nil {
		errs := validateMetaCreate(pod, apimachineryvalidation.NameIsDNSSubdomain)
		errs = append(errs, validatePodSpec(&pod.Spec, specPath)...)
		if len(pod.Spec.EphemeralContainers) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create"))
		}
		return errs
	}
	oldPod, ok := old.(*corev1.Pod)
	if !ok {
		return MetaUpdate(pod, old)
	}
	errs := MetaUpdate(pod, oldPod)
	errs = append(errs, validateMetaCreate(pod, apimachineryvalidation.NameIsDNSSubdomain)...)
	errs = append(errs, validatePodSpec(&pod.Spec, specPath)...)
	return append(errs, validatePodSpecUpdate(&pod.Spec, &oldPod.Spec, specPath)...)
}

// validatePodSpec is the subset of core validation's ValidatePodSpec that
// lw-sim reproduces, in its order.
func validatePodSpec(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), ""))
	}
	errs = append(errs, validateContainers(spec.Containers, path.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, path.Child("initContainers"))...)
	errs = append(errs, validateOneOf(path.Child("restartPolicy"), string(spec.RestartPolicy),
		string(corev1.RestartPolicyAlways), string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever))...)
	errs = append(errs, validateOneOf(path.Child("dnsPolicy"), string(spec.DNSPolicy),
		string(corev1.DNSClusterFirstWithHostNet), string(corev1.DNSClusterFirst), string(corev1.DNSDefault), string(corev1.DNSNone))...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range apimachineryvalidation.ValidateServiceAccountName(spec.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(path.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	//nolint:staticcheck // SA1019: the real server checks the deprecated field mirrors the new one.
	if spec.DeprecatedServiceAccount != spec.ServiceAccountName {
		errs = append(errs, field.Invalid(path.Child("deprecatedServiceAccount"), spec.DeprecatedServiceAccount, fmt.Sprintf("must be the same as serviceAccountName: %q", spec.ServiceAccountName))) //nolint:staticcheck // SA1019
	}
	if spec.NodeName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), spec.NodeName, msg))
		}
	}
	return errs
}

// validateOneOf is the Required / NotSupported check of an enum field.
func validateOneOf(path *field.Path, value string, valid ...string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	for _, v := range valid {
		if value == v {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(path, value, valid)}
}

// validateContainers is validateContainers: at least one, each valid, names
// unique.
func validateContainers(containers []corev1.Container, path *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range containers {
		p := path.Index(i)
		errs = append(errs, validateContainer(&containers[i], p)...)
		if names[containers[i].Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), containers[i].Name))
		}
		names[containers[i].Name] = true
	}
	return errs
}

// validateInitContainers is validateInitContainers: names unique across
// regular and init containers.
func validateInitContainers(inits, containers []corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for _, c := range containers {
		names[c.Name] = true
	}
	for i := range inits {
		p := path.Index(i)
		errs = append(errs, validateContainer(&inits[i], p)...)
		if names[inits[i].Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), inits[i].Name))
		}
		names[inits[i].Name] = true
	}
	return errs
}

// validateContainer is the start of validateContainerCommon: name (a DNS
// label), image, terminationMessagePolicy and ports.
func validateContainer(c *corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, validateDNS1123Label(c.Name, path.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	}
	errs = append(errs, validateOneOf(path.Child("terminationMessagePolicy"), string(c.TerminationMessagePolicy),
		string(corev1.TerminationMessageReadFile), string(corev1.TerminationMessageFallbackToLogsOnError))...)
	return append(errs, validateContainerPorts(c.Ports, path.Child("ports"))...)
}

// validateContainerPorts is validateContainerPorts.
func validateContainerPorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := path.Index(i)
		if port.Name != "" {
			if msgs := utilvalidation.IsValidPortName(port.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, validateOneOf(p.Child("protocol"), string(port.Protocol), supportedPortProtocols...)...)
	}
	return errs
}

// supportedPortProtocols are the protocols of container and service ports,
// sorted as the real error lists them.
var supportedPortProtocols = []string{string(corev1.ProtocolSCTP), string(corev1.ProtocolTCP), string(corev1.ProtocolUDP)}

// validateDNS1123Label is core validation's ValidateDNS1123Label.
func validateDNS1123Label(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// validatePodSpecUpdate is the spec part of ValidatePodUpdate: containers
// cannot be added or removed, images stay set, activeDeadlineSeconds only
// shrinks, tolerations are only added, and nothing else changes.
func validatePodSpecUpdate(spec, old *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, pair := range []struct {
		name     string
		new, old []corev1.Container
	}{{"containers", spec.Containers, old.Containers}, {"initContainers", spec.InitContainers, old.InitContainers}} {
		p := path.Child(pair.name)
		if len(pair.new) != len(pair.old) {
			return append(errs, field.Forbidden(p, "pod updates may not add or remove containers"))
		}
		for i, c := range pair.new {
			if c.Image == "" {
				errs = append(errs, field.Required(p.Index(i).Child("image"), ""))
			}
			if strings.TrimSpace(c.Image) != c.Image {
				errs = append(errs, field.Invalid(p.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
			}
		}
	}
	if apiequality.Semantic.DeepEqual(spec, old) {
		return errs
	}
	munged := spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	munged.SchedulingGates = old.SchedulingGates
	munged.Tolerations = old.Tolerations
	if g := old.TerminationGracePeriodSeconds; g != nil && *g < 0 && munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if !apiequality.Semantic.DeepEqual(munged, old) {
		msg := fmt.Sprintf("pod updates may not change fields other than %s\n%v", strings.Join(updatablePodSpecFields, ","), diff.Diff(old, munged))
		errs = append(errs, field.Forbidden(path, msg))
	}
	return errs
}
