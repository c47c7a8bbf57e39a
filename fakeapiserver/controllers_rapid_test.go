package fakeapiserver

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/dynamic"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"
)

// The in-process controllers (controllers.go) under rapid: random deletes
// of bootstrap objects, FlowSchemas and priority levels coming and going,
// CRDs whose served versions change, and steps of the server's fake clock,
// all in one synctest bubble. After every action, at a quiescent point
// (synctest.Wait: the controller goroutine is blocked on the store and its
// timer), the store must be what the controllers converge to:
//
//   - each FlowSchema's Dangling condition says whether its level exists;
//   - the automanaged=true APIServices are exactly the CRDs' served
//     group-versions;
//   - a deleted bootstrap object is absent until its owner's next tick
//     after the delete (10 s for the Service, a minute for the APF
//     configuration and the namespaces, counted from New) and present from
//     that tick on.

// ctrlBootstrap is a bootstrap object the machine deletes: how to delete
// and get it, and its owner's period.
type ctrlBootstrap struct {
	name   string
	period time.Duration
	del    func(ctx context.Context, b *bubble) error
	get    func(ctx context.Context, b *bubble) error
}

// ctrlBootstraps are the objects the machine deletes; kube-node-lease is
// deleted and finalized, the only way a system namespace goes.
var ctrlBootstraps = []ctrlBootstrap{
	{"service", kubernetesServiceInterval,
		func(ctx context.Context, b *bubble) error {
			return b.cs.CoreV1().Services("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{})
		},
		func(ctx context.Context, b *bubble) error {
			_, err := b.cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			return err
		}},
	{"flowschema", apfConfigInterval,
		func(ctx context.Context, b *bubble) error {
			return b.cs.FlowcontrolV1().FlowSchemas().Delete(ctx, "service-accounts", metav1.DeleteOptions{})
		},
		func(ctx context.Context, b *bubble) error {
			_, err := b.cs.FlowcontrolV1().FlowSchemas().Get(ctx, "service-accounts", metav1.GetOptions{})
			return err
		}},
	{"prioritylevel", apfConfigInterval,
		func(ctx context.Context, b *bubble) error {
			return b.cs.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, "workload-low", metav1.DeleteOptions{})
		},
		func(ctx context.Context, b *bubble) error {
			_, err := b.cs.FlowcontrolV1().PriorityLevelConfigurations().Get(ctx, "workload-low", metav1.GetOptions{})
			return err
		}},
	{"namespace", time.Minute,
		func(ctx context.Context, b *bubble) error {
			nss := b.cs.CoreV1().Namespaces()
			if err := nss.Delete(ctx, "kube-node-lease", metav1.DeleteOptions{}); err != nil {
				return err
			}
			ns, err := nss.Get(ctx, "kube-node-lease", metav1.GetOptions{})
			if err != nil {
				return err
			}
			ns.Spec.Finalizers = nil
			_, err = nss.Finalize(ctx, ns, metav1.UpdateOptions{})
			return err
		},
		func(ctx context.Context, b *bubble) error {
			_, err := b.cs.CoreV1().Namespaces().Get(ctx, "kube-node-lease", metav1.GetOptions{})
			return err
		}},
}

// ctrlLevels are the priority levels the machine's FlowSchemas reference;
// workload-low is a bootstrap one.
var ctrlLevels = []string{"lvl-a", "lvl-b", "workload-low"}

// ctrlMachine is the machine's state: the bubble, its clock and New's
// time on it, and the model: when each deleted bootstrap object is due
// back, and the served versions of each CRD group.
type ctrlMachine struct {
	b       *bubble
	ext     apiextensionsclient.Interface
	dyn     dynamic.Interface
	clk     *clocktesting.FakeClock
	started time.Time
	due     map[string]time.Time
	crds    map[string]sets.Set[string]
	fsN     int
	// What the last action may have changed, so that Check reads only
	// that (each read is an HTTP round trip, slow under -race).
	checkBootstrap, checkDangling, checkAPIServices bool
}

func newCtrlMachine(t testing.TB) *ctrlMachine {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	started := clk.Now()
	b := newBubble(t, WithClock(clk), WithConfig(func(c *Config) { c.Compaction.Interval = -1 }))
	return &ctrlMachine{b: b, ext: apiextensionsclient.NewForConfigOrDie(b.rest), dyn: dynamic.NewForConfigOrDie(b.rest), clk: clk, started: started,
		due: map[string]time.Time{}, crds: map[string]sets.Set[string]{}}
}

func (m *ctrlMachine) DeleteBootstrap(t *rapid.T) {
	o := rapid.SampledFrom(ctrlBootstraps).Draw(t, "object")
	if _, gone := m.due[o.name]; gone {
		t.Skip("already deleted")
	}
	if err := o.del(context.Background(), m.b); err != nil {
		t.Fatalf("delete %s: %v", o.name, err)
	}
	elapsed := m.clk.Now().Sub(m.started)
	m.due[o.name] = m.started.Add((elapsed/o.period + 1) * o.period)
	m.checkBootstrap, m.checkDangling = true, true
}

func (m *ctrlMachine) CreateFlowSchema(t *rapid.T) {
	level := rapid.SampledFrom(ctrlLevels).Draw(t, "level")
	m.fsN++
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fs-%d", m.fsN)},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level}}}
	if _, err := m.b.cs.FlowcontrolV1().FlowSchemas().Create(context.Background(), fs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create FlowSchema: %v", err)
	}
	m.checkDangling = true
}

func (m *ctrlMachine) TogglePriorityLevel(t *rapid.T) {
	name := rapid.SampledFrom(ctrlLevels[:2]).Draw(t, "level")
	pls := m.b.cs.FlowcontrolV1().PriorityLevelConfigurations()
	err := pls.Delete(context.Background(), name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		_, err = pls.Create(context.Background(), &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
				Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}},
			metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("toggle priority level %s: %v", name, err)
	}
	m.checkDangling = true
}

// WriteCRD creates, deletes or re-serves the CRD of a group with versions
// v1 and v2, each drawn served or not (one at least).
func (m *ctrlMachine) WriteCRD(t *rapid.T) {
	// A CRD write builds OpenAPI documents, by far the machine's costliest
	// step: one draw in four makes one.
	if rapid.IntRange(0, 3).Draw(t, "crd turn") != 0 {
		t.Skip("CRD writes are rarer")
	}
	group := rapid.SampledFrom([]string{"a.example.com", "b.example.com"}).Draw(t, "group")
	crds := m.ext.ApiextensionsV1().CustomResourceDefinitions()
	name := "things." + group
	if _, ok := m.crds[group]; ok && rapid.Bool().Draw(t, "delete") {
		if err := crds.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete CRD: %v", err)
		}
		delete(m.crds, group)
		m.checkAPIServices = true
		return
	}
	served := sets.New[string]()
	versions := []apiextensionsv1.CustomResourceDefinitionVersion{}
	for i, v := range []string{"v1", "v2"} {
		on := rapid.Bool().Draw(t, v+" served") || (i == 1 && served.Len() == 0)
		if on {
			served.Insert(v)
		}
		versions = append(versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: on, Storage: i == 0,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}})
	}
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: group, Scope: apiextensionsv1.NamespaceScoped, Versions: versions,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"}}}
	var err error
	if _, ok := m.crds[group]; ok {
		var cur *apiextensionsv1.CustomResourceDefinition
		if cur, err = crds.Get(context.Background(), name, metav1.GetOptions{}); err == nil {
			cur.Spec.Versions = versions
			_, err = crds.Update(context.Background(), cur, metav1.UpdateOptions{})
		}
	} else {
		_, err = crds.Create(context.Background(), crd, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("write CRD %s: %v", name, err)
	}
	m.crds[group] = served
	m.checkAPIServices = true
}

func (m *ctrlMachine) Step(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute}).Draw(t, "step")
	m.clk.Step(d)
	m.checkBootstrap, m.checkDangling = true, true
}

func (m *ctrlMachine) Check(t *rapid.T) {
	synctest.Wait()
	if m.checkBootstrap {
		m.checkRecreated(t)
	}
	if m.checkDangling {
		m.checkDanglingConditions(t)
	}
	if m.checkAPIServices {
		m.checkCRDAPIServices(t)
	}
	m.checkBootstrap, m.checkDangling, m.checkAPIServices = false, false, false
}

// checkRecreated: each deleted bootstrap object is absent before its due
// tick and present from it on; the others are present.
func (m *ctrlMachine) checkRecreated(t *rapid.T) {
	ctx := context.Background()
	now := m.clk.Now()
	for _, o := range ctrlBootstraps {
		due, deleted := m.due[o.name]
		err := o.get(ctx, m.b)
		switch {
		case deleted && now.Before(due) && !apierrors.IsNotFound(err):
			t.Fatalf("%s at %v: %v, want it absent until %v", o.name, now.Sub(m.started), err, due.Sub(m.started))
		case (!deleted || !now.Before(due)) && err != nil:
			t.Fatalf("%s at %v (deleted %v, due %v): %v, want it back", o.name, now.Sub(m.started), deleted, due.Sub(m.started), err)
		case deleted && !now.Before(due):
			delete(m.due, o.name)
		}
	}
}

// checkDanglingConditions: every FlowSchema's condition matches its
// level's existence.
func (m *ctrlMachine) checkDanglingConditions(t *rapid.T) {
	ctx := context.Background()
	pls, err := m.b.cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list priority levels: %v", err)
	}
	levels := sets.New[string]()
	for _, pl := range pls.Items {
		levels.Insert(pl.Name)
	}
	fss, err := m.b.cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list FlowSchemas: %v", err)
	}
	for _, fs := range fss.Items {
		level := fs.Spec.PriorityLevelConfiguration.Name
		want := danglingCondition(level, levels.Has(level), time.Time{})
		got := findDangling(&fs)
		if got == nil || got.Status != want.Status || got.Reason != want.Reason || got.Message != want.Message {
			t.Fatalf("FlowSchema %s (level %s, exists %v) condition = %+v, want %s %s", fs.Name, level, levels.Has(level), got, want.Status, want.Reason)
		}
	}
}

// checkCRDAPIServices: the continuously managed APIServices are the
// CRDs' served group-versions.
func (m *ctrlMachine) checkCRDAPIServices(t *rapid.T) {
	want := sets.New[string]()
	for group, versions := range m.crds {
		for v := range versions {
			want.Insert(apiServiceName(schema.GroupVersion{Group: group, Version: v}))
		}
	}
	list, err := m.dyn.Resource(apiServicesGVR).List(context.Background(), metav1.ListOptions{LabelSelector: automanagedLabel + "=" + automanagedAlways})
	if err != nil {
		t.Fatalf("list APIServices: %v", err)
	}
	got := sets.New[string]()
	for _, svc := range list.Items {
		got.Insert(svc.GetName())
	}
	if !got.Equal(want) {
		t.Fatalf("CRD APIServices = %v, want %v", sets.List(got), sets.List(want))
	}
}

// TestControllersRapid runs the machine; each check is a fresh server.
func TestControllersRapid(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rapid.Check(inBubble{t}, func(rt *rapid.T) {
			m := newCtrlMachine(t)
			defer func() {
				m.b.close(t)
				synctest.Wait()
			}()
			rt.Repeat(rapid.StateMachineActions(m))
		})
	})
}
