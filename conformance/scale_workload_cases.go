package conformance

// Scale subresource cases for the workloads besides Deployments: issue 10
// names ReplicaSets and StatefulSets.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scaleWorkloadCases are the cases of this file, in the order [Cases] runs them.
func scaleWorkloadCases() []Case {
	return []Case{
		{Name: "ScaleReplicaSetStatefulSet", Run: runScaleReplicaSetStatefulSet},
	}
}

// runScaleReplicaSetStatefulSet: GET replicasets/NAME/scale and
// statefulsets/NAME/scale are autoscaling/v1 Scales of the object (its
// replicas, its selector as a string), and a merge patch of the scale
// changes the object's spec.replicas.
func runScaleReplicaSetStatefulSet(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, res := range []struct{ kind, plural string }{{"ReplicaSet", "replicasets"}, {"StatefulSet", "statefulsets"}} {
		body := deployment("w", 2)
		body["kind"] = res.kind
		e.createAt(ctx, e.appsPath(res.plural), body, "create "+res.plural)
		path := e.appsPath(res.plural) + "/w"
		r := e.c.do(ctx, t, request{Path: path + "/scale"})
		r.mustCode(t, http.StatusOK, "get "+res.plural+" scale")
		var s object
		r.decode(t, &s)
		got := object{"kind": s["kind"], "apiVersion": s["apiVersion"], "name": metaOf(s)["name"], "spec": s["spec"], "status": s["status"]}
		want := object{"kind": "Scale", "apiVersion": "autoscaling/v1", "name": "w",
			"spec": map[string]any{"replicas": float64(2)}, "status": map[string]any{"replicas": float64(0), "selector": "app=w"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s scale (-want +got):\n%s", res.plural, diff)
		}
		r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/scale", Body: object{"spec": object{"replicas": 3}}, ContentType: mergePatchType})
		r.mustCode(t, http.StatusOK, "patch "+res.plural+" scale")
		var o object
		e.c.do(ctx, t, request{Path: path}).decode(t, &o)
		if replicas := o["spec"].(map[string]any)["replicas"]; replicas != float64(3) {
			t.Errorf("%s spec.replicas after the scale patch = %v, want 3", res.plural, replicas)
		}
	}
}
