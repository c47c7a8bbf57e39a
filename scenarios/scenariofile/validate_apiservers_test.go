package scenariofile

import (
	"strings"
	"testing"
)

// TestValidateAPIServers: a route must name one of the file's instances.
func TestValidateAPIServers(t *testing.T) {
	tests := []struct {
		name    string
		a       APIServers
		wantErr string
	}{
		{name: "none", a: APIServers{}},
		{name: "two, routed", a: APIServers{Count: 2, Routes: map[string]string{"scenario": "apiserver-0", "stale": "apiserver-1"}}},
		{name: "route past the count", a: APIServers{Count: 2, Routes: map[string]string{"stale": "apiserver-2"}}, wantErr: `routes["stale"]: "apiserver-2" is not one of apiserver-0 to apiserver-1`},
		{name: "negative count", a: APIServers{Count: -1}, wantErr: "count -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Version: Version, APIServers: tt.a}
			err := f.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
