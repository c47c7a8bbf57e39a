package fakeclientset_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

var errPlain = errors.New("plain reactor error")

// TestReactorErrorsReachCaller: an error a prepended reactor returns is
// what the caller sees, an *apierrors.StatusError or a plain error alike,
// and the object the reactor returns with it too, as with client-go's fake.
func TestReactorErrorsReachCaller(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("try again"))
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"apierror", conflict},
		{"plain", errPlain},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ours := fakeclientset.NewClientset(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
			theirs := fake.NewClientset()
			for _, cs := range []clienttesting.FakeClient{ours, theirs} {
				cs.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, tt.err
				})
			}
			_, gotErr := ours.CoreV1().Pods("ns").Create(context.Background(), newPod("ns", "p"), metav1.CreateOptions{})
			_, wantErr := theirs.CoreV1().Pods("ns").Create(context.Background(), newPod("ns", "p"), metav1.CreateOptions{})
			if gotErr != tt.err || wantErr != tt.err { //nolint:errorlint // the same value must come through
				t.Errorf("Create error = %v (client-go's fake: %v), want %v", gotErr, wantErr, tt.err)
			}
			if _, err := ours.CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("Get after a create the reactor failed = %v, want NotFound from the server", err)
			}
		})
	}
}

// TestReactorOrder: prepended reactors see a request before the server;
// one that does not handle it passes it on; reactors added after the
// server's never see what the server answers (as behind client-go's
// tracker), but do see what it does not (GetLogs' generic action).
func TestReactorOrder(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t, newPod("ns", "real"))
	var seen []string
	cs.PrependReactor("get", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		get, ok := a.(clienttesting.GetAction)
		if !ok { // GetLogs
			return false, nil, nil
		}
		seen = append(seen, "prepended "+get.GetName())
		if get.GetName() == "canned" {
			return true, newPod("ns", "canned"), nil
		}
		return false, nil, nil
	})
	cs.AddReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		seen = append(seen, "appended "+a.GetVerb()+" "+a.GetSubresource())
		return false, nil, nil
	})
	if p, err := cs.CoreV1().Pods("ns").Get(ctx, "canned", metav1.GetOptions{}); err != nil || p.Name != "canned" {
		t.Errorf("Get(canned) = %v, %v; want the reactor's pod", p, err)
	}
	p, err := cs.CoreV1().Pods("ns").Get(ctx, "real", metav1.GetOptions{})
	if err != nil || p.UID == "" || p.ResourceVersion == "" {
		t.Errorf("Get(real) = %v, %v; want the server's pod (uid and resourceVersion set)", p, err)
	}
	if _, err := cs.CoreV1().Pods("ns").GetLogs("real", &corev1.PodLogOptions{}).DoRaw(ctx); err != nil {
		t.Errorf("GetLogs: %v", err)
	}
	want := []string{"prepended canned", "prepended real", "appended get log"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("reactors saw (-want +got):\n%s", diff)
	}
}

// TestWatchReactors: a prepended watch reactor answers instead of the
// server; an error it returns is the caller's; without one, the server's
// watch answers, and a server error (a bad selector) is handled, not
// client-go's "unhandled watch".
func TestWatchReactors(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t)
	fw := watch.NewFake()
	cs.PrependWatchReactor("configmaps", func(clienttesting.Action) (bool, watch.Interface, error) {
		return true, fw, nil
	})
	cs.PrependWatchReactor("secrets", func(clienttesting.Action) (bool, watch.Interface, error) {
		return true, nil, errPlain
	})
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil || w != fw {
		t.Errorf("Watch(configmaps) = %v, %v; want the reactor's watcher", w, err)
	}
	if _, err := cs.CoreV1().Secrets("default").Watch(ctx, metav1.ListOptions{}); err != errPlain { //nolint:errorlint // the same value
		t.Errorf("Watch(secrets) error = %v, want %v", err, errPlain)
	}
	_, err = cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "spec.noSuchField=x"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("Watch(bad field selector) error = %v, want the server's 400 BadRequest", err)
	}
	pw, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch(pods): %v", err)
	}
	defer pw.Stop()
	if _, err := cs.CoreV1().Pods("default").Create(ctx, newPod("default", "w"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if ev := nextEvent(t, pw); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != "w" {
		t.Errorf("event = %s %v, want ADDED pod w", ev.Type, ev.Object)
	}
}

// TestProxyReactors: a prepended proxy reactor answers ProxyGet; without
// one the request goes to the server, which answers as a cluster does for
// a pod that is not there.
func TestProxyReactors(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t)
	_, err := cs.CoreV1().Pods("default").ProxyGet("http", "nopod", "80", "/healthz", nil).DoRaw(ctx)
	if !apierrors.IsNotFound(err) {
		t.Errorf("ProxyGet(missing pod) error = %v, want NotFound", err)
	}
	cs.PrependProxyReactor("pods", func(clienttesting.Action) (bool, rest.ResponseWrapper, error) {
		return true, cannedResponse("ok"), nil
	})
	body, err := cs.CoreV1().Pods("default").ProxyGet("http", "nopod", "80", "/healthz", nil).DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		t.Errorf("ProxyGet with a reactor = %q, %v; want %q", body, err, "ok")
	}
}
