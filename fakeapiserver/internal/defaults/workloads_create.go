package defaults

import (
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DaemonSetForCreate is what the DaemonSet strategy's PrepareForCreate
// sets besides generation and status (which the server owns): its
// templateGeneration starts at 1 (pkg/registry/apps/daemonset/strategy.go).
func DaemonSetForCreate(ds *appsv1.DaemonSet) {
	setTemplateGeneration(ds, max(templateGeneration(ds), 1))
}

// templateGeneration is a DaemonSet's spec.templateGeneration, which
// apps/v1 carries in the deprecated.daemonset.template.generation
// annotation (pkg/apis/apps/v1/conversion.go); 0 when absent or not a
// number (the real conversion fails on the latter: not reproduced).
func templateGeneration(ds *appsv1.DaemonSet) int64 {
	g, err := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	if err != nil {
		return 0
	}
	return g
}

// setTemplateGeneration writes g back as the v1 conversion does.
func setTemplateGeneration(ds *appsv1.DaemonSet, g int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(g, 10)
}

// JobForNamedCreate applies what a new Job's strategy derives from its
// final name and uid, so it runs once a generated name is chosen: a Job
// without manualSelector gets the selector and template labels of
// generateSelector (pkg/registry/batch/job/strategy.go).
func JobForNamedCreate(j *batchv1.Job) {
	if j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector {
		generateJobSelector(j)
		// SetDefaults_Job may have made the Job's labels the template's
		// map, which is how they get the generated labels too (as on
		// kube-apiserver, whose decoded object keeps that sharing until
		// stored); the stored object must not share it.
		j.Labels = maps.Clone(j.Labels)
	}
}

// The job strategy's unprefixed labels (kubernetes pkg/apis/batch), which
// k8s.io/api does not export.
const (
	legacyJobNameLabel       = "job-name"
	legacyControllerUIDLabel = "controller-uid"
)

// generateJobSelector is the job strategy's generateSelector: the
// template is labelled with the job's name and uid (legacy and
// batch.kubernetes.io keys, a label the client set is kept: validation
// rejects a conflict) and the selector matches the uid.
func generateJobSelector(j *batchv1.Job) {
	t := &j.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for _, key := range []string{legacyJobNameLabel, batchv1.JobNameLabel} {
		if _, found := t.Labels[key]; !found {
			t.Labels[key] = j.Name
		}
	}
	for _, key := range []string{legacyControllerUIDLabel, batchv1.ControllerUidLabel} {
		if _, found := t.Labels[key]; !found {
			t.Labels[key] = string(j.UID)
		}
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, found := j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(j.UID)
	}
}

// DaemonSetForUpdate is what the DaemonSet strategy's PrepareForUpdate
// keeps or derives besides generation: templateGeneration is the
// server's, kept from old and incremented when the template changes
// (pkg/registry/apps/daemonset/strategy.go).
func DaemonSetForUpdate(ds, o *appsv1.DaemonSet) {
	g := templateGeneration(o)
	if !apiequality.Semantic.DeepEqual(ds.Spec.Template, o.Spec.Template) {
		g++
	}
	setTemplateGeneration(ds, g)
}
