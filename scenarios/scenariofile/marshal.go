package scenariofile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// Marshal renders f as YAML after header (comment lines; "# " is added
// to each): fields in the schema's order, unset ones left out, a mapping
// or list of plain values on one line ({name: a}). [Parse] reads what
// Marshal writes back equal.
func (f *File) Marshal(header string) ([]byte, error) {
	// JSON first, so the json tags (names, omitempty, the faults' own
	// JSON forms) decide what is written; JSON is YAML, and the node tree
	// keeps its order.
	j, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(j, &doc); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	restyle(&doc, false)
	var out bytes.Buffer
	for line := range strings.Lines(header) {
		out.WriteString(strings.TrimRight("# "+strings.TrimRight(line, "\n"), " ") + "\n")
	}
	enc := yamlv3.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return out.Bytes(), nil
}

// restyle replaces the JSON styles of n's tree (flow everywhere, every
// string double-quoted) with YAML's: block collections, except those of
// scalars only, which stay on one line ({name: a}), unless a one-entry
// mapping in a list ("- advance: 1m"); scalars plain unless they need
// quotes (the encoder quotes "1" or "true" as strings by itself).
func restyle(n *yamlv3.Node, inList bool) {
	switch n.Kind {
	case yamlv3.ScalarNode:
		n.Style = 0
		return
	case yamlv3.MappingNode, yamlv3.SequenceNode:
		n.Style = yamlv3.FlowStyle
		for _, c := range n.Content {
			if c.Kind != yamlv3.ScalarNode || strings.Contains(c.Value, "\n") {
				n.Style = 0
			}
		}
		if n.Kind == yamlv3.MappingNode && inList && len(n.Content) == 2 {
			n.Style = 0
		}
	}
	for _, c := range n.Content {
		restyle(c, n.Kind == yamlv3.SequenceNode)
	}
}
