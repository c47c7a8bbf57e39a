package kinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// volumeKinds: kubernetes pkg/registry/core/persistentvolume/strategy.go
// and persistentvolumeclaim/strategy.go. Defaults: internal/defaults
// volume.go; validation: internal/validation pvc_status.go; printers:
// internal/tables printers_volumes.go; field labels: internal/fieldlabels.
var volumeKinds = []kind{
	{gk("", "PersistentVolume"), Strategy{
		Default:                typed(defaults.PersistentVolume),
		ClusterScoped:          true,
		ShortNames:             []string{"pv"},
		PrepareForCreate:       typedTimed(preparePVForCreate),
		PrepareForStatusUpdate: typedStatus(preparePVStatusUpdate),
	}},
	{gk("", "PersistentVolumeClaim"), Strategy{
		Default:                typed(defaults.PersistentVolumeClaim),
		ValidateStatus:         validation.TypedStatus(validation.PVCStatus),
		ShortNames:             []string{"pvc"},
		PrepareForCreate:       typedTimed(preparePVCForCreate),
		PrepareForStatusUpdate: typedStatus(preparePVCStatusUpdate),
	}},
}

// preparePVForCreate: a new volume is Pending since now (the decoder's
// default phase, which kube-apiserver applies when it reads the object
// back, and the strategy's lastPhaseTransitionTime).
func preparePVForCreate(pv *corev1.PersistentVolume, now metav1.Time) {
	pv.Status.Phase = corev1.VolumePending
	pv.Status.LastPhaseTransitionTime = &now
}

// preparePVCForCreate: a new claim is Pending (SetDefaults_PersistentVolumeClaim,
// applied when kube-apiserver reads the object back).
func preparePVCForCreate(pvc *corev1.PersistentVolumeClaim, _ metav1.Time) {
	pvc.Status.Phase = corev1.ClaimPending
}

// preparePVStatusUpdate is persistentvolumeStatusStrategy.PrepareForUpdate:
// a write that keeps the phase and leaves lastPhaseTransitionTime out
// keeps the stored one; a write that changes the phase without setting a
// new time records now.
func preparePVStatusUpdate(pv, old *corev1.PersistentVolume, now metav1.Time) {
	s, o := &pv.Status, &old.Status
	switch {
	case s.Phase == o.Phase && s.LastPhaseTransitionTime == nil:
		s.LastPhaseTransitionTime = o.LastPhaseTransitionTime
	case s.Phase != o.Phase && (s.LastPhaseTransitionTime == nil || s.LastPhaseTransitionTime.Equal(o.LastPhaseTransitionTime)):
		s.LastPhaseTransitionTime = &now
	}
}

// preparePVCStatusUpdate is DropDisabledFieldsFromStatus: healthStatus is
// CSIVolumeHealth's (alpha, off), kept only if already stored.
func preparePVCStatusUpdate(pvc, old *corev1.PersistentVolumeClaim, _ metav1.Time) {
	if old.Status.HealthStatus == nil {
		pvc.Status.HealthStatus = nil
	}
}
