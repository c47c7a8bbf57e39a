package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// createNamespace creates the namespace name.
func createNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// createPods creates pods first..first+n-1 of ns (Pod) with the given
// number of concurrent workers, through the protobuf clientset, and returns
// how long that took. The pods carry the managedFields their create
// records, as on a real cluster, so both servers list the same bytes.
func createPods(ctx context.Context, cs kubernetes.Interface, ns string, first, n, workers int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for i := first + w; i < first+n; i += workers {
				if _, err := cs.CoreV1().Pods(ns).Create(ctx, Pod(ns, i), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create pod %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return elapsed, nil
}

// Pod is the i-th benchmark pod of ns: a small scheduled pod, about 1 KiB
// as JSON once the server added its managedFields.
func Pod(ns string, i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns,
			Name:      fmt.Sprintf("pod-%06d", i),
			Labels:    map[string]string{"app": fmt.Sprintf("app-%d", i%50), "tier": "bench"},
		},
		Spec: corev1.PodSpec{
			NodeName:   fmt.Sprintf("node-%d", i%100),
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}
