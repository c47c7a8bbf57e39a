package fakeapiserver

import (
	"errors"
	"testing"
)

// Tokens observed from kube-apiserver 1.37 (spec §3.2, evidence/run1, run2).
const (
	observedToken        = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NzYsInN0YXJ0IjoiL2NtLWJcdTAwMDAifQ" // rv 76, /cm-b\x00
	observedExpiredToken = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiYlx1MDAwMCJ9"       // rv -1, b\x00
	observedAllNSToken   = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwLCJzdGFydCI6Ii9rdWJlLXN5c3RlbS9leHRlbnNpb24tYXBpc2VydmVyLWF1dGhlbnRpY2F0aW9uXHUwMDAwIn0"
)

func TestEncodeContinueMatchesObserved(t *testing.T) {
	tests := []struct {
		name, last, prefix string
		rv                 int64
		withSlash          bool
		want               string
	}{
		{"page", "t1/cm-b", "t1/", 76, true, observedToken},
		{"expired 410", "t2/b", "t2/", -1, false, observedExpiredToken},
		{"all namespaces", "kube-system/extension-apiserver-authentication", "", 100, true, observedAllNSToken},
	}
	for _, tt := range tests {
		if got := encodeContinue(tt.last, tt.prefix, tt.rv, tt.withSlash); got != tt.want {
			t.Errorf("%s: encodeContinue(%q, %q, %d) = %s, want %s", tt.name, tt.last, tt.prefix, tt.rv, got, tt.want)
		}
	}
}

func TestDecodeContinue(t *testing.T) {
	tests := []struct {
		name, token, prefix string
		wantKey             string
		wantRV              int64
		wantErr             error
	}{
		{name: "page", token: observedToken, prefix: "t1/", wantKey: "t1/cm-b\x00", wantRV: 76},
		{name: "etcd form", token: observedExpiredToken, prefix: "t2/", wantKey: "t2/b\x00", wantRV: -1},
		{name: "all namespaces", token: observedAllNSToken, prefix: "", wantKey: "kube-system/extension-apiserver-authentication\x00", wantRV: 100},
		{name: "rv 0", token: tokenRV0, wantErr: errInvalidStartRV},
		{name: "version", token: tokenV2, wantErr: errUnrecognizedToken},
		{name: "traversal", token: tokenTraversal, wantErr: errGenericInvalidKey},
		{name: "not base64", token: "a!", wantErr: errGenericInvalidKey},
		{name: "not JSON", token: "abc", wantErr: errGenericInvalidKey},
		{name: "empty start", token: encodeTokenJSON(`{"v":"meta.k8s.io/v1","rv":3,"start":""}`), wantErr: errEmptyStartKey},
	}
	for _, tt := range tests {
		key, rv, err := decodeContinue(tt.token, tt.prefix)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: decodeContinue() error = %v, want %v", tt.name, err, tt.wantErr)
			continue
		}
		if key != tt.wantKey || rv != tt.wantRV {
			t.Errorf("%s: decodeContinue() = %q, %d, want %q, %d", tt.name, key, rv, tt.wantKey, tt.wantRV)
		}
	}
}
