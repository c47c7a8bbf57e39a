package kubewire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// ContinueVersion is the only continue-token encoding kube-apiserver knows.
const ContinueVersion = "meta.k8s.io/v1"

// Continue-token errors, with kube-apiserver's texts (apiserver
// pkg/storage/continue.go). A LIST handler prefixes "invalid continue
// token: " and answers 400.
var (
	ErrInvalidStartRV             = errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	ErrEmptyStartKey              = errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	ErrGenericInvalidKey          = errors.New("continue key is not valid")
	ErrUnrecognizedEncodedVersion = errors.New("continue key is not valid: server does not recognize this encoded version")
)

// ContinueToken is the JSON inside a continue token.
type ContinueToken struct {
	// Version is [ContinueVersion] in every token a server makes.
	Version string `json:"v"`
	// RV is the resourceVersion the list is pinned at, or -1 for "continue
	// at the latest RV" (the token in the 410 of an expired one).
	RV int64 `json:"rv"`
	// Start is the store key to start from, relative to the list's key
	// prefix: the last key returned followed by NUL, so it sorts right
	// after it. The watch cache writes it with a leading "/" and etcd
	// without; a server accepts both.
	Start string `json:"start"`
}

// continueToken is [ContinueToken] under the name of apiserver's own type
// (pkg/storage/continue.go), which a JSON type error quotes: "json: cannot
// unmarshal number 9223372036854775808 into Go struct field
// continueToken.rv of type int64".
type continueToken ContinueToken

// EncodeContinue is the token resuming a list at rv after the store key
// last, relative to prefix (storage.EncodeContinue of last+"\x00").
// withSlash selects the watch cache's form of the start key ("/name\x00"),
// which the real server emits in pages, over etcd's ("name\x00"), which it
// emits in the 410 of an expired token.
func EncodeContinue(last, prefix string, rv int64, withSlash bool) string {
	start := strings.TrimPrefix(last, prefix) + "\x00"
	if withSlash {
		start = "/" + start
	}
	return ContinueToken{Version: ContinueVersion, RV: rv, Start: start}.Encode()
}

// Encode is the token carrying c: unpadded URL-safe base64 of its JSON.
func (c ContinueToken) Encode() string {
	// json.Marshal of a struct of strings and ints cannot fail.
	data, _ := json.Marshal(c)
	return EncodeContinueJSON(data)
}

// EncodeContinueJSON is the token carrying data as is, for clients that
// need a token the server would not make (malformed JSON, another version).
func EncodeContinueJSON(data []byte) string {
	return base64.RawURLEncoding.EncodeToString(data)
}

// ParseContinue reads a token's JSON without judging its fields, for a
// client inspecting the tokens a server gave it. Its errors wrap
// [ErrGenericInvalidKey] with the server's text.
func ParseContinue(token string) (ContinueToken, error) {
	var c ContinueToken
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return c, fmt.Errorf("%w: %v", ErrGenericInvalidKey, err)
	}
	if c, ok := parseTokenJSON(data); ok {
		return c, nil
	}
	var raw continueToken
	if err := json.Unmarshal(data, &raw); err != nil {
		return c, fmt.Errorf("%w: %v", ErrGenericInvalidKey, err)
	}
	return ContinueToken(raw), nil
}

// parseTokenJSON reads data without encoding/json when it is a token's
// JSON as [ContinueToken.Encode] writes it: the fields v, rv and start in
// that order, no space, strings of printable ASCII other than quote and
// backslash, save the escape \u0000 (the NUL ending a start key), and an
// rv that fits an int64. ok is false for anything else, which
// json.Unmarshal reads (or rejects) instead; for what it accepts,
// json.Unmarshal would read the same token (TestParseTokenJSONMatchesJSON).
// A continued page reads its token on every request.
func parseTokenJSON(data []byte) (c ContinueToken, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"v":`))
	if !ok {
		return c, false
	}
	if c.Version, rest, ok = cutJSONString(rest); !ok {
		return c, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"rv":`)); !ok {
		return c, false
	}
	n := 0
	if n < len(rest) && rest[n] == '-' {
		n++
	}
	digits := n
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	// JSON has no leading zeros; ParseInt fails past int64.
	if n == digits || (rest[digits] == '0' && n > digits+1) {
		return c, false
	}
	rv, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	if err != nil {
		return c, false
	}
	c.RV = rv
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"start":`)); !ok {
		return c, false
	}
	if c.Start, rest, ok = cutJSONString(rest); !ok {
		return c, false
	}
	return c, string(rest) == "}"
}

// cutJSONString reads the JSON string data starts with, if it holds only
// what parseTokenJSON accepts, and returns it and what follows it.
func cutJSONString(data []byte) (s string, rest []byte, ok bool) {
	if len(data) == 0 || data[0] != '"' {
		return "", nil, false
	}
	var unescaped []byte // nil until the first escape
	for i := 1; i < len(data); i++ {
		switch ch := data[i]; {
		case ch == '"':
			if unescaped == nil {
				return string(data[1:i]), data[i+1:], true
			}
			return string(unescaped), data[i+1:], true
		case ch == '\\':
			if !bytes.HasPrefix(data[i:], []byte(`\u0000`)) {
				return "", nil, false
			}
			if unescaped == nil {
				unescaped = append(make([]byte, 0, len(data)), data[1:i]...)
			}
			unescaped = append(unescaped, 0)
			i += len(`\u0000`) - 1
		case ch < 0x20 || ch > 0x7e:
			return "", nil, false
		case unescaped != nil:
			unescaped = append(unescaped, ch)
		}
	}
	return "", nil, false
}

// DecodeContinue is the server's reading of a token for a list under the
// store key prefix (storage.DecodeContinue): the key to start from
// (inclusive) and the token's RV, or one of the errors above, worded as
// kube-apiserver words them.
func DecodeContinue(token, prefix string) (fromKey string, rv int64, err error) {
	c, err := ParseContinue(token)
	if err != nil {
		return "", 0, err
	}
	if c.Version != ContinueVersion {
		return "", 0, fmt.Errorf("%w %v", ErrUnrecognizedEncodedVersion, c.Version)
	}
	if c.RV == 0 {
		return "", 0, ErrInvalidStartRV
	}
	if c.Start == "" {
		return "", 0, ErrEmptyStartKey
	}
	key := c.Start
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	// A start key must not climb out of the list's prefix ("/../x").
	if path.Clean(key) != key {
		return "", 0, fmt.Errorf("%w: %v", ErrGenericInvalidKey, c.Start)
	}
	return prefix + key[1:], c.RV, nil
}
