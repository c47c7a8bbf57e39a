package malformed

import "net/http"

// methods are the methods every kind of path is tried with: HTTP's, and
// one no route has ("LIST", a verb a client might mistake for a method).
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, "LIST"}

// pathKind is one kind of path a route table tells apart.
type pathKind struct {
	name, path string
}

// pathKinds are the kinds of path of kube-apiserver's route table
// (apiserver pkg/endpoints/installer.go registerResourceHandlers): core and
// group collections and items, namespaced and cluster-scoped, the
// deprecated /watch/ and /proxy/ forms, every subresource kind (served by
// lw-sim or not), reviews, and paths past what any route serves.
func pathKinds(f Fixture) []pathKind {
	cms, cm, pod, ns := f.core("configmaps"), f.configMapItem(), f.podItem(), "/api/v1/namespaces/"+f.Namespace
	watchNS := "/api/v1/watch/namespaces/" + f.Namespace
	return []pathKind{
		{"collection", cms},
		{"item", cm},
		{"all-namespaces", "/api/v1/configmaps"},
		{"watch-collection", watchNS + "/configmaps"},
		{"watch-item", watchNS + "/configmaps/" + f.ConfigMap},
		{"watch-all-namespaces", "/api/v1/watch/configmaps"},
		{"watch-namespace", watchNS},
		{"watch-namespaces", "/api/v1/watch/namespaces"},
		{"watch-group-item", "/apis/apps/v1/watch/namespaces/" + f.Namespace + "/deployments/" + f.Deployment},
		{"watch-subresource", watchNS + "/pods/" + f.Pod + "/status"},
		{"namespaces", "/api/v1/namespaces"},
		{"namespace-missing", "/api/v1/namespaces/" + Missing},
		{"namespace-status", ns + "/status"},
		{"namespace-finalize", ns + "/finalize"},
		{"node-missing", "/api/v1/nodes/" + Missing},
		{"node-proxy", "/api/v1/nodes/" + Missing + "/proxy"},
		{"node-proxy-path", "/api/v1/nodes/" + Missing + "/proxy/healthz"},
		{"pod", pod},
		{"pod-status", pod + "/status"},
		{"pod-log", pod + "/log"},
		{"pod-exec", pod + "/exec"},
		{"pod-attach", pod + "/attach"},
		{"pod-portforward", pod + "/portforward"},
		{"pod-proxy", pod + "/proxy"},
		{"pod-proxy-path", pod + "/proxy/x"},
		{"pod-eviction", pod + "/eviction"},
		{"pod-binding", pod + "/binding"},
		{"pod-ephemeralcontainers", pod + "/ephemeralcontainers"},
		{"pod-resize", pod + "/resize"},
		{"pod-unknown-subresource", pod + "/nosuch"},
		{"pod-status-extra", pod + "/status/x"},
		{"bindings", f.core("bindings")},
		{"service-proxy", f.core("services") + "/" + Missing + "/proxy"},
		{"serviceaccount-token", f.core("serviceaccounts") + "/" + Missing + "/token"},
		{"deployment", f.deploymentItem()},
		{"deployment-scale", f.deploymentItem() + "/scale"},
		{"deployment-status", f.deploymentItem() + "/status"},
		{"replicaset-scale-missing", f.apps("replicasets") + "/" + Missing + "/scale"},
		{"clusterroles", "/apis/rbac.authorization.k8s.io/v1/clusterroles"},
		{"clusterrole-missing", "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + Missing},
		{"selfsubjectaccessreviews", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"},
		{"selfsubjectaccessreview-item", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/" + Missing},
		{"localsubjectaccessreviews", "/apis/authorization.k8s.io/v1/namespaces/" + f.Namespace + "/localsubjectaccessreviews"},
		{"componentstatuses", "/api/v1/componentstatuses"},
		{"componentstatus-missing", "/api/v1/componentstatuses/" + Missing},
		{"events-v1", "/apis/events.k8s.io/v1/namespaces/" + f.Namespace + "/events"},
		{"proxy-verb", "/api/v1/proxy/namespaces/" + f.Namespace + "/pods/" + f.Pod},
		{"unknown-resource", f.core("nosuch")},
		{"unknown-group", "/apis/nosuch.example.com/v1/foos"},
		{"unknown-version", "/api/v9/namespaces"},
	}
}

// verbRequests are every kind of path with every method: the route table's
// 404 and 405 answers, and what the routes that exist do with an empty
// object ({} as the body of a POST, PUT or merge PATCH).
func verbRequests(f Fixture) []Request {
	var out []Request
	for _, k := range pathKinds(f) {
		for _, m := range methods {
			r := Request{Name: "verbs/" + k.name + "/" + m, Method: m, Path: k.path}
			switch m {
			case http.MethodPost, http.MethodPut:
				r.ContentType, r.Body = "application/json", []byte("{}")
			case http.MethodPatch:
				r.ContentType, r.Body = "application/merge-patch+json", []byte("{}")
			}
			out = append(out, safeDelete(r))
		}
	}
	return out
}
