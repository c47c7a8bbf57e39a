// Package kinds is the one place a built-in kind's write rules are looked
// up: a [Strategy] per kind, a struct of optional hooks modelled on
// kube-apiserver's generic registry store and its strategies
// (k8s.io/apiserver pkg/registry/generic/registry/store.go,
// pkg/registry/rest create.go and update.go: RESTCreateStrategy,
// RESTUpdateStrategy, ResetFieldsStrategy, RESTGracefulDeleteStrategy).
// The server's write path calls the hooks and knows no kind by name.
//
// One file per kind family, each naming, per kind, its scope, short
// names, generation rule, decoder defaults (internal/defaults), validation
// (internal/validation), status preparation, reset fields, scale,
// subresources and field labels (internal/fieldlabels); printers are
// internal/tables' (by kind):
//
//	kinds.go        [Strategy], [For] and the list of families
//	core_pod.go     Pod, PodTemplate
//	core_service.go Service, Endpoints; the IP-field and allocated-value rules the allocation runs
//	core_namespace.go  Namespace
//	core_node.go    Node
//	core_volume.go  PersistentVolume, PersistentVolumeClaim
//	core_config.go  ConfigMap, Secret, ServiceAccount, LimitRange, ComponentStatus
//	apps.go         Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController
//	batch.go        Job, CronJob
//	autoscaling.go  HorizontalPodAutoscaler
//	rbac.go         Role, ClusterRole, RoleBinding, ClusterRoleBinding
//	certificates.go CertificateSigningRequest, ClusterTrustBundle, PodCertificateRequest
//	apiextensions.go   CustomResourceDefinition
//	apiregistration.go APIService
//	flowcontrol.go  FlowSchema, PriorityLevelConfiguration
//	admission.go    webhook configurations, admission policies and their bindings
//	storage.go      StorageClass, CSIDriver, CSINode, VolumeAttachment
//	networking.go   Ingress, NetworkPolicy, IngressClass, ServiceCIDR, EndpointSlice
//	scheduling.go   PriorityClass, PodGroup, CompositePodGroup
//	resource.go     ResourceClaim, ResourceClaimTemplate, DeviceTaintRule, ResourcePoolStatusRequest
//	misc.go         RuntimeClass, StorageVersion, StorageVersionMigration
//
// Every hook is pure: it reads and writes the objects it is given and
// nothing else, so many servers share the table.
package kinds
