package fakeapiserver

import (
	"net/url"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// TestKubernetesServiceTargetsListener: the Service default/kubernetes
// targets the port the server listens on (Start's random port), and has
// no Endpoints or EndpointSlice, as on a server without an endpoint
// reconciler.
func TestKubernetesServiceTargetsListener(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	ctx := t.Context()
	svc, err := cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get(default/kubernetes) = %v", err)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.IntValue() != port || svc.Spec.ClusterIP != "10.0.0.1" {
		t.Errorf("Service default/kubernetes = ports %v clusterIP %s, want 443 → %d at 10.0.0.1", svc.Spec.Ports, svc.Spec.ClusterIP, port)
	}
	if _, err := cs.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get(endpoints default/kubernetes) = %v, want NotFound", err)
	}
}

// TestNewLeavesStoreQuiet: everything the server writes at start is
// written before New (and Serve) return; nothing follows on its own, so a
// test may take the current resourceVersion right after Start. (The
// compactor's ticks are writes of their own, as kube-apiserver's are
// (TestCompactionExpiresContinueWhenIdle): this test turns it off to see
// the controllers alone.)
func TestNewLeavesStoreQuiet(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithConfig(func(c *Config) { c.Compaction.Interval = -1 }))
		rv := b.srv.store.CurrentRV()
		synctest.Wait()
		time.Sleep(time.Hour) // every periodic controller's tick, in virtual time
		synctest.Wait()
		if got := b.srv.store.CurrentRV(); got != rv {
			t.Errorf("resourceVersion moved from %d to %d with no client write", rv, got)
		}
	})
}

// TestFlowSchemaDanglingWatch is the e2e-style check of the APF config
// controller: a FlowSchema referencing a missing priority level is, soon
// after its create, Dangling (True, NotFound), which a watch sees; once
// the level exists it is False (Found).
func TestFlowSchemaDanglingWatch(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	fss := srv.Clientset().FlowcontrolV1().FlowSchemas()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	fs, err := fss.Create(ctx, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "dangling"},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "missing"}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	w, err := fss.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=dangling", ResourceVersion: fs.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	waitCondition := func(status flowcontrolv1.ConditionStatus, reason string) {
		t.Helper()
		for {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch ended before Dangling=%s", status)
				}
				if got, ok := ev.Object.(*flowcontrolv1.FlowSchema); ok && ev.Type == watch.Modified {
					if c := findDangling(got); c != nil && c.Status == status && c.Reason == reason {
						return
					}
				}
			case <-ctx.Done():
				t.Fatalf("no Dangling=%s %s within 30 s", status, reason)
			}
		}
	}
	waitCondition(flowcontrolv1.ConditionTrue, "NotFound")
	if _, err := srv.Clientset().FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "missing"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(priority level): %v", err)
	}
	waitCondition(flowcontrolv1.ConditionFalse, "Found")
}

// TestAggregatedDiscoveryAPIRegistration is what the Kubernetes e2e
// [Conformance] specs "should support aggregated discovery interface"
// check: client-go's aggregated discovery lists apiregistration.k8s.io/v1
// apiservices among the built-in resources, the group first after core.
func TestAggregatedDiscoveryAPIRegistration(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	dc, err := discovery.NewDiscoveryClientForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	groups, byGV, _, err := dc.GroupsAndMaybeResources()
	if err != nil {
		t.Fatalf("GroupsAndMaybeResources() = %v", err)
	}
	gv := schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}
	found := false
	for _, r := range byGV[gv].APIResources {
		found = found || r.Name == "apiservices"
	}
	// The core group leads, then the aggregator's own.
	if !found || len(groups.Groups) < 2 || groups.Groups[1].Name != gv.Group {
		t.Errorf("aggregated discovery: apiservices listed %v, groups %v; want apiservices, apiregistration.k8s.io after core", found, groups.Groups)
	}
}
