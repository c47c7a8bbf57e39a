package malformed

import (
	"net/http"
	"strings"
)

const (
	// Missing is a name no object of the corpus has: items of kinds the
	// fixture does not create, and cluster-scoped items, are named so, so a
	// request that wrongly succeeds changes nothing outside the fixture.
	Missing = "lwsim-corpus-missing"
	// NewName is the name of the objects the corpus creates; the sender
	// deletes them again after an accepted create.
	NewName = "corpus-new"
	// noneSelector is a label selector no object matches: a DELETE routed
	// to a collection with it deletes nothing.
	noneSelector = "labelSelector=lwsim-corpus-none"
	// safeDeleteQuery is the query of every DELETE that does not test a
	// query itself: a dry run (the fixture namespace itself is one
	// trailing slash away: /api/v1/namespaces/NS/ is its item path) and
	// the selector no object matches.
	safeDeleteQuery = "dryRun=All&" + noneSelector
)

// Request is one request of the corpus. Zero fields are left out.
type Request struct {
	// Name is unique in the corpus and stable across runs, e.g.
	// "verbs/watch-item/DELETE" or "segment/item/4=%2e%2e/GET".
	Name string
	// Method is the HTTP method, sent as is (it may be one HTTP does not
	// define).
	Method string
	// Path is the escaped path, sent byte for byte: ".." and "." segments,
	// empty segments and percent-escapes reach the server unchanged.
	Path string
	// Query is the raw query, sent byte for byte.
	Query string
	// ContentType and Accept are the headers; an empty ContentType is
	// left out (no body has a type then).
	ContentType, Accept string
	// Body is the request body, nil for none.
	Body []byte
}

// Fixture is what the corpus's requests name: a namespace with a ConfigMap,
// a Pod and a Deployment. The sender creates them ([Fixture.Objects]) before
// the first request and again whenever a request may have changed them.
type Fixture struct {
	Namespace  string
	ConfigMap  string
	Pod        string
	Deployment string
}

// NewFixture is the fixture in namespace ns with the corpus's usual names.
func NewFixture(ns string) Fixture {
	return Fixture{Namespace: ns, ConfigMap: "a", Pod: "p", Deployment: "d"}
}

// Object is one fixture object: where it is created and how it reads back.
type Object struct {
	// Collection is the path a POST of Body creates it in.
	Collection string
	// Name is its name; Collection + "/" + Name is its path.
	Name string
	// Body is its JSON.
	Body []byte
}

// Objects are the fixture's objects in creation order.
func (f Fixture) Objects() []Object {
	return []Object{
		{Collection: f.core("configmaps"), Name: f.ConfigMap, Body: configMap(f.ConfigMap)},
		{Collection: f.core("pods"), Name: f.Pod, Body: pod(f.Pod)},
		{Collection: f.apps("deployments"), Name: f.Deployment, Body: deployment(f.Deployment)},
	}
}

// Corpus is every request, in a stable order, for the fixture f.
func Corpus(f Fixture) []Request {
	var out []Request
	for _, gen := range []func(Fixture) []Request{verbRequests, segmentRequests, queryRequests, rvRequests,
		writeOptionRequests, bodyRequests, patchRequests, acceptRequests, sizeRequests} {
		out = append(out, gen(f)...)
	}
	return out
}

// Category is the first element of a request name ("verbs", "segment",
// ...): the corpus's cases split it by category.
func (r Request) Category() string {
	c, _, _ := strings.Cut(r.Name, "/")
	return c
}

// Mutates reports whether a server that accepts r may have changed state:
// any method but GET, HEAD and OPTIONS.
func (r Request) Mutates() bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// MayStream reports whether an accepted r may be a watch, whose answer is a
// stream that does not end: a GET with a watch parameter or on a /watch/
// path. The sender reads only the status and headers of such an answer.
func (r Request) MayStream() bool {
	if r.Method != http.MethodGet {
		return false
	}
	return strings.Contains(r.Path, "/watch") || strings.Contains(r.Query, "watch")
}

// core is the path of a namespaced core/v1 collection in the fixture's
// namespace.
func (f Fixture) core(resource string) string {
	return "/api/v1/namespaces/" + f.Namespace + "/" + resource
}

// apps is the path of an apps/v1 collection in the fixture's namespace.
func (f Fixture) apps(resource string) string {
	return "/apis/apps/v1/namespaces/" + f.Namespace + "/" + resource
}

// configMapItem is the fixture ConfigMap's path.
func (f Fixture) configMapItem() string { return f.core("configmaps") + "/" + f.ConfigMap }

// podItem is the fixture Pod's path.
func (f Fixture) podItem() string { return f.core("pods") + "/" + f.Pod }

// deploymentItem is the fixture Deployment's path.
func (f Fixture) deploymentItem() string { return f.apps("deployments") + "/" + f.Deployment }

// configMap is a ConfigMap named name.
func configMap(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{"app":"corpus"}},"data":{"k":"v"}}`)
}

// pod is a Pod named name with one container.
func pod(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"corpus"}},` +
		`"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
}

// deployment is a Deployment named name of one replica.
func deployment(name string) []byte {
	return []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `"},"spec":{"replicas":1,` +
		`"selector":{"matchLabels":{"app":"` + name + `"}},"template":{"metadata":{"labels":{"app":"` + name + `"}},` +
		`"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`)
}

// safeDelete gives a DELETE without a query [safeDeleteQuery], so that
// whatever a server routes it to, nothing is deleted.
func safeDelete(r Request) Request {
	if r.Method == http.MethodDelete && r.Query == "" {
		r.Query = safeDeleteQuery
	}
	return r
}
