package bench

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// scaleCustom measures the custom-resource rows of a scale run in ns: a
// CRD whose spec schema has opts.CRDProperties string properties, its
// create request and from its create to Established (which a real server
// reports later than it answers the create); another whose spec nests
// opts.CRDDepth object schemas (unless CRDDepth is negative), likewise,
// deleted once Established; opts.CustomObjects namespaced custom objects
// of it, labelled as the ConfigMaps are, listed in JSON (the first page
// once right after the creates, the first read of every object on it;
// then, the best of opts.Rounds each, the first page, a label-selector
// page, the unpaged LIST; RSS per object); and the fan-out
// of opts.Writes creates to the smallest of opts.Watchers watches of
// them. The CRD is named after ns (its group is ns's), so runs against
// one server do not collide; it is deleted at the end, best effort.
func scaleCustom(ctx context.Context, c *clients, t Target, ns string, opts ScaleOptions) ([]Measurement, error) {
	dyn, err := dynamic.NewForConfigAndClient(c.cfg, c.http)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	group := ns + ".lwsim.example.com"
	crd := scaleCRD(group, "scaleobjects", "ScaleObject", flatSchema(opts.CRDProperties))
	crds := dyn.Resource(crdGVR)
	start := time.Now()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create CRD: %w", err)
	}
	created := time.Since(start)
	defer func() { _ = crds.Delete(context.WithoutCancel(ctx), crd.GetName(), metav1.DeleteOptions{}) }()
	if err := waitEstablished(ctx, crds, crd.GetName()); err != nil {
		return nil, err
	}
	label := fmt.Sprintf("CRD of %d schema properties: ", opts.CRDProperties)
	m := []Measurement{
		{Workload: label + "create (ms)", Value: ms(created)},
		{Workload: label + "create to Established (ms)", Value: ms(time.Since(start))},
	}
	if opts.CRDDepth > 0 {
		deep := scaleCRD(group, "deepobjects", "DeepObject", deepSchema(opts.CRDDepth))
		start := time.Now()
		if _, err := crds.Create(ctx, deep, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create CRD of depth %d: %w", opts.CRDDepth, err)
		}
		created := time.Since(start)
		err := waitEstablished(ctx, crds, deep.GetName())
		established := time.Since(start)
		if derr := crds.Delete(ctx, deep.GetName(), metav1.DeleteOptions{}); err == nil && derr != nil {
			err = fmt.Errorf("delete CRD of depth %d: %w", opts.CRDDepth, derr)
		}
		if err != nil {
			return nil, err
		}
		label := fmt.Sprintf("CRD of schema depth %d: ", opts.CRDDepth)
		m = append(m, Measurement{Workload: label + "create (ms)", Value: ms(created)},
			Measurement{Workload: label + "create to Established (ms)", Value: ms(established)})
	}

	objects := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "scaleobjects"}).Namespace(ns)
	before := t.rss()
	if err := createCustomObjects(ctx, objects, group+"/v1", "scale", opts.CustomObjects, opts.Workers); err != nil {
		return nil, err
	}
	label = fmt.Sprintf("%d custom objects: ", opts.CustomObjects)
	plain := *c
	plain.acceptEncoding = "identity"
	path := "/apis/" + group + "/v1/namespaces/" + ns + "/scaleobjects"
	page := func(q url.Values) func() (time.Duration, error) {
		return func() (time.Duration, error) { return timePage(ctx, &plain, path, jsonType, q, 0) }
	}
	limit := strconv.Itoa(opts.PageSize)
	// The first read of an object builds its read view (the fake's
	// counterpart of the real server's watch cache decoding it from etcd
	// as it is written): measured once on its own, so that the page rows
	// below, the best of opts.Rounds, are reads like any later one
	// whatever the rounds (with --rounds 1 they used to be this one).
	cold, err := page(url.Values{"limit": {limit}})()
	if err != nil {
		return nil, fmt.Errorf("first page, first read: %w", err)
	}
	m = append(m, Measurement{Workload: label + "first page, first read after the creates, JSON (ms)", Value: ms(cold)})
	for _, row := range []struct {
		name string
		run  func() (time.Duration, error)
	}{
		{"first page, JSON (ms)", page(url.Values{"limit": {limit}})},
		{"selector page, 1 in 50, JSON (ms)", page(url.Values{"limit": {limit}, "labelSelector": {"app=app-7"}})},
		{"full list, JSON (ms)", page(url.Values{})},
	} {
		d, err := bestDuration(opts.Rounds, row.run)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row.name, err)
		}
		m = append(m, Measurement{Workload: label + row.name, Value: ms(d)})
	}
	if after := t.rss(); before > 0 && after > before && opts.CustomObjects > 0 {
		m = append(m, Measurement{Workload: label + "RSS per object added (bytes)", Value: float64(after-before) / float64(opts.CustomObjects)})
	}

	watchers := slices.Min(opts.Watchers)
	var best FanoutStats
	for round := range opts.Rounds {
		st, err := fanoutOf(ctx, c, fanoutKind{
			path: path,
			rv: func(ctx context.Context) (string, error) {
				l, err := objects.List(ctx, metav1.ListOptions{Limit: 1})
				if err != nil {
					return "", fmt.Errorf("list custom objects: %w", err)
				}
				return l.GetResourceVersion(), nil
			},
			create: func(ctx context.Context, n, workers int) error {
				return createCustomObjects(ctx, objects, group+"/v1", fmt.Sprintf("fan-%d", round), n, workers)
			},
		}, watchers, opts.Writes, opts.Workers, nil)
		if err != nil {
			return nil, fmt.Errorf("%d watchers of custom objects: %w", watchers, err)
		}
		if round == 0 || st.Elapsed < best.Elapsed {
			best = st
		}
	}
	m = append(m, Measurement{
		Workload:       fmt.Sprintf("%d watchers of custom objects: fan-out of %d creates (events/s)", watchers, opts.Writes),
		Value:          best.EventsPerSecond(),
		HigherIsBetter: true,
	})
	return m, nil
}

// scaleCRD is the namespaced CRD of group's resource plural of kind
// (v1, served and stored), whose spec has the schema spec.
func scaleCRD(group, plural, kind string, spec map[string]any) *unstructured.Unstructured {
	singular := strings.ToLower(kind)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": singular, "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"spec": spec},
				}},
			}},
		},
	}}
}

// flatSchema is an object schema with properties string properties f00000,
// f00001, ….
func flatSchema(properties int) map[string]any {
	props := make(map[string]any, properties)
	for i := range properties {
		props[fmt.Sprintf("f%05d", i)] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": props}
}

// deepSchema is an object schema depth objects deep: each has a string
// property p0, and all but the innermost an object property a, the next
// level (as fakeapiserver's BenchmarkCRDLargeSchema nests them).
func deepSchema(depth int) map[string]any {
	s := map[string]any{"type": "object", "properties": map[string]any{"p0": map[string]any{"type": "string"}}}
	for range depth - 1 {
		s = map[string]any{"type": "object", "properties": map[string]any{"p0": map[string]any{"type": "string"}, "a": s}}
	}
	return s
}

// waitEstablished waits until the CRD name has the condition Established
// True (polling it every 10 ms, for at most 2 minutes).
func waitEstablished(ctx context.Context, crds dynamic.ResourceInterface, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, c := range conds {
			if c, ok := c.(map[string]any); ok && c["type"] == "Established" && c["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s established: %w", name, err)
	}
	return nil
}

// createCustomObjects creates n ScaleObjects of apiVersion named
// <prefix>-<i> with the given number of concurrent workers, labelled
// app=app-<i%50>, two of their spec's properties set.
func createCustomObjects(ctx context.Context, ri dynamic.ResourceInterface, apiVersion, prefix string, n, workers int) error {
	return createCustomObjectsWith(ctx, ri, n, workers, func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion,
			"kind":       "ScaleObject",
			"metadata": map[string]any{
				"name":   fmt.Sprintf("%s-%07d", prefix, i),
				"labels": map[string]any{"app": fmt.Sprintf("app-%d", i%50)},
			},
			"spec": map[string]any{"f00000": fmt.Sprintf("v-%d", i), "f00001": "value"},
		}}
	})
}

// createCustomObjectsWith creates build(0..n-1) with the given number of
// concurrent workers, the first alone: right after its CRD is Established
// a server may not serve the resource yet, so a 404 to it is retried
// (every 10 ms, for at most a minute).
func createCustomObjectsWith(ctx context.Context, ri dynamic.ResourceInterface, n, workers int, build func(int) *unstructured.Unstructured) error {
	if n <= 0 {
		return nil
	}
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := ri.Create(ctx, build(0), metav1.CreateOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("create custom object 0: %w", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := 1 + w; i < n; i += workers {
				if _, err := ri.Create(ctx, build(i), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create custom object %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
