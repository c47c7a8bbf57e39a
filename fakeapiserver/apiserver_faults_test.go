package fakeapiserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lw-sim/lw-sim/faults"
)

// TestAPIServerFaultsThroughInjector: each APIServer fault kind, added to
// the injector, changes the named instance and nothing else; a name the
// server has not is the fault's failure on record.
func TestAPIServerFaultsThroughInjector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		steps := []struct {
			fault faults.Fault
			want  APIServerStatus
		}{
			{faults.Fault{Kind: faults.LagAPIServer, APIServer: "apiserver-1", Lag: 3}, APIServerStatus{Lag: APIServerLag{Events: 3}}},
			{faults.Fault{Kind: faults.FreezeAPIServer, APIServer: "apiserver-1"}, APIServerStatus{Lag: APIServerLag{Events: 3}, Frozen: true}},
			{faults.Fault{Kind: faults.PartitionAPIServer, APIServer: "apiserver-1"}, APIServerStatus{Lag: APIServerLag{Events: 3}, Frozen: true, Partitioned: true}},
			{faults.Fault{Kind: faults.HealAPIServer, APIServer: "apiserver-1"}, APIServerStatus{Fresh: true}},
		}
		ignore := cmpopts.IgnoreFields(APIServerStatus{}, "Name", "CacheRV", "Served", "RestartRV")
		for _, st := range steps {
			b.srv.InjectFault(t, st.fault)
			got := b.srv.APIServers()
			if diff := cmp.Diff(st.want, got[1], ignore); diff != "" {
				t.Errorf("apiserver-1 after %s (-want +got):\n%s", st.fault.Kind, diff)
			}
			if !got[0].Fresh {
				t.Errorf("apiserver-0 after %s on apiserver-1 = %+v, want fresh", st.fault.Kind, got[0])
			}
		}
		rv := b.srv.store.CurrentRV()
		b.srv.InjectFault(t, faults.Fault{Kind: faults.RestartAPIServer, APIServer: "apiserver-1"})
		if got := b.srv.APIServers()[1].RestartRV; got != rv {
			t.Errorf("apiserver-1 RestartRV = %d, want %d", got, rv)
		}
		b.srv.InjectFault(t, faults.Fault{Kind: faults.FreezeAPIServer, APIServer: "apiserver-9"})
		recs := b.srv.Faults().Records()
		if last := recs[len(recs)-1]; !strings.Contains(last.Detail, "failed") {
			t.Errorf("record of a fault on an unknown instance = %+v, want a failure", last)
		}
	})
}

// TestAPIServerFaultsRefusedByProxyTargets: a target without instances
// refuses them as unsupported.
func TestAPIServerFaultsRefusedWithoutInstances(t *testing.T) {
	in := faults.New(faults.Config{Target: rvOnlyTarget{}})
	defer in.Close()
	_, err := in.Add(faults.Fault{Kind: faults.LagAPIServer, Lag: 1})
	if !errors.Is(err, faults.ErrUnsupported) {
		t.Errorf("Add(LagAPIServer) on a target without instances = %v, want ErrUnsupported", err)
	}
}

// rvOnlyTarget is a [faults.Target] with no apiserver instances.
type rvOnlyTarget struct{}

func (rvOnlyTarget) CurrentRV() int64    { return 1 }
func (rvOnlyTarget) Compact(int64) error { return nil }
func (rvOnlyTarget) Restart() error      { return nil }

// TestAPIServerFaultsThroughControlAPI: the control API takes them as JSON.
func TestAPIServerFaultsThroughControlAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin), WithConfig(func(c *Config) { c.ControlAPI = true }))
		body := `{"kind":"LagAPIServer","apiserver":"apiserver-1","delay":"5s"}`
		resp, err := b.http.Post(b.srv.URL()+"/_lwsim/faults", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST /_lwsim/faults %s = %d, want 201", body, resp.StatusCode)
		}
		if got := b.srv.APIServers()[1].Lag; got.Duration.String() != "5s" {
			t.Errorf("apiserver-1 lag = %+v, want 5s", got)
		}
	})
}
