package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/malformed"
)

// malformedReadLimit bounds how much of an answer is read: the corpus's
// answers are Status bodies and small lists.
const malformedReadLimit = 1 << 20

// malformedAnswer is what two servers are compared on for one corpus
// request: the status code and media type, and for a Status its reason,
// message and details; for another JSON answer its kind; for a text answer
// its first line. Messages are normalised ([normalizeMessage]).
type malformedAnswer struct {
	Code        int    `json:"code"`
	ContentType string `json:"contentType,omitempty"`
	Kind        string `json:"kind,omitempty"`
	Status      string `json:"status,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	Details     string `json:"details,omitempty"`
	Text        string `json:"text,omitempty"`
	// Error is set when the request got no HTTP answer.
	Error string `json:"error,omitempty"`
}

// uidInText matches a UID anywhere in a message.
var uidInText = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// normalizeMessage masks what legitimately differs between two servers
// answering the same request: the fixture's namespace name (random per
// run, in any case), UIDs, the scheme name of decoding errors, the etcd
// prefix of storage keys (DIVERGENCES.md, "Storage keys"), and every number (resourceVersions, which masks the lengths
// and offsets quoted beside them too).
func normalizeMessage(s, ns string) string {
	if ns != "" {
		// Upper-cased too: the corpus upper-cases path segments.
		s = regexp.MustCompile("(?i)"+regexp.QuoteMeta(ns)).ReplaceAllString(s, "NS")
	}
	s = schemeInText.ReplaceAllString(s, ` in scheme "SCHEME"`)
	s = strings.ReplaceAll(s, "/lwsim/registry/", "/registry/")
	return maskRVs(uidInText.ReplaceAllString(s, "UID"))
}

// schemeInText matches the scheme a "no kind is registered" error names:
// runtime.NewScheme's call site, which depends on how the binary was built
// (a release build names k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go,
// tools/realapiserver, built from the module cache, pkg/runtime/scheme.go).
var schemeInText = regexp.MustCompile(` in scheme "[^"]*"`)

// sendMalformed sends r byte for byte (path, query, headers, body) and
// reads its answer. On a target with a [Clock] the clock is moved while
// the request is in flight, so server-side waits pass in virtual time.
func (c *client) sendMalformed(ctx context.Context, r malformed.Request, ns string) malformedAnswer {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan malformedAnswer, 1)
	go func() { done <- c.roundTripMalformed(ctx, r, ns) }()
	clk, ok := c.target.(Clock)
	if !ok {
		return <-done
	}
	tick := time.NewTicker(pumpInterval)
	defer tick.Stop()
	for {
		select {
		case a := <-done:
			return a
		case <-tick.C:
			clk.Advance(pumpStep)
		}
	}
}

// roundTripMalformed is one request and its normalised answer.
func (c *client) roundTripMalformed(ctx context.Context, r malformed.Request, ns string) malformedAnswer {
	req, err := c.rawRequest(ctx, r)
	if err != nil {
		return malformedAnswer{Error: "build: " + err.Error()}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return malformedAnswer{Error: "no answer"}
	}
	defer resp.Body.Close()
	a := malformedAnswer{Code: resp.StatusCode}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			a.ContentType = mt
		} else {
			a.ContentType = ct
		}
	}
	if r.MayStream() && resp.StatusCode == http.StatusOK {
		return a // a watch stream: its headers are the answer
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, malformedReadLimit))
	if err != nil {
		a.Error = "body cut"
	}
	describeBody(&a, body, ns)
	return a
}

// rawRequest builds r's HTTP request. The path goes in URL.Opaque
// ("//host/path"), which net/http sends as is, so "..", "." and empty
// segments and percent-escapes are not cleaned or re-encoded.
func (c *client) rawRequest(ctx context.Context, r malformed.Request) (*http.Request, error) {
	base, err := url.Parse(c.base)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, c.base, body)
	if err != nil {
		return nil, err
	}
	req.URL = &url.URL{Scheme: base.Scheme, Host: base.Host, Opaque: "//" + base.Host + base.Path + r.Path, RawQuery: r.Query}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	req.Header.Set("Accept", "application/json")
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	return req, nil
}

// describeBody fills in what the answer's body says: a Status's fields, a
// JSON object's kind, or a text's first line.
func describeBody(a *malformedAnswer, body []byte, ns string) {
	if len(body) == 0 {
		return
	}
	if a.ContentType != "application/json" {
		if strings.HasPrefix(a.ContentType, "text/") {
			line, _, _ := strings.Cut(string(body), "\n")
			a.Text = normalizeMessage(strings.TrimSpace(line), ns)
		}
		return
	}
	kind, ok := leadingKind(body)
	if !ok {
		a.Text = "not JSON"
		return
	}
	a.Kind = kind
	var tm metav1.TypeMeta
	if err := json.Unmarshal(body, &tm); err != nil {
		return // a list longer than the read limit: its kind is all that is compared
	}
	var st metav1.Status
	if tm.Kind != "Status" || json.Unmarshal(body, &st) != nil {
		return
	}
	a.Status, a.Reason, a.Message = st.Status, string(st.Reason), normalizeMessage(st.Message, ns)
	if st.Details != nil {
		a.Details = describeDetails(*st.Details, ns)
	}
}

// leadingKind reads the "kind" of a JSON object from its first members,
// where kube-apiserver writes it, so that an answer cut at the read limit
// (an all-namespaces list on a busy server) still says what it is.
func leadingKind(body []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		if key == "kind" {
			var kind string
			return kind, dec.Decode(&kind) == nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", true
}

// describeDetails is a Status's details as compact JSON, without the UID
// and with messages normalised.
func describeDetails(d metav1.StatusDetails, ns string) string {
	d.UID = ""
	d.Name = normalizeMessage(d.Name, ns)
	d.Causes = append([]metav1.StatusCause(nil), d.Causes...)
	for i := range d.Causes {
		d.Causes[i].Message = normalizeMessage(d.Causes[i].Message, ns)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	return string(b)
}

// restoreFixture makes the fixture what it was: each fixture object as
// first created, and nothing else in its collection. A request that was
// accepted may have changed, deleted, created or begun deleting objects (a
// delete that orphans dependents leaves the object with the orphan
// finalizer, which no garbage collector removes on a test server), so
// every object goes: its finalizers cleared, deleted at once, then the
// fixture's are created again.
func (c *client) restoreFixture(ctx context.Context, t testing.TB, fx malformed.Fixture) {
	t.Helper()
	for _, o := range fx.Objects() {
		r := c.do(ctx, t, request{Path: o.Collection})
		r.mustCode(t, http.StatusOK, "restore: list "+o.Collection)
		var l list
		r.decode(t, &l)
		for _, it := range l.Items {
			path := o.Collection + "/" + nameOf(it)
			if md := metaOf(it); md["finalizers"] != nil {
				c.do(ctx, t, request{Method: http.MethodPatch, Path: path, ContentType: "application/merge-patch+json",
					Body: object{"metadata": object{"finalizers": nil}}}).mustCode(t, http.StatusOK, "restore: clear finalizers of "+path)
			}
			c.do(ctx, t, request{Method: http.MethodDelete, Path: path, Query: q("gracePeriodSeconds", "0")})
		}
		c.do(ctx, t, request{Method: http.MethodPost, Path: o.Collection, Body: o.Body}).mustCode(t, http.StatusCreated, "restore: create "+o.Name)
	}
}
