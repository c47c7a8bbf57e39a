package fakeapiserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"
)

// TestCreateManagedFieldsShortcut holds the create shortcut
// (managedfields_create.go) against the field manager: every random
// object is created twice, once plainly (the shortcut records its
// managedFields) and once carrying managedFields [{}], the reset form,
// which the shortcut declines and the field manager records from the
// same empty start. Both creates must answer alike and record the same
// entries (none for an object with nothing but its name).
func TestCreateManagedFieldsShortcut(t *testing.T) {
	t.Parallel()
	checkCreateShortcut(t, creators)
}

// TestCreateManagedFieldsShapeMemo holds the shortcut's memo of fields per
// object shape (managedfields_create_shape.go) against the field manager,
// as TestCreateManagedFieldsShortcut does, on objects with few shapes and
// many values: names, scalars zero or not, set members and list keys vary
// over small sets, so most creates reuse the fields of an earlier object of
// the same shape, and one whose fields differ from it (another container
// name, finalizer or a zero value) must not.
func TestCreateManagedFieldsShapeMemo(t *testing.T) {
	t.Parallel()
	checkCreateShortcut(t, map[string]func(*rapid.T) creator{
		"Pod":           drawNarrowPod,
		"PriorityClass": drawNarrowPriorityClass,
	})
}

// checkCreateShortcut is the property of the shortcut tests over the
// objects kinds draws.
func checkCreateShortcut(t *testing.T, kinds map[string]func(*rapid.T) creator) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	cs := Start(t, WithClock(clk)).Clientset()
	names := slices.Sorted(maps.Keys(kinds))
	n, recorded := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		kind := rapid.SampledFrom(names).Draw(rt, "kind")
		create := kinds[kind](rt)
		plain, plainErr := create(t.Context(), cs, fmt.Sprintf("plain-%d", n), nil)
		reset, resetErr := create(t.Context(), cs, fmt.Sprintf("reset-%d", n), []metav1.ManagedFieldsEntry{{}})
		if apierrors.ReasonForError(plainErr) != apierrors.ReasonForError(resetErr) || (plainErr == nil) != (resetErr == nil) {
			rt.Fatalf("create %s: plain %v, through the field manager %v", kind, plainErr, resetErr)
		}
		if plainErr != nil {
			return
		}
		if diff := cmp.Diff(reset, plain); diff != "" {
			rt.Fatalf("%s managedFields: shortcut differs from the field manager (-manager +shortcut):\n%s", kind, diff)
		}
		if len(plain) > 0 {
			recorded++
		}
	})
	if recorded == 0 {
		t.Errorf("no create recorded managedFields: the comparison compared nothing")
	}
}

// creator creates a drawn object under a name with the given
// managedFields and returns the managedFields the server recorded.
type creator func(ctx context.Context, cs kubernetes.Interface, name string, mf []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, error)

// createFunc is a typed client's Create.
type createFunc[T any] func(context.Context, T, metav1.CreateOptions) (T, error)

// creatorOf is the creator that creates a copy of obj, with the name and
// managedFields given, through the Create that client picks.
func creatorOf[T interface {
	runtime.Object
	metav1.Object
}](obj T, client func(kubernetes.Interface) createFunc[T]) creator {
	return func(ctx context.Context, cs kubernetes.Interface, name string, mf []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, error) {
		c := obj.DeepCopyObject().(T)
		c.SetName(name)
		c.SetManagedFields(mf)
		got, err := client(cs)(ctx, c, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return got.GetManagedFields(), nil
	}
}

// creators draw an object of each kind: few keys and values, so lists
// with keys collide (duplicate container names and ports) and optional
// fields come and go.
var creators = map[string]func(*rapid.T) creator{
	"Pod":                drawPod,
	"ConfigMap":          drawConfigMap,
	"Deployment":         drawDeployment,
	"ClusterRoleBinding": drawBinding,
	"PriorityClass":      drawPriorityClass,
}

// drawStrings draws a map of some of keys to values.
func drawStrings(t *rapid.T, label string, keys ...string) map[string]string {
	var m map[string]string
	for _, k := range keys {
		if rapid.Bool().Draw(t, label+" has "+k) {
			if m == nil {
				m = map[string]string{}
			}
			m[k] = rapid.SampledFrom([]string{"", "x", "y"}).Draw(t, label+" "+k)
		}
	}
	return m
}

func drawMeta(t *rapid.T) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Labels:      drawStrings(t, "labels", "app", "tier"),
		Annotations: drawStrings(t, "annotations", "note"),
		Finalizers:  rapid.SliceOfN(rapid.SampledFrom([]string{"example.com/a", "example.com/b"}), 0, 2).Draw(t, "finalizers"),
	}
}

func drawPodSpec(t *rapid.T) corev1.PodSpec {
	var spec corev1.PodSpec
	for i := range rapid.IntRange(1, 2).Draw(t, "containers") {
		c := corev1.Container{
			Name:  rapid.SampledFrom([]string{"main", "side"}).Draw(t, fmt.Sprint("container name ", i)),
			Image: rapid.SampledFrom([]string{"pause", "", "busybox"}).Draw(t, fmt.Sprint("image ", i)),
		}
		for j := range rapid.IntRange(0, 2).Draw(t, fmt.Sprint("ports ", i)) {
			c.Ports = append(c.Ports, corev1.ContainerPort{
				ContainerPort: rapid.SampledFrom([]int32{80, 443}).Draw(t, fmt.Sprint("port ", i, j)),
				Protocol:      rapid.SampledFrom([]corev1.Protocol{"", corev1.ProtocolUDP}).Draw(t, fmt.Sprint("protocol ", i, j)),
			})
		}
		if rapid.Bool().Draw(t, fmt.Sprint("env ", i)) {
			c.Env = []corev1.EnvVar{{Name: "A", Value: rapid.SampledFrom([]string{"", "1"}).Draw(t, fmt.Sprint("env value ", i))}}
		}
		spec.Containers = append(spec.Containers, c)
	}
	spec.NodeName = rapid.SampledFrom([]string{"", "node-1", "node-2"}).Draw(t, "nodeName")
	if rapid.Bool().Draw(t, "activeDeadlineSeconds") {
		spec.ActiveDeadlineSeconds = new(int64(30))
	}
	return spec
}

func drawPod(t *rapid.T) creator {
	pod := &corev1.Pod{ObjectMeta: drawMeta(t), Spec: drawPodSpec(t)}
	if rapid.Bool().Draw(t, "status") {
		pod.Status.Phase = corev1.PodRunning
	}
	return creatorOf(pod, func(cs kubernetes.Interface) createFunc[*corev1.Pod] { return cs.CoreV1().Pods("default").Create })
}

func drawConfigMap(t *rapid.T) creator {
	cm := &corev1.ConfigMap{ObjectMeta: drawMeta(t), Data: drawStrings(t, "data", "a", "b")}
	if rapid.Bool().Draw(t, "binaryData") {
		cm.BinaryData = map[string][]byte{"bin": {1, 2}}
	}
	return creatorOf(cm, func(cs kubernetes.Interface) createFunc[*corev1.ConfigMap] {
		return cs.CoreV1().ConfigMaps("default").Create
	})
}

func drawDeployment(t *rapid.T) creator {
	labels := map[string]string{"app": "x"}
	d := &appsv1.Deployment{
		ObjectMeta: drawMeta(t),
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: drawPodSpec(t)},
		},
	}
	if rapid.Bool().Draw(t, "replicas") {
		d.Spec.Replicas = new(int32(2))
	}
	if rapid.Bool().Draw(t, "maxSurge") {
		surge := intstr.FromString("50%")
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge}}
	}
	d.Status.Replicas = rapid.SampledFrom([]int32{0, 3}).Draw(t, "status replicas") // reset by the main endpoint
	return creatorOf(d, func(cs kubernetes.Interface) createFunc[*appsv1.Deployment] {
		return cs.AppsV1().Deployments("default").Create
	})
}

func drawBinding(t *rapid.T) creator {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: drawMeta(t),
		// roleRef is a struct without omitempty: the empty object has it,
		// so only the values that differ from it are recorded.
		RoleRef: rbacv1.RoleRef{
			APIGroup: rapid.SampledFrom([]string{"", rbacv1.GroupName}).Draw(t, "roleRef apiGroup"),
			Kind:     "ClusterRole",
			Name:     rapid.SampledFrom([]string{"", "view"}).Draw(t, "roleRef name"),
		},
	}
	if rapid.Bool().Draw(t, "subjects") {
		b.Subjects = []rbacv1.Subject{{Kind: "User", Name: "alice", APIGroup: rbacv1.GroupName}}
	}
	return creatorOf(b, func(cs kubernetes.Interface) createFunc[*rbacv1.ClusterRoleBinding] {
		return cs.RbacV1().ClusterRoleBindings().Create
	})
}

// BenchmarkCreateManagedFields is the managedFields work of one pod create
// (the cmd/lw-sim/internal/bench pod): through the field manager, and through the
// create shortcut that records the same entry.
func BenchmarkCreateManagedFields(b *testing.B) {
	srv, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	res, _ := srv.resources.lookup(corev1.SchemeGroupVersion.WithResource("pods"))
	fm, err := res.managers()
	if err != nil {
		b.Fatal(err)
	}
	pod := func() *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pod-000001", Labels: map[string]string{"app": "app-1", "tier": "bench"}},
			Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}},
		}
		p.SetGroupVersionKind(res.Kind)
		res.applyDefaults(p)
		return p
	}
	b.Run("fieldmanager", func(b *testing.B) {
		for b.Loop() {
			srv.track(fm.main, "bench", res.newObject(), pod())
		}
	})
	b.Run("shortcut", func(b *testing.B) {
		for b.Loop() {
			if !fm.create.track(pod(), "bench", time.Time{}) {
				b.Fatal("shortcut declined")
			}
		}
	})
}

// drawPriorityClass draws a PriorityClass, whose value has no omitempty:
// the empty object has value 0, so a create records it only when it is
// not 0 (a zero scalar is part of a create's shape, a non-zero one is not).
func drawPriorityClass(t *rapid.T) creator {
	pc := &schedulingv1.PriorityClass{
		ObjectMeta:  drawMeta(t),
		Value:       rapid.SampledFrom([]int32{0, 1000, 2000}).Draw(t, "value"),
		Description: rapid.SampledFrom([]string{"", "low", "high"}).Draw(t, "description"),
	}
	return creatorOf(pc, func(cs kubernetes.Interface) createFunc[*schedulingv1.PriorityClass] {
		return cs.SchedulingV1().PriorityClasses().Create
	})
}

// drawNarrowPod draws a pod of few shapes: only its finalizers, container
// names and images, and node name vary.
func drawNarrowPod(t *rapid.T) creator {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Finalizers: rapid.SliceOfN(rapid.SampledFrom([]string{"example.com/a", "example.com/b"}), 0, 1).Draw(t, "finalizers"),
	}}
	for i := range rapid.IntRange(1, 2).Draw(t, "containers") {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
			Name:  rapid.SampledFrom([]string{"main", "side"}).Draw(t, fmt.Sprint("container name ", i)),
			Image: rapid.SampledFrom([]string{"pause", "busybox"}).Draw(t, fmt.Sprint("image ", i)),
		})
	}
	pod.Spec.NodeName = rapid.SampledFrom([]string{"node-1", "node-2"}).Draw(t, "nodeName")
	return creatorOf(pod, func(cs kubernetes.Interface) createFunc[*corev1.Pod] { return cs.CoreV1().Pods("default").Create })
}

// drawNarrowPriorityClass draws a PriorityClass of few shapes: its value
// (zero or not) and its finalizers vary.
func drawNarrowPriorityClass(t *rapid.T) creator {
	pc := &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{
			Finalizers: rapid.SliceOfN(rapid.SampledFrom([]string{"example.com/a", "example.com/b"}), 0, 1).Draw(t, "finalizers"),
		},
		Value: rapid.SampledFrom([]int32{0, 1000, 2000}).Draw(t, "value"),
	}
	return creatorOf(pc, func(cs kubernetes.Interface) createFunc[*schedulingv1.PriorityClass] {
		return cs.SchedulingV1().PriorityClasses().Create
	})
}
