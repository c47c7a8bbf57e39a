package malformed

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// badNumbers are values of an integer query parameter that are not one, or
// are one only in some syntax, or overflow.
var badNumbers = []string{"", "abc", "-1", "1.5", "0x10", "+1", "%201", "1e3", "01",
	"9223372036854775807", "9223372036854775808", "99999999999999999999"}

// badBools are values of a boolean query parameter besides true and false.
var badBools = []string{"", "maybe", "1", "0", "TRUE", "False", "yes"}

// paramValues are values of one query parameter.
type paramValues struct {
	param  string
	values []string
}

// queryValues are the bad (and borderline) values of each list and watch
// option (apimachinery meta/internalversion ListOptions and its
// conversion from url.Values), raw as they go into the query.
func queryValues() []paramValues {
	longSelector := strings.Repeat("a", 64) + "=" + strings.Repeat("b", 64)
	return []paramValues{
		{"limit", badNumbers},
		{"timeoutSeconds", badNumbers},
		{"resourceVersionMatch", []string{"", "exact", "Foo", "NotOlderThan", "Exact"}},
		{"continue", []string{"", "abc", "%ZZ", "e30", base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":0,"start":"x"}`)),
			base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"x"}`)),
			base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":-5,"start":"x"}`)),
			base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"../x"}`))}},
		{"labelSelector", []string{"a%3D", "%3Db", "a+in+(", "!", "a!%3Db,", "a%3D%3D%3Db", "A~b", "x/y%3Dz", "-a%3Db",
			"a%3Db,a%3Dc", "a+notin+()", "a+in+(b,,c)", longSelector + "x" + strings.Repeat("y", 300), "%00"}},
		{"fieldSelector", []string{"metadata.name", "metadata.name%3D", "a%3Db", "metadata.name%3D%3Da", "metadata.namespace!%3Dx",
			"spec.x%3D1", "metadata.name%3Da,metadata.name%3Db", "metadata.name+in+(a)", "metadata.name%3D..", "%3D"}},
		{"allowWatchBookmarks", badBools},
		{"sendInitialEvents", badBools},
		{"watch", badBools},
		{"pretty", badBools},
		{"resourceVersion", []string{"abc", "-1", "1.5", "%201"}},
	}
}

// queryRequests are each bad option value on a LIST, a WATCH (?watch=1),
// an all-namespaces LIST and a GET; then repeated and unknown parameters.
func queryRequests(f Fixture) []Request {
	var out []Request
	targets := []struct{ name, path, extra string }{
		{"list", f.core("configmaps"), ""},
		{"watch", f.core("configmaps"), "watch=1&"},
		{"list-all", "/api/v1/configmaps", ""},
		{"get", f.configMapItem(), ""},
	}
	for _, pv := range queryValues() {
		for _, v := range pv.values {
			for _, tg := range targets {
				if pv.param == "watch" && tg.name == "watch" {
					continue // the watch target sets watch itself
				}
				out = append(out, Request{Name: "query/" + tg.name + "/" + pv.param + "=" + v, Method: http.MethodGet,
					Path: tg.path, Query: tg.extra + pv.param + "=" + v})
			}
		}
	}
	for _, q := range []string{"limit=1&limit=abc", "limit=abc&limit=1", "resourceVersion=1&resourceVersion=abc",
		"watch=0&watch=1", "nosuch=1", "LIMIT=abc", "limit", "&&&", "%ZZ=1", "labelSelector=a&labelSelector=!!"} {
		for _, tg := range targets[:2] {
			out = append(out, Request{Name: "query/" + tg.name + "/" + url.PathEscape(q), Method: http.MethodGet,
				Path: tg.path, Query: tg.extra + q})
		}
	}
	return out
}

// rvRequests are resourceVersions at and past the uint64 and int64 edges
// with every resourceVersionMatch, on LIST, WATCH and GET. Those the server
// has not reached wait its freshness timeout (3 s on kube-apiserver) before
// the 504, so there are only a few.
func rvRequests(f Fixture) []Request {
	var out []Request
	rvs := []string{"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775808"}
	for _, rv := range rvs {
		for _, q := range []struct{ name, query string }{
			{"list", ""}, {"list-exact", "&resourceVersionMatch=Exact"}, {"list-notolderthan", "&resourceVersionMatch=NotOlderThan"},
			{"list-limit", "&limit=1"},
		} {
			out = append(out, Request{Name: "rv/" + q.name + "/" + rv, Method: http.MethodGet, Path: f.core("configmaps"),
				Query: "resourceVersion=" + rv + q.query})
		}
		out = append(out,
			Request{Name: "rv/watch/" + rv, Method: http.MethodGet, Path: f.core("configmaps"), Query: "watch=1&resourceVersion=" + rv},
			Request{Name: "rv/get/" + rv, Method: http.MethodGet, Path: f.configMapItem(), Query: "resourceVersion=" + rv})
	}
	return out
}
