package malformed

import (
	"fmt"
	"net/http"
	"strings"
)

// segmentMutation replaces one path segment.
type segmentMutation struct {
	name string
	// apply returns the new segment for the old one.
	apply func(seg string) string
}

// segmentMutations are what a segment is replaced by: dot segments, raw and
// percent-encoded, an empty segment, an encoded slash, a space, a NUL, a
// non-ASCII letter, a double encoding, the segment upper-cased and with an
// encoded slash after it.
var segmentMutations = []segmentMutation{
	{"dotdot", constSegment("..")},
	{"dot", constSegment(".")},
	{"empty", constSegment("")},
	{"enc-dotdot", constSegment("%2e%2e")},
	{"enc-dot", constSegment("%2E")},
	{"enc-slash", constSegment("%2F")},
	{"enc-inner-slash", constSegment("x%2Fy")},
	{"enc-space", constSegment("%20")},
	{"enc-nul", constSegment("%00")},
	{"non-ascii", constSegment("%C3%A9")},
	{"double-enc-dot", constSegment("%252e")},
	{"tilde", constSegment("~")},
	{"upper", strings.ToUpper},
	{"trailing-enc-slash", func(seg string) string { return seg + "%2F" }},
}

// constSegment is a mutation to a fixed segment.
func constSegment(s string) func(string) string { return func(string) string { return s } }

// pathTemplate is a path whose segments are mutated one at a time.
type pathTemplate struct {
	name string
	path string
	// post also sends each mutation as a create.
	post bool
}

// pathTemplates are a core item, a group subresource, a /watch/
// collection, a cluster-scoped item and a namespaced collection.
func pathTemplates(f Fixture) []pathTemplate {
	return []pathTemplate{
		{name: "item", path: f.configMapItem()},
		{name: "subresource", path: f.deploymentItem() + "/scale"},
		{name: "watch", path: "/api/v1/watch/namespaces/" + f.Namespace + "/configmaps", post: true},
		{name: "cluster", path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + Missing},
		{name: "collection", path: f.core("configmaps"), post: true},
	}
}

// pathEdits are whole-path changes: slashes and dot segments added at the
// end or the start.
var pathEdits = []struct{ name, prefix, suffix string }{
	{"trailing-slash", "", "/"},
	{"trailing-double-slash", "", "//"},
	{"trailing-dot", "", "/."},
	{"trailing-dotdot", "", "/.."},
	{"trailing-extra", "", "/x"},
	{"leading-double-slash", "/", ""},
}

// segmentRequests are the templates with each segment mutated, an empty,
// "." or ".." segment inserted before each, and the whole-path edits; each
// as a GET and a DELETE, and for collections as a create.
func segmentRequests(f Fixture) []Request {
	var out []Request
	for _, tp := range pathTemplates(f) {
		segs := strings.Split(strings.TrimPrefix(tp.path, "/"), "/")
		for i, seg := range segs {
			for _, m := range segmentMutations {
				p := replaceSegment(segs, i, m.apply(seg))
				out = append(out, segmentVariants(f, tp, fmt.Sprintf("%d=%s", i, m.name), p)...)
			}
			for _, ins := range []struct{ name, seg string }{{"empty", ""}, {"dot", "."}, {"dotdot", ".."}} {
				p := insertSegment(segs, i, ins.seg)
				out = append(out, segmentVariants(f, tp, fmt.Sprintf("%d+%s", i, ins.name), p)...)
			}
		}
		for _, e := range pathEdits {
			out = append(out, segmentVariants(f, tp, e.name, e.prefix+tp.path+e.suffix)...)
		}
	}
	return out
}

// segmentVariants are the requests for one mutated path p.
func segmentVariants(f Fixture, tp pathTemplate, what, p string) []Request {
	base := "segment/" + tp.name + "/" + what + "/"
	out := []Request{
		{Name: base + http.MethodGet, Method: http.MethodGet, Path: p},
		safeDelete(Request{Name: base + http.MethodDelete, Method: http.MethodDelete, Path: p}),
	}
	if tp.post {
		out = append(out, Request{Name: base + http.MethodPost, Method: http.MethodPost, Path: p,
			ContentType: "application/json", Body: configMap(NewName)})
	}
	return out
}

// replaceSegment is "/" + segs with segs[i] replaced by seg.
func replaceSegment(segs []string, i int, seg string) string {
	c := append([]string(nil), segs...)
	c[i] = seg
	return "/" + strings.Join(c, "/")
}

// insertSegment is "/" + segs with seg inserted before segs[i].
func insertSegment(segs []string, i int, seg string) string {
	c := append(append(append([]string(nil), segs[:i]...), seg), segs[i:]...)
	return "/" + strings.Join(c, "/")
}
