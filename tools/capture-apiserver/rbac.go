package main

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/client-go/rest"
)

// bootstrapLabel marks the objects of kube-apiserver's bootstrap RBAC policy
// (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy, created by
// the rbac/bootstrap-roles post-start hook of pkg/registry/rbac/rest).
const bootstrapLabel = "kubernetes.io/bootstrapping=rbac-defaults"

// bootstrapRBAC writes rbac-bootstrap.json.gz: the ClusterRoles,
// ClusterRoleBindings, Roles and RoleBindings of the bootstrap policy, as
// one JSON object of four arrays in the server's list order (by namespace,
// then name), each object with what its create set: no uid,
// resourceVersion, creationTimestamp or managedFields, which a fake server
// assigns when it creates them.
func (c *capturer) bootstrapRBAC(ctx context.Context) error {
	doc := map[string][]json.RawMessage{}
	for _, resource := range []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"} {
		raw, err := c.list(ctx, "/apis/rbac.authorization.k8s.io/v1/"+resource, bootstrapLabel)
		if err != nil {
			return fmt.Errorf("%s: %w", resource, err)
		}
		items, err := bootstrapItems(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", resource, err)
		}
		doc[resource] = items
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return c.write("rbac-bootstrap.json.gz", out)
}

// bootstrapItems reads a list's items without the metadata the server
// assigns, each with its kind and apiVersion (a list's items have none).
func bootstrapItems(raw []byte) ([]json.RawMessage, error) {
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	kind := list.Kind[:len(list.Kind)-len("List")]
	out := make([]json.RawMessage, 0, len(list.Items))
	for _, item := range list.Items {
		item["apiVersion"], item["kind"] = "rbac.authorization.k8s.io/v1", kind
		if md, ok := item["metadata"].(map[string]any); ok {
			for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
				delete(md, f)
			}
		}
		b, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// list fetches a collection path as JSON, selected by a label selector.
func (c *capturer) list(ctx context.Context, path, selector string) ([]byte, error) {
	rc, err := rest.UnversionedRESTClientFor(withNegotiation(c.cfg))
	if err != nil {
		return nil, err
	}
	return rc.Get().AbsPath(path).Param("labelSelector", selector).SetHeader("Accept", "application/json").DoRaw(ctx)
}
