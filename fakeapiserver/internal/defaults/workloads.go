package defaults

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The decoder defaults of the workload kinds, ported from kubernetes
// pkg/apis/apps/v1, pkg/apis/batch/v1 and pkg/apis/core/v1 (defaults.go
// and zz_generated.defaults.go), with the feature gates of v1.37's
// defaults. Each kind's pod template gets templateSpec.

// defaultRevisionHistoryLimit is what Deployments, StatefulSets and
// DaemonSets keep of old revisions when the client says nothing.
const defaultRevisionHistoryLimit = 10

// Deployment is SetObjectDefaults_Deployment: one replica, a RollingUpdate
// strategy with 25% unavailable and 25% surge, ten old ReplicaSets kept,
// a progress deadline of 600 s.
func Deployment(d *appsv1.Deployment) {
	spec := &d.Spec
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	s := &spec.Strategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	if spec.ProgressDeadlineSeconds == nil {
		spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	templateSpec(&spec.Template.Spec)
}

// ReplicaSet is SetObjectDefaults_ReplicaSet: one replica.
func ReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr.To[int32](1)
	}
	templateSpec(&rs.Spec.Template.Spec)
}

// StatefulSet is SetObjectDefaults_StatefulSet: OrderedReady pods, a
// RollingUpdate strategy at partition 0 with one unavailable pod
// (MaxUnavailableStatefulSet, beta and on since v1.37; only when
// rollingUpdate is set or the type was defaulted), claims retained, one
// replica, ten revisions kept; each claim template defaulted as a claim
// and typed.
func StatefulSet(sts *appsv1.StatefulSet) {
	spec := &sts.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	u := &spec.UpdateStrategy
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if u.RollingUpdate == nil {
			u.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if u.Type == appsv1.RollingUpdateStatefulSetStrategyType && u.RollingUpdate != nil {
		if u.RollingUpdate.Partition == nil {
			u.RollingUpdate.Partition = ptr.To[int32](0)
		}
		if u.RollingUpdate.MaxUnavailable == nil {
			u.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	p := spec.PersistentVolumeClaimRetentionPolicy
	if p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	templateSpec(&spec.Template.Spec)
	for i := range spec.VolumeClaimTemplates {
		c := &spec.VolumeClaimTemplates[i]
		PersistentVolumeClaim(c)
		// The apps/v1 conversion (pkg/apis/apps/v1/conversion.go) types
		// each claim template on the way out, as reflective conversion
		// did before 1.17 (kubernetes#87583); lw-sim stores v1 as served.
		c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
	}
}

// DaemonSet is SetObjectDefaults_DaemonSet: a RollingUpdate strategy with
// one unavailable pod and no surge, ten revisions kept.
func DaemonSet(ds *appsv1.DaemonSet) {
	u := &ds.Spec.UpdateStrategy
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if u.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if u.RollingUpdate == nil {
			u.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if u.RollingUpdate.MaxUnavailable == nil {
			u.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if u.RollingUpdate.MaxSurge == nil {
			u.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	templateSpec(&ds.Spec.Template.Spec)
}

// Job is SetObjectDefaults_Job: completions and parallelism 1 when both are
// unset, backoffLimit 6 (MaxInt32 with a per-index limit), the object's
// labels from the template's when it has none, NonIndexed completion, not
// suspended, pods replaced once Failed with a pod failure policy (else
// TerminatingOrFailed), manualSelector false, a failure policy's
// condition patterns matching status True.
func Job(j *batchv1.Job) {
	spec := &j.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptr.To[int32](1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptr.To[int32](1)
	}
	if spec.BackoffLimit == nil {
		spec.BackoffLimit = ptr.To[int32](6)
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptr.To[int32](1<<31 - 1)
		}
	}
	if l := spec.Template.Labels; l != nil && len(j.Labels) == 0 {
		j.Labels = l
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.PodReplacementPolicy == nil {
		spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptr.To(false)
	}
	jobSpecNested(spec)
}

// jobSpecNested is the generated part of a Job's defaults that a
// CronJob's job template gets too (SetDefaults_Job itself is not applied
// to a template): failure-policy condition patterns and the pod template.
func jobSpecNested(spec *batchv1.JobSpec) {
	if pfp := spec.PodFailurePolicy; pfp != nil {
		for i := range pfp.Rules {
			for k := range pfp.Rules[i].OnPodConditions {
				if c := &pfp.Rules[i].OnPodConditions[k]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
	templateSpec(&spec.Template.Spec)
}

// CronJob is SetObjectDefaults_CronJob: concurrency Allow, not suspended,
// three successful and one failed job kept.
func CronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	jobSpecNested(&spec.JobTemplate.Spec)
}

// ReplicationController is SetObjectDefaults_ReplicationController: the
// selector and the object's labels from the template's labels when unset
// (both share the template's map, as upstream), one replica.
func ReplicationController(rc *corev1.ReplicationController) {
	spec := &rc.Spec
	if spec.Template != nil && spec.Template.Labels != nil {
		if len(spec.Selector) == 0 {
			spec.Selector = spec.Template.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = spec.Template.Labels
		}
	}
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	if spec.Template != nil {
		templateSpec(&spec.Template.Spec)
	}
}
