package fakeapiserver

import (
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// TestDecodeListOptionsMatchesCodec: decodeListOptions answers every query
// as the parameter codec kube-apiserver decodes ListOptions with does: the
// same options (selectors, pointers, absent and repeated parameters) and
// the same error, for valid and malformed values of every ListOptions
// parameter and for parameters it does not know.
func TestDecodeListOptionsMatchesCodec(t *testing.T) {
	t.Parallel()
	keys := []string{
		"labelSelector", "fieldSelector", "watch", "allowWatchBookmarks", "resourceVersion",
		"resourceVersionMatch", "timeoutSeconds", "limit", "continue", "sendInitialEvents",
		"shardSelector", "timeout", "pretty", "",
	}
	values := []string{
		"", "0", "1", "500", "-1", "9223372036854775808", "x", "true", "false", "False", "NotOlderThan",
		"Exact", "a=b", "a in (b,c),!d", "a=", "=b", "metadata.name=x", "metadata.namespace!=y", "a==b,,", "%",
	}
	rapid.Check(t, func(t *rapid.T) {
		q := url.Values{}
		for range rapid.IntRange(0, 5).Draw(t, "params") {
			k := rapid.SampledFrom(keys).Draw(t, "key")
			q[k] = append(q[k], rapid.SampledFrom(values).Draw(t, "value"))
		}
		var want, got metainternalversion.ListOptions
		wantErr := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, &want)
		gotErr := decodeListOptions(q, &got)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("decodeListOptions(%v) = %v, want the codec's %v", q, gotErr, wantErr)
		}
		// The selectors' fields are unexported: compare them all.
		if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
			t.Fatalf("decodeListOptions(%v) options differ from the codec's (-want +got):\n%s", q, diff)
		}
	})
}
