package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// statusPath is the field path of every object's status.
var statusPath = field.NewPath("status")

// nonNegative is ValidateNonnegativeField for each named counter, in order.
func nonNegative(path *field.Path, counters ...namedCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counters {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(c.value, path.Child(c.name))...)
	}
	return errs
}

// namedCount is one status counter and its JSON name.
type namedCount struct {
	name  string
	value int64
}

// count is a namedCount of an int32 counter.
func count(name string, v int32) namedCount { return namedCount{name, int64(v)} }

// countPtr appends the counter v to cs when it is set.
func countPtr(cs []namedCount, name string, v *int32) []namedCount {
	if v == nil {
		return cs
	}
	return append(cs, count(name, *v))
}

// notAboveReplicas is the "cannot be greater than status.replicas" check of
// each named counter, in order.
func notAboveReplicas(path *field.Path, replicas int32, counters ...namedCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counters {
		if c.value > int64(replicas) {
			errs = append(errs, field.Invalid(path.Child(c.name), int32(c.value), "cannot be greater than status.replicas"))
		}
	}
	return errs
}

// notAboveReady is the availableReplicas > readyReplicas check; msg differs
// between the kinds (StatefulSets say "status.readyReplicas").
func notAboveReady(path *field.Path, available, ready int32, msg string) field.ErrorList {
	if available > ready {
		return field.ErrorList{field.Invalid(path.Child("availableReplicas"), available, msg)}
	}
	return nil
}

// notDecremented is the "cannot be decremented" check of collisionCount
// (apivalidation.IsDecremented: unset after set counts as 0).
func notDecremented(next, old *int32) field.ErrorList {
	if old == nil || (next != nil && *next >= *old) {
		return nil
	}
	var v int32
	if next != nil {
		v = *next
	}
	return field.ErrorList{field.Invalid(statusPath.Child("collisionCount"), v, "cannot be decremented")}
}

// DeploymentStatus is apps validation's
// ValidateDeploymentStatusUpdate: the metadata update, then the status.
func DeploymentStatus(d, o *appsv1.Deployment) field.ErrorList {
	s := d.Status
	counters := []namedCount{{"observedGeneration", s.ObservedGeneration}, count("replicas", s.Replicas),
		count("updatedReplicas", s.UpdatedReplicas), count("readyReplicas", s.ReadyReplicas),
		count("availableReplicas", s.AvailableReplicas), count("unavailableReplicas", s.UnavailableReplicas)}
	counters = countPtr(counters, "terminatingReplicas", s.TerminatingReplicas)
	counters = countPtr(counters, "collisionCount", s.CollisionCount)
	errs := MetaUpdate(d, o)
	errs = append(errs, nonNegative(statusPath, counters...)...)
	errs = append(errs, notAboveReplicas(statusPath, s.Replicas, count("updatedReplicas", s.UpdatedReplicas),
		count("readyReplicas", s.ReadyReplicas), count("availableReplicas", s.AvailableReplicas))...)
	errs = append(errs, notAboveReady(statusPath, s.AvailableReplicas, s.ReadyReplicas, "cannot be greater than readyReplicas")...)
	return append(errs, notDecremented(s.CollisionCount, o.Status.CollisionCount)...)
}

// ReplicaSetStatus is apps validation's
// ValidateReplicaSetStatusUpdate.
func ReplicaSetStatus(rs *appsv1.ReplicaSet, old runtime.Object) field.ErrorList {
	s := rs.Status
	counters := replicaSetCounters(s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas, s.ObservedGeneration)
	counters = countPtr(counters, "terminatingReplicas", s.TerminatingReplicas)
	return append(MetaUpdate(rs, old), replicaCounts(counters, s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas)...)
}

// ReplicationControllerStatus is core validation's
// ValidateReplicationControllerStatusUpdate (the ReplicaSet rules without
// terminatingReplicas).
func ReplicationControllerStatus(rc *corev1.ReplicationController, old runtime.Object) field.ErrorList {
	s := rc.Status
	counters := replicaSetCounters(s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas, s.ObservedGeneration)
	return append(MetaUpdate(rc, old), replicaCounts(counters, s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas)...)
}

// replicaCounts is the status check ReplicaSets and ReplicationControllers
// share: counters not negative, none above replicas, available not above
// replicaSetCounters are the counters ReplicaSet and ReplicationController
// status share, in the order their validation reports them.
func replicaSetCounters(replicas, fullyLabeled, ready, available int32, observedGeneration int64) []namedCount {
	return []namedCount{count("replicas", replicas), count("fullyLabeledReplicas", fullyLabeled),
		count("readyReplicas", ready), count("availableReplicas", available),
		{"observedGeneration", observedGeneration}}
}

// ready.
func replicaCounts(counters []namedCount, replicas, fullyLabeled, ready, available int32) field.ErrorList {
	errs := nonNegative(statusPath, counters...)
	errs = append(errs, notAboveReplicas(statusPath, replicas, count("fullyLabeledReplicas", fullyLabeled),
		count("readyReplicas", ready), count("availableReplicas", available))...)
	return append(errs, notAboveReady(statusPath, available, ready, "cannot be greater than readyReplicas")...)
}

// StatefulSetStatus is apps validation's
// ValidateStatefulSetStatusUpdate, which checks the status before the
// metadata.
func StatefulSetStatus(sts, o *appsv1.StatefulSet) field.ErrorList {
	s := sts.Status
	counters := []namedCount{count("replicas", s.Replicas), count("readyReplicas", s.ReadyReplicas),
		count("currentReplicas", s.CurrentReplicas), count("updatedReplicas", s.UpdatedReplicas),
		count("availableReplicas", s.AvailableReplicas)}
	// observedGeneration is an int64 here; the internal type's *int64 is
	// never nil once decoded from v1.
	counters = append(counters, namedCount{"observedGeneration", s.ObservedGeneration})
	counters = countPtr(counters, "collisionCount", s.CollisionCount)
	errs := nonNegative(statusPath, counters...)
	errs = append(errs, notAboveReplicas(statusPath, s.Replicas, count("readyReplicas", s.ReadyReplicas),
		count("currentReplicas", s.CurrentReplicas), count("updatedReplicas", s.UpdatedReplicas),
		count("availableReplicas", s.AvailableReplicas))...)
	errs = append(errs, notAboveReady(statusPath, s.AvailableReplicas, s.ReadyReplicas, "cannot be greater than status.readyReplicas")...)
	errs = append(errs, MetaUpdate(sts, o)...)
	return append(errs, notDecremented(s.CollisionCount, o.Status.CollisionCount)...)
}

// DaemonSetStatus is apps validation's
// ValidateDaemonSetStatusUpdate.
func DaemonSetStatus(ds, o *appsv1.DaemonSet) field.ErrorList {
	s := ds.Status
	counters := []namedCount{count("currentNumberScheduled", s.CurrentNumberScheduled),
		count("numberMisscheduled", s.NumberMisscheduled), count("desiredNumberScheduled", s.DesiredNumberScheduled),
		count("numberReady", s.NumberReady), {"observedGeneration", s.ObservedGeneration},
		count("updatedNumberScheduled", s.UpdatedNumberScheduled), count("numberAvailable", s.NumberAvailable),
		count("numberUnavailable", s.NumberUnavailable)}
	counters = countPtr(counters, "collisionCount", s.CollisionCount)
	errs := MetaUpdate(ds, o)
	errs = append(errs, nonNegative(statusPath, counters...)...)
	return append(errs, notDecremented(s.CollisionCount, o.Status.CollisionCount)...)
}
