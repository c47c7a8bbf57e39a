package fakeapiserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/conversion"
)

// TestHPAVersionsShareStorageRapid: whatever sequence of creates, updates,
// status updates, patches and deletes goes through autoscaling/v1 and v2
// (client-go's typed clients over HTTP), an HPA exists in both versions
// or in neither, at one resourceVersion, and its v1 answer is the
// conversion of its v2 answer.
func TestHPAVersionsShareStorageRapid(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	v1, v2 := cs.AutoscalingV1().HorizontalPodAutoscalers("default"), cs.AutoscalingV2().HorizontalPodAutoscalers("default")
	ctx := context.Background()
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		name := fmt.Sprintf("h%d", n)
		ref := autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}
		for i := range rapid.IntRange(1, 8).Draw(t, "ops") {
			op := rapid.SampledFrom([]string{"createV1", "createV2", "updateV1", "updateV2", "statusV1", "patchV1", "delete"}).Draw(t, fmt.Sprint("op", i))
			var err error
			switch op {
			case "createV1":
				_, err = v1.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: ref, MaxReplicas: rapid.Int32Range(1, 9).Draw(t, "max"), TargetCPUUtilizationPercentage: ptrTo(rapid.Int32Range(1, 99).Draw(t, "cpu")),
				}}, metav1.CreateOptions{})
			case "createV2":
				h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(ref), MaxReplicas: rapid.Int32Range(1, 9).Draw(t, "max"),
				}}
				if rapid.Bool().Draw(t, "pods") {
					h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
						Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(resource.MustParse("10"))},
					}}}
				}
				_, err = v2.Create(ctx, h, metav1.CreateOptions{})
			case "updateV1":
				var cur *autoscalingv1.HorizontalPodAutoscaler
				if cur, err = v1.Get(ctx, name, metav1.GetOptions{}); err == nil {
					cur.Spec.MaxReplicas = rapid.Int32Range(1, 9).Draw(t, "max")
					_, err = v1.Update(ctx, cur, metav1.UpdateOptions{})
				}
			case "updateV2":
				var cur *autoscalingv2.HorizontalPodAutoscaler
				if cur, err = v2.Get(ctx, name, metav1.GetOptions{}); err == nil {
					cur.Spec.Metrics = append(cur.Spec.Metrics, autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
						Metric: autoscalingv2.MetricIdentifier{Name: "queue"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptrTo(resource.MustParse("3"))},
					}})
					_, err = v2.Update(ctx, cur, metav1.UpdateOptions{})
				}
			case "statusV1":
				var cur *autoscalingv1.HorizontalPodAutoscaler
				if cur, err = v1.Get(ctx, name, metav1.GetOptions{}); err == nil {
					cur.Status.CurrentReplicas = rapid.Int32Range(0, 9).Draw(t, "current")
					cur.Status.CurrentCPUUtilizationPercentage = ptrTo(rapid.Int32Range(0, 200).Draw(t, "cpuNow"))
					_, err = v1.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
				}
			case "patchV1":
				_, err = v1.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"spec":{"minReplicas":%d}}`, rapid.Int32Range(1, 3).Draw(t, "min")), metav1.PatchOptions{})
			case "delete":
				err = v2.Delete(ctx, name, metav1.DeleteOptions{})
			}
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) && !apierrors.IsInvalid(err) {
				t.Fatalf("%s: %v", op, err)
			}
			g1, err1 := v1.Get(ctx, name, metav1.GetOptions{})
			g2, err2 := v2.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err1) != apierrors.IsNotFound(err2) {
				t.Fatalf("after %s: GET v1 = %v, GET v2 = %v", op, err1, err2)
			}
			if err1 != nil {
				continue
			}
			if err2 != nil {
				t.Fatalf("after %s: GET v2 = %v", op, err2)
			}
			want, err := conversion.HPAV2ToV1(g2)
			if err != nil {
				t.Fatal(err)
			}
			want.TypeMeta, g1.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
			if !equality.Semantic.DeepEqual(want, g1) {
				t.Fatalf("after %s: v1 answer is not the conversion of v2's (-conversion +v1):\n%s", op, cmp.Diff(want, g1))
			}
		}
	})
}

// TestEventVersionsShareStorage: an events.k8s.io/v1 Event written with
// client-go is the core/v1 Event of the same name, field by field.
func TestEventVersionsShareStorage(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	core, err := cs.CoreV1().Events("default").Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "cm"}, Reason: "R", Message: "m", Count: 2,
		Source: corev1.EventSource{Component: "c"}, Type: corev1.EventTypeNormal}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := cs.EventsV1().Events("default").Get(ctx, "e", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := conversion.EventFromCore(core)
	want.TypeMeta, ev.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("events.k8s.io/v1 Event (-conversion of core +got):\n%s", diff)
	}
}

// TestHPABookmarkNotDefaulted: the initial-events-end bookmark of a
// watch-list through autoscaling/v2 is an empty HPA (its resourceVersion
// and annotation only), not one given the v2 defaults a read of a stored
// HPA gets.
func TestHPABookmarkNotDefaulted(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	w, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Watch(ctx, metav1.ListOptions{
		SendInitialEvents: ptrTo(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := <-w.ResultChan()
	h, ok := ev.Object.(*autoscalingv2.HorizontalPodAutoscaler)
	if ev.Type != "BOOKMARK" || !ok {
		t.Fatalf("first event = %s %T, want the bookmark", ev.Type, ev.Object)
	}
	if h.Spec.MinReplicas != nil || h.Spec.Metrics != nil {
		t.Errorf("bookmark spec = %+v, want empty", h.Spec)
	}
}
