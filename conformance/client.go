package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// client speaks raw HTTP with JSON to a target, so that both servers are
// asked exactly the same thing and every byte of the answer is visible.
type client struct {
	target Target
	base   string
	http   *http.Client
}

// newClient builds a client for target with its transport (TLS, auth).
func newClient(t testing.TB, target Target) *client {
	t.Helper()
	cfg := target.RESTConfig()
	cfg.ContentType = "application/json"
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTPClientFor(%s): %v", target.Name(), err)
	}
	return &client{target: target, base: baseURL(cfg), http: hc}
}

// baseURL is the server URL of cfg, with a scheme.
func baseURL(cfg *rest.Config) string {
	base := strings.TrimSuffix(cfg.Host, "/")
	if !strings.Contains(base, "://") {
		base = "https://" + base
	}
	return base + cfg.APIPath
}

// response is one complete HTTP answer.
type response struct {
	Code   int
	Header http.Header
	Body   []byte
}

// request is one HTTP request; zero fields are left out.
type request struct {
	Method string
	Path   string
	Query  url.Values
	Body   any // marshalled as JSON unless []byte
	// ContentType of Body; default application/json.
	ContentType string
	Accept      string
}

func (r request) url(base string) string {
	u := base + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	return u
}

// newHTTPRequest builds the *http.Request for r.
func (c *client) newHTTPRequest(ctx context.Context, r request) (*http.Request, error) {
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(data)
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, r.url(c.base), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	if body != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	return req, nil
}

// do sends r and reads the whole answer. Transport errors fail the test.
func (c *client) do(ctx context.Context, t testing.TB, r request) response {
	t.Helper()
	return c.doWithHeader(ctx, t, r, "", "")
}

// doWithHeader is do with one extra request header (none if key is "").
func (c *client) doWithHeader(ctx context.Context, t testing.TB, r request, key, value string) response {
	t.Helper()
	req, err := c.newHTTPRequest(ctx, r)
	if err != nil {
		t.Fatalf("build %s %s: %v", r.Method, r.Path, err)
	}
	if key != "" {
		req.Header.Set(key, value)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return response{Code: resp.StatusCode, Header: resp.Header, Body: body}
}

// doTimed is do for requests the server answers only after a server-side
// wait (the 3 s freshness wait): on a target with a [Clock] it advances the
// clock while the request is in flight instead of waiting in real time.
func (c *client) doTimed(ctx context.Context, t testing.TB, r request) response {
	t.Helper()
	clk, ok := c.target.(Clock)
	if !ok {
		return c.do(ctx, t, r)
	}
	done := make(chan response, 1)
	fatal := make(chan string, 1)
	go func() {
		req, err := c.newHTTPRequest(ctx, r)
		if err != nil {
			fatal <- err.Error()
			return
		}
		resp, err := c.http.Do(req)
		if err != nil {
			fatal <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			fatal <- err.Error()
			return
		}
		done <- response{Code: resp.StatusCode, Header: resp.Header, Body: body}
	}()
	tick := time.NewTicker(pumpInterval)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r
		case msg := <-fatal:
			t.Fatalf("%s %s: %s", r.Method, r.Path, msg)
		case <-tick.C:
			clk.Advance(pumpStep)
		case <-ctx.Done():
			t.Fatalf("%s %s: %v", r.Method, r.Path, ctx.Err())
		}
	}
}

const (
	// pumpInterval and pumpStep set how fast virtual time runs while a case
	// waits on a fake with a Clock: 100 ms of server time per 2 ms of real
	// time, fast yet slow enough for the server's goroutines to react.
	pumpInterval = 2 * time.Millisecond
	pumpStep     = 100 * time.Millisecond
)

// decode unmarshals the body into v, failing the test if it is not JSON.
func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %T from %d body %q: %v", v, r.Code, r.Body, err)
	}
}

// object is a decoded JSON object.
type object = map[string]any

// mustCode fails the test unless the answer has the wanted status code.
func (r response) mustCode(t testing.TB, want int, what string) {
	t.Helper()
	if r.Code != want {
		t.Fatalf("%s: code = %d, want %d; body %s", what, r.Code, want, r.Body)
	}
}

// status decodes the body as a metav1.Status.
func (r response) status(t testing.TB) metav1.Status {
	t.Helper()
	var st metav1.Status
	r.decode(t, &st)
	return st
}

// nsPath is the collection path of a namespaced core/v1 resource.
func nsPath(ns, resource string) string {
	return fmt.Sprintf("/api/v1/namespaces/%s/%s", ns, resource)
}

// q builds url.Values from key, value pairs.
func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// rvOf parses metadata.resourceVersion of a decoded object.
func rvOf(t testing.TB, obj object) int64 {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md["resourceVersion"].(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("metadata.resourceVersion %q of %v: %v", s, md, err)
	}
	return n
}

// nameOf returns metadata.name of a decoded object.
func nameOf(obj object) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md["name"].(string)
	return s
}

// metaOf returns metadata of a decoded object.
func metaOf(obj object) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	return md
}

// itoa formats an RV.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
