package store_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// A watch is a loop around Changes: send what is new, then wait for the
// channel that came with it. Here the writes happen before the waits, so the
// example needs no goroutine.
func ExampleStore_Changes() {
	s := store.New(store.Options{})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	if _, err := s.Create("configmaps", "ns/a", cm); err != nil {
		panic(err)
	}
	evs, ch, _ := s.Changes("configmaps", 0)
	for _, ev := range evs {
		fmt.Println(ev.Type, ev.Key, ev.RV)
	}
	last := evs[len(evs)-1].RV

	if _, err := s.Delete("configmaps", "ns/a", last); err != nil {
		panic(err)
	}
	<-ch // closed by the delete
	evs, _, _ = s.Changes("configmaps", last)
	for _, ev := range evs {
		fmt.Println(ev.Type, ev.Key, ev.RV, ev.Object().(*corev1.ConfigMap).ResourceVersion)
	}
	// Output:
	// ADDED ns/a 2
	// DELETED ns/a 3 3
}

// Pages continue from the last key plus "\x00", at the RV of the first page,
// which is how kube-apiserver's continue tokens read a consistent snapshot.
func ExampleStore_List() {
	s := store.New(store.Options{})
	for _, name := range []string{"a", "b", "c"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if _, err := s.Create("configmaps", "ns/"+name, cm); err != nil {
			panic(err)
		}
	}
	page, _ := s.List("configmaps", store.ListOptions{Prefix: "ns/", Limit: 2})
	fmt.Println(page.Keys, page.RV, page.More, page.Remaining)

	if _, err := s.Delete("configmaps", "ns/c", 0); err != nil { // after the first page
		panic(err)
	}
	next, _ := s.List("configmaps", store.ListOptions{
		RV: page.RV, Prefix: "ns/", Start: page.Keys[len(page.Keys)-1] + "\x00", Limit: 2,
	})
	fmt.Println(next.Keys, next.RV, next.More)
	// Output:
	// [ns/a ns/b] 4 true 1
	// [ns/c] 4 false
}
