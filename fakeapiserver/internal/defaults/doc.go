// Package defaults fills in what kube-apiserver v1.37 fills into a written
// object of a built-in kind that the client left out, as pure functions
// over the object:
//
//	defaults.go  namespaces, pod templates, HorizontalPodAutoscalers; each kind's
//	             defaulter is named in its internal/kinds family file
//	pod.go       pod and pod-template defaults ([Pod], [PodTemplate])
//	status.go    the status defaults of Services (ingress ipMode)
//	node.go      Nodes: pod CIDRs as the internal type keeps them, allocatable
//	             from capacity, quantities rounded to milli
//	volume.go    PersistentVolumeClaim and PersistentVolume (phase, volumeMode,
//	             reclaim policy)
//	create.go    on create only: strategies' PrepareForCreate and the default
//	             admission plugins that mutate pods, per kind ([PodForCreate], ...)
//	template.go  a pod template's generated defaults (volumes, containers)
//	workloads.go Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs,
//	             CronJobs, ReplicationControllers, PodTemplates
//	workloads_create.go  what their strategies set on create and update
//	             (a Job's selector, a DaemonSet's template generation)
//	simple.go    kinds with a few scalar rules: Secrets (type Opaque,
//	             stringData merged into data), Endpoints, EndpointSlices,
//	             LimitRanges, NetworkPolicies, IngressClasses, RBAC bindings,
//	             StorageClasses, CSIDrivers, PriorityClasses
//	flowcontrol.go  FlowSchemas and PriorityLevelConfigurations
//	admission.go webhook configurations, admission policies and bindings
//	autoscaling.go  HorizontalPodAutoscalers (v1 and v2)
//	resource.go  ResourceClaims and their templates (device requests)
//
// Only the defaults that List and Watch users see (in objects, and through
// field selectors) are ported; each function names the upstream code it
// copies. What needs the server (uid, timestamps, generation, the status a
// strategy resets) stays in fakeapiserver.
package defaults
