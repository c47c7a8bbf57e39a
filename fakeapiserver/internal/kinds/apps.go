package kinds

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
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
		ShortNames: []string{"deploy"}, TracksGeneration: true, Scale: workloadScale,
		ResetFields: ResetFields{Status: []fieldpath.Path{fieldpath.MakePathOrDie("metadata", "labels")}},
	}},
	{gk("apps", "ReplicaSet"), Strategy{ShortNames: []string{"rs"}, TracksGeneration: true, Scale: workloadScale}},
	{gk("apps", "StatefulSet"), Strategy{ShortNames: []string{"sts"}, TracksGeneration: true, Scale: workloadScale}},
	{gk("apps", "DaemonSet"), Strategy{
		ShortNames: []string{"ds"}, TracksGeneration: true,
		PrepareForCreate: typedTimed(func(ds *appsv1.DaemonSet, _ metav1.Time) { defaults.DaemonSetForCreate(ds) }),
		PrepareForUpdate: typedUpdate(defaults.DaemonSetForUpdate),
	}},
	{gk("", "ReplicationController"), Strategy{ShortNames: []string{"rc"}, TracksGeneration: true, Scale: workloadScale}},
}
