package scenariofile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// pathError is a validation error at a place in the file. Its message
// names the place as a reader of the file does ("timeline[6] (watch): no
// id"); where is the place's path in the YAML tree ("timeline[6]",
// "timeline[3].pager.between[1]", "clients[0]"), so that [Parse] can put
// the file's line in front of it.
type pathError struct {
	where string
	err   error
}

func (e *pathError) Error() string { return e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// located is err at the YAML path where; the path of a pathError inside
// err (a step inside a pager) is appended to where.
func located(where string, err error) error {
	var inner *pathError
	if errors.As(err, &inner) {
		where += "." + inner.where
	}
	return &pathError{where: where, err: err}
}

// locate is err with "file:line: " in front when err is a pathError whose
// place is found in b; other errors get "file: ".
func locate(path string, b []byte, err error) error {
	var pe *pathError
	if errors.As(err, &pe) {
		if line := pathLine(b, pe.where); line > 0 {
			return fmt.Errorf("%w: %s:%d: %w", ErrFile, path, line, err)
		}
	}
	return fmt.Errorf("%w: %s: %w", ErrFile, path, err)
}

// Errorf is an error of the file path (whose contents are b) about the
// value at where, a place in its YAML tree ("answers[2]", "timeline[6]",
// "timeline[3].pager.between[1]"): it wraps ErrFile and names the file and
// the value's line, as the loader's own errors do. Package scenarios uses
// it for what only it can check (question ids).
func Errorf(path string, b []byte, where, format string, args ...any) error {
	return locate(path, b, located(where, fmt.Errorf(format, args...)))
}

// pathLine is the line of the node at a pathError's place in the YAML b
// ("timeline[6].fault"), or 0 when the place is not in it.
func pathLine(b []byte, place string) int {
	var root yamlv3.Node
	if yamlv3.Unmarshal(b, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	n := root.Content[0]
	for _, part := range strings.Split(place, ".") {
		name, index, _ := strings.Cut(part, "[")
		if n = mappingValue(n, name); n == nil {
			return 0
		}
		for index != "" {
			var i string
			i, index, _ = strings.Cut(index, "]")
			index = strings.TrimPrefix(index, "[")
			k, err := strconv.Atoi(i)
			if n.Kind == yamlv3.AliasNode {
				n = n.Alias
			}
			if err != nil || n.Kind != yamlv3.SequenceNode || k >= len(n.Content) {
				return 0
			}
			n = n.Content[k]
		}
	}
	return n.Line
}

// mappingValue is the value of key name in the mapping n (n itself for an
// empty name), or nil.
func mappingValue(n *yamlv3.Node, name string) *yamlv3.Node {
	if name == "" {
		return n
	}
	if n.Kind == yamlv3.AliasNode {
		n = n.Alias
	}
	if n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i+1]
		}
	}
	return nil
}
