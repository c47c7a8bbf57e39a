// Package validation is the per-kind validation of written objects, as the
// registry strategies of kube-apiserver v1.37 apply it (Validate on create,
// ValidateUpdate on update, the status strategies' ValidateUpdate on a
// write through /status; kubernetes pkg/apis/core/validation,
// pkg/apis/apps/validation, pkg/apis/batch/validation), reduced to the
// checks tests hit most. Every function is pure: it reads the object (and
// the stored one on update) and returns field errors, which fakeapiserver
// turns into the 422 Invalid Status naming the Kind and the object's name.
//
//	validation.go  [Func] and the typed adapters ([TypedCreate], [TypedStatus], [TypedPair]);
//	               internal/kinds names each kind's functions
//	meta.go        object metadata: [Generic], [MetaUpdate], finalizers, RBAC names
//	core.go        Namespace, ConfigMap, Secret, Service
//	pod.go         Pod and the pod spec every workload template shares
//	apps.go        Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController
//	batch.go       Job
//	status.go      writes through /status: the apps workloads, ReplicationController
//	pod_status.go  a Pod's status
//	job_status.go  a Job's status and its transitions
//	service_status.go  a Service's load-balancer status
//	pvc_status.go  a PersistentVolumeClaim's status (capacity, allocated resources)
//	node.go        Node (metadata, taints, resources, pod CIDRs, immutable spec fields)
//	node_status.go  a Node's status (capacity, allocatable, declared features, addresses)
//	event.go       core/v1 and events.k8s.io/v1 Events (legacy and strict rules)
//	admission_policy.go  ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings
//	                     (admission_policy_cel.go: their CEL expressions, compiled as upstream does)
//
// Messages and the order of the causes are kube-apiserver's, byte for byte:
// a client sees them in the Status details.
package validation
