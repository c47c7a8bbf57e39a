package fakeclientset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TestSeedAsClientGoFakeUsersExpect seeds what tests give client-go's
// fake: objects in namespaces nobody created, a resourceVersion, a status,
// a generateName, a list, a cluster-scoped object, a replaced system
// namespace and a terminating object with a finalizer.
func TestSeedAsClientGoFakeUsersExpect(t *testing.T) {
	ctx := context.Background()
	running := newPod("team-a", "running")
	running.ResourceVersion = "42"
	running.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"}
	generated := newPod("team-b", "")
	generated.GenerateName = "gen-"
	terminating := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "going",
		Finalizers: []string{"example.com/hold"}, DeletionTimestamp: &metav1.Time{Time: time.Unix(1, 0)}}}
	list := &corev1.ConfigMapList{Items: []corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-c", Name: "one"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-c", Name: "two"}},
	}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	defaultNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"seeded": "yes"}}}
	cs := fakeclientset.NewClientset(t, running, generated, terminating, list, node, defaultNS)
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("seeding recorded %d actions, want none (client-go's tracker records none)", n)
	}

	got, err := cs.CoreV1().Pods("team-a").Get(ctx, "running", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get(running): %v", err)
	}
	if got.Status.Phase != corev1.PodRunning || got.Status.PodIP != "10.0.0.7" {
		t.Errorf("seeded pod status = %+v, want phase Running and podIP 10.0.0.7", got.Status)
	}
	if got.ResourceVersion == "" || got.ResourceVersion == "42" {
		t.Errorf("seeded pod resourceVersion = %q, want the server's", got.ResourceVersion)
	}
	pods, err := cs.CoreV1().Pods("team-b").List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 || !strings.HasPrefix(pods.Items[0].Name, "gen-") {
		t.Errorf("pods in team-b = %v, %v; want one named gen-*", pods, err)
	}
	cm, err := cs.CoreV1().ConfigMaps("team-a").Get(ctx, "going", metav1.GetOptions{})
	if err != nil || cm.DeletionTimestamp == nil {
		t.Errorf("terminating configmap = %v, %v; want it kept with a deletionTimestamp", cm, err)
	}
	cms, err := cs.CoreV1().ConfigMaps("team-c").List(ctx, metav1.ListOptions{})
	if err != nil || len(cms.Items) != 2 {
		t.Errorf("configmaps in team-c = %v, %v; want the list's two", cms, err)
	}
	if _, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{}); err != nil {
		t.Errorf("Get(node n1): %v", err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	if err != nil || ns.Labels["seeded"] != "yes" {
		t.Errorf("namespace default = %v, %v; want the seeded labels", ns, err)
	}
	var names []string
	nsList, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List(namespaces): %v", err)
	}
	for _, n := range nsList.Items {
		names = append(names, n.Name)
	}
	want := []string{"default", "kube-node-lease", "kube-public", "kube-system", "team-a", "team-b", "team-c"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("namespaces (-want +got):\n%s", diff)
	}
}

// TestSeedInvalidObjectFails: an object a cluster cannot hold fails the
// seed with the server's 422.
func TestSeedInvalidObjectFails(t *testing.T) {
	srv := fakeclientset.NewServer(t, fakeapiserverConfig())
	_, err := srv.Clientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "no-containers"}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("Clientset(pod without containers) error = %v, want Invalid", err)
	}
}

// TestTrackerIsTheServer: Tracker().Add seeds, Tracker().Watch watches
// the server (as client-go's examples/fake-client uses it in a watch
// reactor), and what the clientset writes the tracker reads.
func TestTrackerIsTheServer(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t)
	podsGVR := corev1.SchemeGroupVersion.WithResource("pods")
	w, err := cs.Tracker().Watch(podsGVR, "ns")
	if err != nil {
		t.Fatalf("Tracker().Watch: %v", err)
	}
	defer w.Stop()
	if err := cs.Tracker().Add(newPod("ns", "added")); err != nil {
		t.Fatalf("Tracker().Add: %v", err)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != "added" {
		t.Errorf("event = %s %v, want ADDED pod added", ev.Type, ev.Object)
	}
	if _, err := cs.CoreV1().Pods("ns").Create(ctx, newPod("ns", "created"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	obj, err := cs.Tracker().Get(podsGVR, "ns", "created")
	if err != nil || obj.(*corev1.Pod).UID == "" {
		t.Errorf("Tracker().Get(created) = %v, %v; want the server's pod", obj, err)
	}
	if err := cs.Tracker().Delete(podsGVR, "ns", "nope"); !apierrors.IsNotFound(err) {
		t.Errorf("Tracker().Delete(missing) = %v, want NotFound", err)
	}
}
