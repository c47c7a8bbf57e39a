package store

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// newConfigMap returns a ConfigMap ns/name whose data "v" is val.
func newConfigMap(ns, name string, val int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"v": strconv.Itoa(val)},
	}
}

// objView is the part of a stored ConfigMap the tests compare: cmp cannot
// walk metav1.Time, and nothing else in it matters here.
type objView struct {
	Namespace, Name, RV, V string
}

// view projects obj, a *corev1.ConfigMap or nil.
func view(obj runtime.Object) *objView {
	if obj == nil {
		return nil
	}
	cm := obj.(*corev1.ConfigMap)
	return &objView{Namespace: cm.Namespace, Name: cm.Name, RV: cm.ResourceVersion, V: cm.Data["v"]}
}

// isEven is the List filter of the tests: data "v" is an even number.
func isEven(obj runtime.Object) bool {
	v, _ := strconv.Atoi(obj.(*corev1.ConfigMap).Data["v"])
	return v%2 == 0
}

// eventView is an Event with its objects projected.
type eventView struct {
	Type               string
	Resource, Key      string
	RV                 int64
	Object, PrevObject *objView
}

func viewEvents(evs []Event) []eventView {
	var out []eventView
	for _, ev := range evs {
		out = append(out, eventView{
			Type: string(ev.Type), Resource: ev.Resource, Key: ev.Key, RV: ev.RV,
			Object: view(ev.Object()), PrevObject: view(ev.PrevObject()),
		})
	}
	return out
}

// pageView is a ListResult with its items projected.
type pageView struct {
	Keys      []string
	Items     []*objView
	RV        int64
	More      bool
	Remaining int64
}

func viewPage(res ListResult) pageView {
	p := pageView{Keys: res.Keys, RV: res.RV, More: res.More, Remaining: res.Remaining}
	for _, obj := range res.Items {
		p.Items = append(p.Items, view(obj))
	}
	return p
}

// configMapCodec keeps the tests' ConfigMaps as their protobuf messages
// in slot 1, as fakeapiserver keeps built-in objects.
type configMapCodec struct{}

func (configMapCodec) Slot() int { return 1 }

func (configMapCodec) Encode(obj runtime.Object) ([]byte, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, fmt.Errorf("not a ConfigMap: %T", obj)
	}
	return cm.Marshal()
}

func (configMapCodec) Decode(data []byte) (runtime.Object, error) {
	cm := &corev1.ConfigMap{}
	if err := cm.Unmarshal(data); err != nil {
		return nil, err
	}
	return cm, nil
}

// withCodec is the store option keeping every object in configMapCodec.
func withCodec(string, runtime.Object) Codec { return configMapCodec{} }
