package scenariofile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// ErrFile is wrapped by every error of reading a scenario file.
var ErrFile = errors.New("scenarios: bad scenario file")

// Load reads the scenario file at path (see [Parse]).
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return Parse(path, b)
}

// Parse parses b, the contents of the scenario file path (named in
// errors), and validates it. Unknown fields are errors naming the file,
// the line and the field; so are values of the wrong type. A file with no
// name is named after its path.
func Parse(path string, b []byte) (*File, error) {
	if err := checkFields(path, b, &File{}); err != nil {
		return nil, err
	}
	f, err := decode(path, b)
	if err != nil {
		return nil, err
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if err := f.Validate(); err != nil {
		return nil, locate(path, b, err)
	}
	return f, nil
}

// decode decodes b strictly (duplicate keys and unknown fields are
// errors); a value of the wrong type is reported with its line.
func decode(path string, b []byte) (*File, error) {
	j, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			if line := fieldLine(b, strings.Split(te.Field, ".")); line > 0 {
				return nil, fmt.Errorf("%w: %s:%d: field %s: %s value, want %s", ErrFile, path, line, te.Field, te.Value, te.Type)
			}
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	return &f, nil
}
