package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompareOnFake runs every workload, small, against a fake and checks
// the table: each row has a positive value, and the pagers saw every page.
func TestCompareOnFake(t *testing.T) {
	f := startFake(t)
	opts := Options{Pods: 45, PageSize: 10, Workers: 3, Watchers: 4, Writes: 7, Rounds: 1}
	res, err := Compare(t.Context(), []Target{f.Target, f.Target}, "cmp", opts)
	if err == nil {
		t.Fatal("a second run in the same namespace succeeded; want its namespace create refused")
	}
	res, err = Compare(t.Context(), []Target{f.Target}, "cmp2", opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Rows {
		names = append(names, r.Workload)
		if r.Values[0] <= 0 {
			t.Errorf("%s = %v, want > 0", r.Workload, r.Values[0])
		}
	}
	want := []string{
		"create pod (creates/s)",
		"paged LIST raw json (MB/s)", "paged LIST raw json (bytes/page)", "paged LIST raw json (ms/page)",
		"paged LIST raw protobuf (MB/s)", "paged LIST raw protobuf (bytes/page)", "paged LIST raw protobuf (ms/page)",
		"paged LIST raw protobuf gzip (ms/page)",
		"paged LIST client-go protobuf (ms/page)", "paged LIST client-go protobuf, no gzip (ms/page)",
		"client-go decode of the same page (ms/page)", "client-go LIST ÷ its decode (×)", "client-go LIST, no gzip, ÷ its decode (×)",
		"client-go LIST replayed from memory ÷ its decode (×)", "client-go LIST replayed from memory, no gzip, ÷ its decode (×)",
		"client-go LIST replayed over loopback ÷ its decode (×)", "client-go LIST replayed over loopback, no gzip, ÷ its decode (×)",
		"watch fan-out 4×7 (events/s)",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
	var out strings.Builder
	if err := res.Print(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "fake") {
		t.Errorf("table has no fake column:\n%s", out.String())
	}
}

// TestRawPagerSeesEveryPage checks that the continue token is read out of
// raw JSON and protobuf bodies: 45 pods in pages of 10 are 5 pages.
func TestRawPagerSeesEveryPage(t *testing.T) {
	_, c := startFakeWithPods(t, "p", 45)
	for _, mt := range []string{jsonType, protobufType} {
		st, err := listRaw(t.Context(), c, "p", mt, 10, true)
		if err != nil {
			t.Fatalf("%s: %v", mt, err)
		}
		if st.Pages != 5 {
			t.Errorf("%s: %d pages, want 5", mt, st.Pages)
		}
	}
}

// startFakeWithPods starts a fake with n pods in namespace ns and returns
// it with its clients.
func startFakeWithPods(t *testing.T, ns string, n int) (*Fake, *clients) {
	t.Helper()
	f := startFake(t)
	c, err := newClients(f.Target)
	if err != nil {
		t.Fatal(err)
	}
	if err := createNamespace(t.Context(), c.cs, ns); err != nil {
		t.Fatal(err)
	}
	if _, err := createPods(t.Context(), c.cs, ns, 0, n, 2); err != nil {
		t.Fatal(err)
	}
	return f, c
}

// startFake starts a fake that the test's cleanup closes.
func startFake(t *testing.T) *Fake {
	t.Helper()
	f, err := StartFake()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return f
}
