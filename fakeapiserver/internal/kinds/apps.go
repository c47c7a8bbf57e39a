package kinds

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// workloadScale is the scale of the built-in workloads: replicas a missing
// count reads as 1, as their defaulting sets it.
var workloadScale = &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", UnsetReplicas: 1}

// appsKinds: kubernetes pkg/registry/apps/{deployment,replicaset,
// statefulset,daemonset}/strategy.go and core/replicationcontroller.
// Defaults: internal/defaults workloads.go; validation: internal/validation
// apps.go, status.go; printers: internal/tables printers_groups.go,
// printers_core.go.
var appsKinds = []kind{
	{gk("apps", "Deployment"), Strategy{
		Default:        typed(defaults.Deployment),
		Validate:       validation.Deployment,
		ValidateStatus: validation.TypedPair(validation.DeploymentStatus),
		ShortNames:     []string{"deploy"}, TracksGeneration: true, Scale: workloadScale,
		ResetFields: ResetFields{Status: []fieldpath.Path{fieldpath.MakePathOrDie("metadata", "labels")}},
	}},
	{gk("apps", "ReplicaSet"), Strategy{
		Default:        typed(defaults.ReplicaSet),
		Validate:       validation.ReplicaSet,
		ValidateStatus: validation.TypedStatus(validation.ReplicaSetStatus),
		ShortNames:     []string{"rs"}, TracksGeneration: true, Scale: workloadScale,
	}},
	{gk("apps", "StatefulSet"), Strategy{
		Default:        typed(defaults.StatefulSet),
		Validate:       validation.StatefulSet,
		ValidateStatus: validation.TypedPair(validation.StatefulSetStatus),
		ShortNames:     []string{"sts"}, TracksGeneration: true, Scale: workloadScale,
	}},
	{gk("apps", "DaemonSet"), Strategy{
		Default:        typed(defaults.DaemonSet),
		Validate:       validation.DaemonSet,
		ValidateStatus: validation.TypedPair(validation.DaemonSetStatus),
		ShortNames:     []string{"ds"}, TracksGeneration: true,
		PrepareForCreate: typedTimed(func(ds *appsv1.DaemonSet, _ metav1.Time) { defaults.DaemonSetForCreate(ds) }),
		PrepareForUpdate: typedUpdate(defaults.DaemonSetForUpdate),
	}},
	{gk("", "ReplicationController"), Strategy{
		Default:        typed(defaults.ReplicationController),
		Validate:       validation.TypedCreate(validation.ReplicationController),
		ValidateStatus: validation.TypedStatus(validation.ReplicationControllerStatus),
		ShortNames:     []string{"rc"}, TracksGeneration: true, Scale: workloadScale,
		// v1 ReplicationControllers orphan their pods by default (the
		// replicationcontroller strategy's DefaultGarbageCollectionPolicy).
		GCPolicy: GCOrphanDependents,
	}},
}
