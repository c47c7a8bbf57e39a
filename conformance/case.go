package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// Case is one named behaviour.
type Case struct {
	// Name is the case's stable name: the subtest's name and the row of
	// the conformance table. A case with a run function of its own names
	// it after the case (runListEmpty runs ListEmpty).
	Name string
	// Run holds the assertions.
	Run func(ctx context.Context, t *testing.T, target Target)
	// Exclusive cases change server-wide state (compaction), or need a
	// fake's clock to move only when they move it, and must not run
	// concurrently with others on the same server.
	Exclusive bool
	// Slow cases wait for the server's own timers (minutes on a real
	// server). On a target with a [Clock] they run exclusive and move it;
	// on others they run with the shared cases, so the wait overlaps the
	// rest of the suite, with slowCaseTimeout, and only when LWSIM_SLOW is
	// set (make conformance-real sets it).
	Slow bool
	// Controllers are kube-controller-manager controllers the case needs
	// running (fakeapiserver.ControllerGarbageCollector, ...). Such a case
	// runs exclusive: on a fake, against a fresh server with them on; on a
	// [ControllerRunner] (realapiserver), with them started for the case
	// alone; elsewhere it is skipped.
	Controllers []string
}

// env is what every case starts with: a client and a fresh namespace.
type env struct {
	t  *testing.T
	c  *client
	ns string
}

// caseNameRE turns a test name into a namespace name fragment.
var caseNameRE = regexp.MustCompile(`[^a-z]+`)

// setup creates a fresh namespace for the calling case and deletes it when
// the test ends. Names contain no digits (see maskRVs).
func setup(ctx context.Context, t *testing.T, target Target) *env {
	t.Helper()
	c := newClient(t, target)
	base := t.Name()
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	base = strings.Trim(caseNameRE.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if len(base) > 40 {
		base = base[:40]
	}
	ns := "cf-" + base + "-" + randomSuffix()
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: "/api/v1/namespaces", Body: object{
		"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": ns},
	}})
	r.mustCode(t, http.StatusCreated, "create namespace "+ns)
	t.Cleanup(func() { deleteNamespace(target, ns) })
	return &env{t: t, c: c, ns: ns}
}

// deleteNamespace deletes ns with a fresh client (the server may have been
// restarted with new credentials), best effort: cleanup failures are not
// the case's.
func deleteNamespace(target Target, ns string) {
	cfg := target.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return
	}
	c := &client{target: target, base: baseURL(cfg), http: hc}
	req, err := c.newHTTPRequest(context.Background(), request{Method: http.MethodDelete, Path: "/api/v1/namespaces/" + ns})
	if err != nil {
		return
	}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// randomSuffix is 6 lower-case letters (no digits: see maskRVs).
func randomSuffix() string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 6)
	rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

// cm is a ConfigMap body.
func cm(name string, labels map[string]string, data string) object {
	md := object{"name": name}
	if labels != nil {
		md["labels"] = labels
	}
	return object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": object{"k": data}}
}

// cms is the ConfigMap collection path of the case's namespace.
func (e *env) cms() string { return nsPath(e.ns, "configmaps") }

// create POSTs a ConfigMap and returns the stored object.
func (e *env) create(ctx context.Context, name string, labels map[string]string) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: e.cms(), Body: cm(name, labels, "v")})
	r.mustCode(e.t, http.StatusCreated, "create configmap "+name)
	var o object
	r.decode(e.t, &o)
	return o
}

// createN creates ConfigMaps with the given names, returning their RVs.
func (e *env) createN(ctx context.Context, names ...string) []int64 {
	e.t.Helper()
	rvs := make([]int64, len(names))
	for i, n := range names {
		rvs[i] = rvOf(e.t, e.create(ctx, n, map[string]string{"app": "x"}))
	}
	return rvs
}

// update PUTs the ConfigMap name with data and no resourceVersion
// (unconditional) and returns the stored object.
func (e *env) update(ctx context.Context, name, data string, labels map[string]string) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPut, Path: e.cms() + "/" + name, Body: cm(name, labels, data)})
	r.mustCode(e.t, http.StatusOK, "update configmap "+name)
	var o object
	r.decode(e.t, &o)
	return o
}

// del DELETEs the ConfigMap name.
func (e *env) del(ctx context.Context, name string) {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodDelete, Path: e.cms() + "/" + name})
	r.mustCode(e.t, http.StatusOK, "delete configmap "+name)
}

// list is a decoded list answer.
type list struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []object `json:"items"`
}

// rv parses the list's resourceVersion.
func (l list) rv(t testing.TB) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(l.Metadata.ResourceVersion, &n); err != nil || n <= 0 {
		t.Fatalf("list resourceVersion = %q, want a positive integer", l.Metadata.ResourceVersion)
	}
	return n
}

// names returns the item names in order.
func (l list) names() []string {
	out := make([]string, len(l.Items))
	for i, it := range l.Items {
		out[i] = nameOf(it)
	}
	return out
}

// list GETs the case's ConfigMaps with the query and decodes a 200 answer.
func (e *env) list(ctx context.Context, query ...string) list {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Path: e.cms(), Query: q(query...)})
	r.mustCode(e.t, http.StatusOK, "list "+q(query...).Encode())
	var l list
	r.decode(e.t, &l)
	return l
}

// catchUpCache makes the target's watch cache hold every write
// acknowledged so far, so that a read the real server serves from the cache
// (resourceVersion=0, not-older-than, a watch from an RV) has one right
// answer. Without it the real server may answer from a cache one write
// behind (loaded runs did), which those reads allow and the fake never does
// (DIVERGENCES.md, "resourceVersion=0 may be stale"). A consistent LIST
// learns etcd's current revision; a NotOlderThan LIST at that revision waits,
// in the cacher, until the cache has reached it. On the fake both are
// ordinary reads.
func (e *env) catchUpCache(ctx context.Context) {
	e.t.Helper()
	e.list(ctx, "resourceVersion", itoa(e.currentRV(ctx)), "resourceVersionMatch", "NotOlderThan")
}

// currentRV is the RV of a consistent LIST of the case's namespace.
func (e *env) currentRV(ctx context.Context) int64 {
	e.t.Helper()
	return e.list(ctx).rv(e.t)
}

// requireCompactor returns the target's Compactor or skips the test.
func requireCompactor(t *testing.T, target Target) Compactor {
	t.Helper()
	c, ok := target.(Compactor)
	if !ok {
		t.Skipf("target %s has no compaction hook (conformance.Compactor)", target.Name())
	}
	return c
}
