package kubewire

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Tokens kube-apiserver 1.37 gave [observed on v1.37.2]; their format is
// k8s.io/apiserver pkg/storage/continue.go EncodeContinue's.
const (
	observedToken        = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NzYsInN0YXJ0IjoiL2NtLWJcdTAwMDAifQ" // rv 76, /cm-b\x00
	observedExpiredToken = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiYlx1MDAwMCJ9"       // rv -1, b\x00
	observedAllNSToken   = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwLCJzdGFydCI6Ii9rdWJlLXN5c3RlbS9leHRlbnNpb24tYXBpc2VydmVyLWF1dGhlbnRpY2F0aW9uXHUwMDAwIn0"
)

func TestEncodeContinueMatchesObserved(t *testing.T) {
	t.Parallel()
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
		if got := EncodeContinue(tt.last, tt.prefix, tt.rv, tt.withSlash); got != tt.want {
			t.Errorf("%s: EncodeContinue(%q, %q, %d, %v) = %s, want %s", tt.name, tt.last, tt.prefix, tt.rv, tt.withSlash, got, tt.want)
		}
	}
}

// TestDecodeContinue: the keys of good tokens, and for bad ones the real
// server's error texts (conformance list_errors_cases.go checks them
// against kube-apiserver).
func TestDecodeContinue(t *testing.T) {
	t.Parallel()
	js := func(s string) string { return EncodeContinueJSON([]byte(s)) }
	tests := []struct {
		name, token, prefix string
		wantKey             string
		wantRV              int64
		wantErr             error
		wantText            string
	}{
		{name: "page", token: observedToken, prefix: "t1/", wantKey: "t1/cm-b\x00", wantRV: 76},
		{name: "etcd form", token: observedExpiredToken, prefix: "t2/", wantKey: "t2/b\x00", wantRV: -1},
		{name: "all namespaces", token: observedAllNSToken, prefix: "", wantKey: "kube-system/extension-apiserver-authentication\x00", wantRV: 100},
		{name: "not base64", token: "a!", wantErr: ErrGenericInvalidKey,
			wantText: "continue key is not valid: illegal base64 data at input byte 1"},
		{name: "not JSON", token: js("nope"), wantErr: ErrGenericInvalidKey,
			wantText: "continue key is not valid: invalid character 'o' in literal null (expecting 'u')"},
		{name: "version", token: js(`{"v":"meta.k8s.io/v2","rv":5,"start":"a\u0000"}`), wantErr: ErrUnrecognizedEncodedVersion,
			wantText: "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"},
		{name: "rv 0", token: js(`{"v":"meta.k8s.io/v1","rv":0,"start":"a\u0000"}`), wantErr: ErrInvalidStartRV,
			wantText: "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{name: "empty start", token: js(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`), wantErr: ErrEmptyStartKey,
			wantText: "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
		{name: "rv past int64", token: js(`{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"x"}`), wantErr: ErrGenericInvalidKey,
			wantText: "continue key is not valid: json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64"},
		{name: "traversal", token: js(`{"v":"meta.k8s.io/v1","rv":5,"start":"/../x"}`), wantErr: ErrGenericInvalidKey,
			wantText: "continue key is not valid: /../x"},
	}
	for _, tt := range tests {
		key, rv, err := DecodeContinue(tt.token, tt.prefix)
		if !errors.Is(err, tt.wantErr) || (err != nil && err.Error() != tt.wantText) {
			t.Errorf("%s: DecodeContinue() error = %v, want %q", tt.name, err, tt.wantText)
			continue
		}
		if key != tt.wantKey || rv != tt.wantRV {
			t.Errorf("%s: DecodeContinue() = %q, %d, want %q, %d", tt.name, key, rv, tt.wantKey, tt.wantRV)
		}
	}
}

// TestParseContinue reads tokens without judging them: rv -1 and 0 and
// another version are read as they are.
func TestParseContinue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		token string
		want  ContinueToken
	}{
		{observedToken, ContinueToken{Version: ContinueVersion, RV: 76, Start: "/cm-b\x00"}},
		{observedExpiredToken, ContinueToken{Version: ContinueVersion, RV: -1, Start: "b\x00"}},
		{EncodeContinueJSON([]byte(`{"v":"x","rv":0}`)), ContinueToken{Version: "x"}},
	}
	for _, tt := range tests {
		got, err := ParseContinue(tt.token)
		if err != nil {
			t.Errorf("ParseContinue(%s): %v", tt.token, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseContinue(%s) mismatch (-want +got):\n%s", tt.token, diff)
		}
	}
	if _, err := ParseContinue("e30="); !errors.Is(err, ErrGenericInvalidKey) {
		t.Errorf("ParseContinue of a padded token: error %v, want ErrGenericInvalidKey (the server reads unpadded base64)", err)
	}
}

// TestParseTokenJSONMatchesJSON: whatever parseTokenJSON reads, tokens
// EncodeContinue makes and their mutations alike, json.Unmarshal reads
// the same, and it reads every token a server makes of a plain key (the
// fast path is taken, not only sound).
func TestParseTokenJSONMatchesJSON(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "Z", "9", "/", ".", "-", "\x00", `"`, `\`, "<", "&", "é", "\n", "\x7f", "\xff", " "}
	plain := []string{"a", "Z", "9", "/", ".", "-", "\x00", " "} // what keys hold; json.Marshal escapes none but NUL
	mutations := []byte{'0', '1', '-', '"', '\\', 'u', ' ', '}', ',', ':', 'x', 0x80, 0x00}
	rapid.Check(t, func(t *rapid.T) {
		str := func(label string, from []string) string {
			return strings.Join(rapid.SliceOfN(rapid.SampledFrom(from), 0, 8).Draw(t, label), "")
		}
		isPlain := rapid.Bool().Draw(t, "plain")
		from := alphabet
		if isPlain {
			from = plain
		}
		tok := ContinueToken{
			Version: rapid.SampledFrom([]string{ContinueVersion, "", str("version", from)}).Draw(t, "version"),
			RV:      rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{-1, 0, 1, math.MaxInt64, math.MinInt64})).Draw(t, "rv"),
			Start:   str("start", from),
		}
		data, err := json.Marshal(tok)
		if err != nil {
			t.Fatalf("json.Marshal(%+v): %v", tok, err)
		}
		mutated := rapid.IntRange(0, 3).Draw(t, "mutations")
		for range mutated {
			i := rapid.IntRange(0, len(data)-1).Draw(t, "at")
			b := rapid.SampledFrom(mutations).Draw(t, "byte")
			switch rapid.IntRange(0, 2).Draw(t, "edit") {
			case 0:
				data[i] = b
			case 1:
				data = slices.Insert(data, i, b)
			default:
				data = slices.Delete(data, i, i+1)
			}
		}
		got, ok := parseTokenJSON(data)
		if isPlain && mutated == 0 && !ok {
			t.Fatalf("parseTokenJSON(%s) declined a token the server makes", data)
		}
		if !ok {
			return
		}
		var raw continueToken
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("parseTokenJSON(%s) = %+v, want json.Unmarshal's error %v", data, got, err)
		}
		if diff := cmp.Diff(ContinueToken(raw), got); diff != "" {
			t.Fatalf("parseTokenJSON(%s) differs from json.Unmarshal (-want +got):\n%s", data, diff)
		}
	})
}
