package fakeapiserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// continueTokenVersion is the only token encoding kube-apiserver knows.
const continueTokenVersion = "meta.k8s.io/v1"

// Continue-token decoding errors, with kube-apiserver's texts
// (apiserver pkg/storage/continue.go); the handler prefixes
// "invalid continue token: " and answers 400.
var (
	errInvalidStartRV    = errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	errEmptyStartKey     = errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	errGenericInvalidKey = errors.New("continue key is not valid")
	errUnrecognizedToken = errors.New("continue key is not valid: server does not recognize this encoded version")
)

// continueToken is the JSON inside a continue token: the list's RV and the
// key to start after, relative to the list's key prefix, ending in NUL so it
// sorts right after the last returned key.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeContinue makes a token that resumes a list after lastKey (a store
// key under prefix) at rv. withSlash selects the watch-cache form of the
// start key ("/name\x00") rather than the etcd form ("name\x00"); the real
// server emits the first for pages and the second in the 410 of an expired
// token, and accepts both.
func encodeContinue(lastKey, prefix string, rv int64, withSlash bool) string {
	start := strings.TrimPrefix(lastKey, prefix) + "\x00"
	if withSlash {
		start = "/" + start
	}
	// json.Marshal of a struct of strings and ints cannot fail.
	data, _ := json.Marshal(continueToken{APIVersion: continueTokenVersion, ResourceVersion: rv, StartKey: start})
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeContinue returns the store key to start from (inclusive) and the
// token's RV: > 0 for a list pinned at that RV, < 0 for "continue at the
// latest RV" (the token of an expired-continue 410).
func decodeContinue(token, prefix string) (startKey string, rv int64, err error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errGenericInvalidKey, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, fmt.Errorf("%w: %v", errGenericInvalidKey, err)
	}
	if c.APIVersion != continueTokenVersion {
		return "", 0, fmt.Errorf("%w %v", errUnrecognizedToken, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, errInvalidStartRV
	}
	if c.StartKey == "" {
		return "", 0, errEmptyStartKey
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	// A start key must not climb out of the list's prefix.
	if cleaned := path.Clean(key); cleaned != key {
		return "", 0, fmt.Errorf("%w: %v", errGenericInvalidKey, c.StartKey)
	}
	return prefix + key[1:], c.ResourceVersion, nil
}
