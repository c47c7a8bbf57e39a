package crfake

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// Client is controller-runtime's client on an lw-sim server, with the
// builder's field indexes and its managedFields rule in front of it (an
// interceptor.NewClient of its own). Every method is controller-runtime's
// real request to the server, with the server's errors.
type Client struct {
	client.WithWatch

	srv                 *fakeclientset.Server
	indexes             indexes
	returnManagedFields bool
}

var _ client.WithWatch = (*Client)(nil)

// newClient wraps inner, whose requests go to srv.
func newClient(inner client.WithWatch, srv *fakeclientset.Server, idx indexes, returnManagedFields bool) *Client {
	c := &Client{srv: srv, indexes: idx, returnManagedFields: returnManagedFields}
	c.WithWatch = interceptor.NewClient(inner, interceptor.Funcs{
		Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return c.strip(obj, cl.Get(ctx, key, obj, opts...))
		},
		List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return c.strip(list, c.list(ctx, cl, list, opts...))
		},
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return c.strip(obj, cl.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return c.strip(obj, cl.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return c.strip(obj, cl.Patch(ctx, obj, patch, opts...))
		},
		SubResourceGet: func(ctx context.Context, cl client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceGetOption) error {
			return c.strip(subObj, cl.SubResource(sub).Get(ctx, obj, subObj, opts...))
		},
		SubResourceCreate: func(ctx context.Context, cl client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return c.strip(subObj, cl.SubResource(sub).Create(ctx, obj, subObj, opts...))
		},
		SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return c.strip(obj, cl.SubResource(sub).Update(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return c.strip(obj, cl.SubResource(sub).Patch(ctx, obj, patch, opts...))
		},
	})
	return c
}

// Server is the lw-sim server the client's requests go to: faults,
// compaction and watch statistics are reached through it.
func (c *Client) Server() *fakeclientset.Server { return c.srv }

// strip clears managedFields from obj (each item of a list) unless the
// builder asked for them, as controller-runtime's fake returns objects
// (client.go: returnManagedFields); err passes through.
func (c *Client) strip(obj runtime.Object, err error) error {
	if c.returnManagedFields || err != nil || obj == nil {
		return err
	}
	if meta.IsListType(obj) {
		return meta.EachListItem(obj, func(item runtime.Object) error {
			if m, aerr := meta.Accessor(item); aerr == nil {
				m.SetManagedFields(nil)
			}
			return nil
		})
	}
	if m, aerr := meta.Accessor(obj); aerr == nil {
		m.SetManagedFields(nil)
	}
	return nil
}

// AddIndex adds a field index to a client Build returned, or to a client
// wrapping one (the interceptor of WithInterceptorFuncs), as
// controller-runtime's fake.AddIndex does: see [ClientBuilder.WithIndex].
// It errors if field is indexed already for obj's kind and panics if c is
// not such a client.
func AddIndex(c client.Client, obj runtime.Object, field string, extractValue client.IndexerFunc) error {
	lc, ok := unwrap(c)
	if !ok {
		panic("AddIndex can only be used with a client crfake built")
	}
	gvk, err := lc.GroupVersionKindFor(obj)
	if err != nil {
		return err
	}
	return lc.indexes.add(gvk, field, extractValue)
}

// ServerOf is the lw-sim server of a client Build returned (or of a client
// wrapping one), nil for another client.
func ServerOf(c client.Client) *fakeclientset.Server {
	if lc, ok := unwrap(c); ok {
		return lc.srv
	}
	return nil
}

// unwrap finds the *Client under c, unwrapping interceptors as
// controller-runtime's fake does (client.go: unwrapFakeClient).
func unwrap(c client.Client) (*Client, bool) {
	for {
		if lc, ok := c.(*Client); ok {
			return lc, true
		}
		u, ok := c.(interface{ Unwrap() client.WithWatch })
		if !ok {
			return nil, false
		}
		c = u.Unwrap()
	}
}
