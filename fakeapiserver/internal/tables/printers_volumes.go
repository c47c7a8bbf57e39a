package tables

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PersistentVolume and PersistentVolumeClaim printers (printers.go
// printPersistentVolume, printPersistentVolumeClaim). The phase, reclaim
// policy and volume mode v1 defaulting stores are read as kube-apiserver
// would have stored them.

// betaStorageClassAnnotation overrides a volume's or claim's class
// (core.BetaStorageClassAnnotation).
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

func persistentVolumeColumns() []metav1.TableColumnDefinition {
	spec, status := corev1.PersistentVolumeSpec{}.SwaggerDoc(), corev1.PersistentVolumeStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Capacity", "string", spec["capacity"]),
		column("Access Modes", "string", spec["accessModes"]),
		column("Reclaim Policy", "string", spec["persistentVolumeReclaimPolicy"]),
		column("Status", "string", status["phase"]),
		column("Claim", "string", spec["claimRef"]),
		column("StorageClass", "string", "StorageClass of the pv"),
		column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
		column("Reason", "string", status["reason"]),
		ageColumn,
		wideColumn("VolumeMode", "string", spec["volumeMode"]),
	}
}

func printPersistentVolume(pv *corev1.PersistentVolume, now time.Time) metav1.TableRow {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	// SetDefaults_PersistentVolume: Retain, Pending and Filesystem.
	reclaim := pv.Spec.PersistentVolumeReclaimPolicy
	if reclaim == "" {
		reclaim = corev1.PersistentVolumeReclaimRetain
	}
	phase := volumePhase(pv.Status.Phase, pv.DeletionTimestamp)
	class, found := pv.Annotations[betaStorageClassAnnotation]
	if !found {
		class = pv.Spec.StorageClassName
	}
	capacity := pv.Spec.Capacity[corev1.ResourceStorage]
	return cells(pv.Name, capacity.String(), accessModesString(pv.Spec.AccessModes), string(reclaim), phase, claim, class,
		ptrOr(pv.Spec.VolumeAttributesClassName, "<unset>"), pv.Status.Reason, age(pv.CreationTimestamp.Time, now),
		volumeModeString(pv.Spec.VolumeMode))
}

func persistentVolumeClaimColumns() []metav1.TableColumnDefinition {
	spec, status := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", status["phase"]),
		column("Volume", "string", spec["volumeName"]),
		column("Capacity", "string", status["capacity"]),
		column("Access Modes", "string", status["accessModes"]),
		column("StorageClass", "string", "StorageClass of the pvc"),
		column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
		ageColumn,
		wideColumn("VolumeMode", "string", spec["volumeMode"]),
	}
}

// printPersistentVolumeClaim shows capacity and access modes from the
// status, and only once the claim names a volume.
func printPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim, now time.Time) metav1.TableRow {
	var capacity, modes string
	if pvc.Spec.VolumeName != "" {
		modes = accessModesString(pvc.Status.AccessModes)
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity = q.String()
	}
	class, found := pvc.Annotations[betaStorageClassAnnotation]
	if !found {
		class = ptrOr(pvc.Spec.StorageClassName, "")
	}
	return cells(pvc.Name, volumePhase(pvc.Status.Phase, pvc.DeletionTimestamp), pvc.Spec.VolumeName, capacity, modes, class,
		ptrOr(pvc.Spec.VolumeAttributesClassName, "<unset>"), age(pvc.CreationTimestamp.Time, now), volumeModeString(pvc.Spec.VolumeMode))
}

// volumePhase is a volume's or claim's phase: Terminating once deleted,
// Pending (the v1 default) when unset.
func volumePhase[P ~string](phase P, deleted *metav1.Time) string {
	switch {
	case deleted != nil:
		return "Terminating"
	case phase == "":
		return "Pending"
	}
	return string(phase)
}

// volumeModeString is the volume mode after v1 defaulting (Filesystem).
func volumeModeString(m *corev1.PersistentVolumeMode) string {
	return string(ptrOr(m, corev1.PersistentVolumeFilesystem))
}

// accessModesString is helper.GetAccessModesAsString: the modes present,
// abbreviated, in a fixed order.
func accessModesString(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		for _, have := range modes {
			if have == m.mode {
				out = append(out, m.short)
				break
			}
		}
	}
	return strings.Join(out, ",")
}
