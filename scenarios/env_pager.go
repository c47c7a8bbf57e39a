package scenarios

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// pagedList lists the ConfigMaps of [Namespace] with client-go's pager at
// pageSize, calling between after each page but the last; it returns the
// items' names and the list's RV.
func pagedList(e *Env, pageSize int64, between func(page int) error) ([]string, string, error) {
	page := 0
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		if page > 0 && between != nil {
			if err := between(page); err != nil {
				return nil, err
			}
		}
		page++
		l, err := e.Clientset().CoreV1().ConfigMaps(Namespace).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		return l, nil
	})
	p.PageSize = pageSize
	obj, _, err := p.List(e.Context(), metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	var names []string
	if err := meta.EachListItem(obj, func(o runtime.Object) error {
		m, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		names = append(names, m.GetName())
		return nil
	}); err != nil {
		return nil, "", err
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, "", err
	}
	return names, lm.GetResourceVersion(), nil
}
