package fakeapiserver

import (
	"fmt"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkListHPAVersions lists 500 HPAs written through autoscaling/v2
// through each served version with client-go: v2 reads decode the stored
// objects with their defaults (a copy each, memoised per object), v1 reads
// convert them, so the two show what conversion on read costs over the
// storage version's own view.
func BenchmarkListHPAVersions(b *testing.B) {
	srv := Start(b)
	cs := srv.Clientset()
	const n = 500
	for i := range n {
		_, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(b.Context(), &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("h%d", i)},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 3,
				Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("v2", func(b *testing.B) {
		for b.Loop() {
			l, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").List(b.Context(), metav1.ListOptions{})
			if err != nil || len(l.Items) != n {
				b.Fatalf("LIST v2 = %d items, %v", len(l.Items), err)
			}
		}
	})
	b.Run("v1", func(b *testing.B) {
		for b.Loop() {
			l, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").List(b.Context(), metav1.ListOptions{})
			if err != nil || len(l.Items) != n {
				b.Fatalf("LIST v1 = %d items, %v", len(l.Items), err)
			}
		}
	})
}
