package defaults

import (
	corev1 "k8s.io/api/core/v1"
)

// PersistentVolumeClaim is SetObjectDefaults_PersistentVolumeClaim: phase
// Pending, volumeMode Filesystem, quantities rounded up to milli-units.
func PersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	claimSpec(&pvc.Spec)
	roundUpToMilli(pvc.Status.Capacity)
	roundUpToMilli(pvc.Status.AllocatedResources)
}

// claimSpec is SetDefaults_PersistentVolumeClaimSpec and the rounding of
// its requests and limits.
func claimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		mode := corev1.PersistentVolumeFilesystem
		spec.VolumeMode = &mode
	}
	roundUpToMilli(spec.Resources.Limits)
	roundUpToMilli(spec.Resources.Requests)
}

// PersistentVolume is SetObjectDefaults_PersistentVolume for what does
// not depend on a legacy in-tree volume source: phase Pending, reclaim
// policy Retain, volumeMode Filesystem, capacity rounded up to
// milli-units, and a hostPath's type "" (HostPathUnset). The RBD, iSCSI,
// AzureDisk and ScaleIO defaults are not ported.
func PersistentVolume(pv *corev1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		mode := corev1.PersistentVolumeFilesystem
		pv.Spec.VolumeMode = &mode
	}
	roundUpToMilli(pv.Spec.Capacity)
	if hp := pv.Spec.HostPath; hp != nil && hp.Type == nil {
		unset := corev1.HostPathUnset
		hp.Type = &unset
	}
}
