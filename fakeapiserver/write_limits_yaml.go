package fakeapiserver

import (
	"fmt"
	"math"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// A YAML body is at most 3 MiB, but its aliases can expand it without
// bound: one 1 MB string aliased 1 000 times is a 1 GB document. go-yaml
// refuses "excessive aliasing" only by the share of alias-made nodes, so a
// few aliases of a large node pass; kube-apiserver then converts the
// expanded document to JSON (twice under strict decoding) and decodes it,
// and an attack run drove the fake past 4 GB that way. The fake measures
// what a body's aliases expand to before anything expands them, on the
// parse tree (aliases are pointers there), and refuses a body that would
// outgrow what any alias-free body within the size limit can become.

const (
	// yamlExpandedBytesPerBodyByte bounds the JSON form of a YAML document
	// once its aliases are expanded, per byte of the body limit (3 MiB:
	// 24 MiB): more than any alias-free body within the limit becomes (a
	// flow map of one-character keys, "{<,>,…}", is 7 times larger as JSON,
	// "\u003c":null per 2 bytes).
	yamlExpandedBytesPerBodyByte = 8
	// yamlExpandedNodesPerBodyByte bounds the nodes of the expanded
	// document, each a value go-yaml allocates, per byte of the body limit
	// (3 MiB: 6 Mi nodes): more than an alias-free body within the limit
	// holds (a flow map "{a,b,…}" has one node per byte).
	yamlExpandedNodesPerBodyByte = 2
	// Alias-ratio limits of go-yaml v2 (go.yaml.in/yaml/v2 decode.go
	// alias_ratio_range_low, alias_ratio_range_high), which sigs.k8s.io/yaml
	// decodes with.
	yamlAliasRatioLow  = 400000
	yamlAliasRatioHigh = 4000000
	// saturated stands for any size past the bounds; sizes add up in
	// int64 without overflowing below it.
	saturated = math.MaxInt64 / 4
)

// checkYAMLBody bounds a body decoded as mediaType: a YAML body by
// checkYAMLExpansion, anything else is bounded by its size already.
func (s *Server) checkYAMLBody(mediaType string, body []byte) error {
	if mediaType != runtime.ContentTypeYAML && mediaType != string(types.ApplyYAMLPatchType) {
		return nil
	}
	return checkYAMLExpansion(body, s.cfg.MaxRequestBodyBytes)
}

// yamlSize is a parse-tree node's size once its aliases are expanded: the
// nodes go-yaml decodes and the bytes of its JSON form.
type yamlSize struct {
	nodes, bytes int64
}

// add is s + o, saturating.
func (s yamlSize) add(o yamlSize) yamlSize {
	return yamlSize{nodes: min(s.nodes+o.nodes, saturated), bytes: min(s.bytes+o.bytes, saturated)}
}

// checkYAMLExpansion returns the 413 of a YAML body whose aliases expand
// past the bounds for a server whose bodies are at most bodyLimit bytes
// (yamlExpandedBytesPerBodyByte, yamlExpandedNodesPerBodyByte). A body
// go-yaml v2 refuses by itself (excessive aliasing, an alias of its own
// anchor) or that does not parse is left to the decoder, which gives the
// real error after bounded work; so is any body within the bounds.
func checkYAMLExpansion(body []byte, bodyLimit int64) error {
	w, size, ok := measureYAML(body)
	if !ok || w.refusedByDecoder(w.root) {
		return nil
	}
	maxBytes, maxNodes := yamlExpandedBytesPerBodyByte*bodyLimit, yamlExpandedNodesPerBodyByte*bodyLimit
	if size.bytes <= maxBytes && size.nodes <= maxNodes {
		return nil
	}
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
		"YAML aliases expand the body past lw-sim's decoding limit of %d bytes and %d nodes", maxBytes, maxNodes))
}

// measureYAML parses body's first document into a tree whose aliases are
// pointers (go-yaml v3's Node) and measures it; ok is false when it does
// not parse or an alias lies inside its own anchor.
func measureYAML(body []byte) (*yamlWalk, yamlSize, bool) {
	w := &yamlWalk{root: &yamlv3.Node{}, memo: map[*yamlv3.Node]yamlSize{}, visiting: map[*yamlv3.Node]bool{}}
	if err := yamlv3.Unmarshal(body, w.root); err != nil {
		return nil, yamlSize{}, false
	}
	size, ok := w.size(w.root)
	return w, size, ok
}

// yamlWalk measures a parse tree, each node once.
type yamlWalk struct {
	root     *yamlv3.Node
	memo     map[*yamlv3.Node]yamlSize
	visiting map[*yamlv3.Node]bool
	// decodes and aliases are go-yaml v2's decodeCount and aliasCount
	// along refusedByDecoder's walk.
	decodes, aliases int64
}

// size is n's expanded size; ok is false for an alias inside its own
// anchor, which go-yaml refuses.
func (w *yamlWalk) size(n *yamlv3.Node) (yamlSize, bool) {
	if s, ok := w.memo[n]; ok {
		return s, true
	}
	if w.visiting[n] {
		return yamlSize{}, false
	}
	w.visiting[n] = true
	defer delete(w.visiting, n)
	s := yamlSize{nodes: 1, bytes: 3} // the node itself: brackets or quotes, and a separator
	switch n.Kind {
	case yamlv3.ScalarNode:
		s.bytes += max(jsonEscapedLen(n.Value), 2) // at least "null" once quoted
	case yamlv3.AliasNode:
		target, ok := w.size(n.Alias)
		if !ok {
			return yamlSize{}, false
		}
		s = yamlSize{nodes: 1}.add(target)
	default: // document, sequence, mapping
		for _, c := range n.Content {
			cs, ok := w.size(c)
			if !ok {
				return yamlSize{}, false
			}
			s = s.add(cs)
		}
	}
	w.memo[n] = s
	return s, true
}

// refusedByDecoder reports whether go-yaml v2 refuses the document as
// "excessive aliasing" (go.yaml.in/yaml/v2 decode.go unmarshal): it counts
// every node it decodes and, apart, those decoded inside an alias, and
// fails once more than 100 aliased of more than 1 000 nodes exceed a ratio
// that falls with the document's size. The walk is the decoder's, in its
// order, with each alias expansion taken whole from the memoised size:
// inside an expansion both counts grow by one a node, so the ratio peaks,
// and the allowed ratio bottoms, at its end, the one point to check.
func (w *yamlWalk) refusedByDecoder(n *yamlv3.Node) bool {
	w.decodes++
	if w.excessive() {
		return true
	}
	switch n.Kind {
	case yamlv3.AliasNode:
		s := w.memo[n.Alias]
		w.decodes, w.aliases = min(w.decodes+s.nodes, saturated), min(w.aliases+s.nodes, saturated)
		return w.excessive()
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if isMergeKey(n.Content[i]) {
				if w.mergeRefused(n.Content[i+1]) {
					return true
				}
				continue
			}
			if w.refusedByDecoder(n.Content[i]) || w.refusedByDecoder(n.Content[i+1]) {
				return true
			}
		}
	default:
		for _, c := range n.Content {
			if w.refusedByDecoder(c) {
				return true
			}
		}
	}
	return false
}

// mergeRefused walks a merge key's value as go-yaml's merge does: a
// sequence's items, not the sequence itself, each decoded (last first).
func (w *yamlWalk) mergeRefused(v *yamlv3.Node) bool {
	if v.Kind != yamlv3.SequenceNode {
		return w.refusedByDecoder(v)
	}
	for i := len(v.Content) - 1; i >= 0; i-- {
		if w.refusedByDecoder(v.Content[i]) {
			return true
		}
	}
	return false
}

// excessive is go-yaml v2's test of its counts.
func (w *yamlWalk) excessive() bool {
	return w.aliases > 100 && w.decodes > 1000 && float64(w.aliases)/float64(w.decodes) > allowedYAMLAliasRatio(w.decodes)
}

// allowedYAMLAliasRatio is go-yaml v2's allowedAliasRatio: 99% of small
// documents may come from aliases, 10% of large ones, linear in between.
func allowedYAMLAliasRatio(decodes int64) float64 {
	switch {
	case decodes <= yamlAliasRatioLow:
		return 0.99
	case decodes >= yamlAliasRatioHigh:
		return 0.10
	default:
		return 0.99 - 0.89*(float64(decodes-yamlAliasRatioLow)/float64(yamlAliasRatioHigh-yamlAliasRatioLow))
	}
}

// isMergeKey reports whether a mapping key is the merge key "<<".
func isMergeKey(k *yamlv3.Node) bool {
	return k.Kind == yamlv3.ScalarNode && k.ShortTag() == "!!merge"
}

// jsonEscapedLen is the length of s as encoding/json writes it: HTML
// characters and U+2028/U+2029 as \uXXXX, quotes, backslashes and
// control characters escaped, invalid UTF-8 as \ufffd.
func jsonEscapedLen(s string) int64 {
	var n int64
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '<' || c == '>' || c == '&' || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'):
			n, i = n+6, i+1
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n, i = n+2, i+1
		case c < utf8.RuneSelf:
			n, i = n+1, i+1
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				n += 6
			} else {
				n += int64(size)
			}
			i += size
		}
	}
	return n
}
