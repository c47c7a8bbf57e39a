package fakeapiserver

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
)

// pagedCMs lists every ConfigMap with client-go's ListPager (page size
// pageSize), calling between after each page the pager receives. It
// returns the merged items, the list RV and the pager's page requests.
func pagedCMs(t *testing.T, cs kubernetes.Interface, pageSize int64, between func(page int)) ([]cmView, string, []metav1.ListOptions) {
	t.Helper()
	var requests []metav1.ListOptions
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		requests = append(requests, opts)
		list, err := cs.CoreV1().ConfigMaps("").List(ctx, opts)
		if err == nil {
			between(len(requests))
		}
		return list, err
	})
	p.PageSize = pageSize
	obj, _, err := p.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("ListPager.List = %v", err)
	}
	switch l := obj.(type) {
	case *corev1.ConfigMapList:
		return viewCMs(l.Items), l.ResourceVersion, requests
	case *metainternalversion.List:
		var items []corev1.ConfigMap
		for _, o := range l.Items {
			items = append(items, *o.(*corev1.ConfigMap))
		}
		return viewCMs(items), l.ResourceVersion, requests
	}
	t.Fatalf("ListPager.List returned %T", obj)
	return nil, "", nil
}

// seedCMs creates n ConfigMaps spread over namespaces p0 … p2.
func seedCMs(t *testing.T, cs kubernetes.Interface, n int) {
	t.Helper()
	for i := range 3 {
		ensureNamespace(t, cs, fmt.Sprintf("p%d", i))
	}
	for i := range n {
		createCM(t, cs, newCM(fmt.Sprintf("p%d", i%3), fmt.Sprintf("cm-%03d", i), i, nil))
	}
}

// churn creates, updates and deletes ConfigMaps so that every page of a
// list in progress would differ if it were read at the latest RV.
func churn(t *testing.T, cs kubernetes.Interface, round int) {
	t.Helper()
	ctx := t.Context()
	createCM(t, cs, newCM("p0", fmt.Sprintf("new-%d", round), round, nil))
	createCM(t, cs, newCM("p2", fmt.Sprintf("cm-%03d-x", round), round, nil))
	victim := fmt.Sprintf("cm-%03d", 3*round+2)
	if err := cs.CoreV1().ConfigMaps("p2").Delete(ctx, victim, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete %s = %v", victim, err)
	}
	cm := newCM("p1", fmt.Sprintf("cm-%03d", 3*round+1), 1000+round, nil)
	if _, err := cs.CoreV1().ConfigMaps("p1").Update(ctx, cm, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("update %s = %v", cm.Name, err)
	}
}

// exactList reads every ConfigMap at rv in one Exact LIST.
func exactList(t *testing.T, cs kubernetes.Interface, rv string) []cmView {
	t.Helper()
	l, err := cs.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatalf("LIST rv=%s Exact = %v", rv, err)
	}
	if l.ResourceVersion != rv {
		t.Fatalf("LIST rv=%s Exact returned rv %s", rv, l.ResourceVersion)
	}
	return viewCMs(l.Items)
}

// TestPagerSeesFirstPageState walks a paged list with client-go's pager
// while writes land between pages: the merged result is exactly the state
// at the first page's RV, which an Exact LIST at that RV also returns.
func TestPagerSeesFirstPageState(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	seedCMs(t, cs, 40)
	got, rv, requests := pagedCMs(t, cs, 7, func(page int) { churn(t, cs, page) })
	if len(requests) < 6 {
		t.Fatalf("pager made %d requests, want at least 6 pages", len(requests))
	}
	if len(got) != 40 {
		t.Errorf("pager returned %d items, want the 40 present at the first page", len(got))
	}
	if diff := cmp.Diff(exactList(t, cs, rv), got); diff != "" {
		t.Errorf("paged list at rv %s differs from the Exact list at that rv (-want +got):\n%s", rv, diff)
	}
	latest, err := cs.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(viewCMs(latest.Items), got) {
		t.Error("the latest state equals the paged result; the churn between pages did not change anything")
	}
}

// TestPagerFallsBackToFullList compacts past the list's RV between pages:
// the next page gets the 410, and client-go's pager (FullListIfExpired)
// lists everything again in one unpaged request at the latest state.
func TestPagerFallsBackToFullList(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	seedCMs(t, cs, 20)
	got, rv, requests := pagedCMs(t, cs, 5, func(page int) {
		if page != 1 {
			return
		}
		churn(t, cs, page)
		if err := srv.Compact(srv.store.CurrentRV()); err != nil {
			t.Fatal(err)
		}
	})
	// page 1, page 2 (410), then the full list.
	if len(requests) != 3 {
		t.Fatalf("pager made %d requests %+v, want 3", len(requests), requests)
	}
	if full := requests[2]; full.Limit != 0 || full.Continue != "" || full.ResourceVersion != "" {
		t.Errorf("fall-back request = %+v, want no limit, no continue, RV unset", full)
	}
	if want := strconv.FormatInt(srv.store.CurrentRV(), 10); rv != want {
		t.Errorf("fall-back list rv = %s, want the latest %s", rv, want)
	}
	if diff := cmp.Diff(exactList(t, cs, rv), got); diff != "" {
		t.Errorf("fall-back list differs from the latest state (-want +got):\n%s", diff)
	}
}
