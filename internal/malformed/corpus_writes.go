package malformed

import (
	"net/http"
	"strings"
)

// writeVerb is one write a bad option is tried on.
type writeVerb struct {
	name, method, path, contentType string
	body                            []byte
}

// writeVerbs are a create, an update, a merge patch, an apply and a delete
// of the fixture's ConfigMap (or of a new one), each valid without the
// option under test.
func writeVerbs(f Fixture) []writeVerb {
	return []writeVerb{
		{"create", http.MethodPost, f.core("configmaps"), "application/json", configMap(NewName)},
		{"update", http.MethodPut, f.configMapItem(), "application/json", configMap(f.ConfigMap)},
		{"patch", http.MethodPatch, f.configMapItem(), "application/merge-patch+json", []byte(`{"data":{"k":"v"}}`)},
		{"apply", http.MethodPatch, f.configMapItem(), "application/apply-patch+yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + f.ConfigMap + "\n")},
		{"delete", http.MethodDelete, f.configMapItem(), "", nil},
		{"deletecollection", http.MethodDelete, f.core("configmaps"), "", nil},
	}
}

// writeOptions are bad values of the write options (CreateOptions,
// UpdateOptions, PatchOptions, DeleteOptions and their validation), each
// tried on every write verb: an option a verb does not take is ignored by
// the real server, which the corpus checks too.
var writeOptions = []string{
	"dryRun=Foo", "dryRun=all", "dryRun=", "dryRun=All&dryRun=Foo", "dryRun=All&dryRun=All",
	"fieldManager=" + strings.Repeat("m", 129), "fieldManager=%01", "fieldManager=",
	"fieldValidation=Foo", "fieldValidation=strict", "fieldValidation=",
	"force=true", "force=maybe", "force=",
	"gracePeriodSeconds=abc", "gracePeriodSeconds=-1", "gracePeriodSeconds=-10", "gracePeriodSeconds=9223372036854775808",
	"gracePeriodSeconds=1.5",
	"propagationPolicy=Foo", "propagationPolicy=orphan", "propagationPolicy=",
	"orphanDependents=maybe", "orphanDependents=true&propagationPolicy=Background",
}

// writeOptionRequests are each bad write option on each write verb. A
// deletecollection always keeps the selector no object matches.
func writeOptionRequests(f Fixture) []Request {
	var out []Request
	for _, v := range writeVerbs(f) {
		for _, o := range writeOptions {
			q := o
			if v.name == "apply" && !strings.Contains(o, "fieldManager") {
				q = "fieldManager=corpus&" + o
			}
			if v.name == "deletecollection" {
				q = noneSelector + "&" + o
			}
			out = append(out, Request{Name: "write/" + v.name + "/" + o, Method: v.method, Path: v.path, Query: q,
				ContentType: v.contentType, Body: v.body})
		}
	}
	return out
}
