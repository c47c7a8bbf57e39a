package fakeapiserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// requestPeakRSSBound is the most one request may raise the server's peak
// RSS by: the bound README.md and conformance/DIVERGENCES.md document for
// any body within the 3 MiB limit, aliased or not (write_limits_yaml.go).
const requestPeakRSSBound = 384 << 20

// memoryCase is one request TestRequestMemory sends.
type memoryCase struct {
	name, method, path, contentType string
	body                            []byte
	// wantCode is the answer's code; 0 when it does not matter (a body
	// of a million keys may or may not fit etcd with its managedFields).
	wantCode int
}

// TestRequestMemory (`make load`, not part of `make test`) sends the
// costliest bodies a client can send (issue 21's alias amplification, the
// largest bodies JSON, YAML and protobuf decode, patches of every type)
// one at a time to a server in a child process, and checks that none
// raises the server's peak RSS (VmHWM, reset before each request) by more
// than requestPeakRSSBound above its RSS before the request.
func TestRequestMemory(t *testing.T) {
	if os.Getenv("LWSIM_LOAD_MEMORY") == "" {
		t.Skip("set LWSIM_LOAD_MEMORY=1 (make load)")
	}
	child := startLoadServer(t)
	hc := &http.Client{}
	seed := memoryCase{method: http.MethodPost, path: cmPath, contentType: "application/json",
		body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"}}`), wantCode: http.StatusCreated}
	if code := sendMemoryCase(t, hc, child.url, seed); code != seed.wantCode {
		t.Fatalf("seed: %d", code)
	}
	gen := time.Now()
	cases := memoryCases(t)
	t.Logf("bodies built in %v", time.Since(gen).Round(time.Millisecond))
	for _, c := range cases {
		before := child.resetPeak(t)
		start := time.Now()
		code := sendMemoryCase(t, hc, child.url, c)
		took := time.Since(start)
		peak := child.peak(t)
		delta := peak - min(before, peak)
		t.Logf("%-60s %d in %6.2fs  RSS %5.1f MiB, peak %5.1f MiB: +%5.1f MiB", c.name, code, took.Seconds(), mib(before), mib(peak), mib(delta))
		if c.wantCode != 0 && code != c.wantCode {
			t.Errorf("%s: code %d, want %d", c.name, code, c.wantCode)
		}
		if delta > requestPeakRSSBound {
			t.Errorf("%s raised the peak RSS by %.1f MiB, past the bound of %.0f MiB", c.name, mib(delta), mib(requestPeakRSSBound))
		}
	}
}

// memoryCases are the costliest requests per decoder and patch type. The
// bodies of many data keys are 1 MiB, not 3: managedFields of a map of n
// keys take structured-merge-diff O(n²) time to compute (sorted-slice
// inserts), on kube-apiserver too, 6 s for 100 000 keys, 100 s for 300 000.
func memoryCases(t *testing.T) []memoryCase {
	const limit = defaultMaxRequestBodyBytes - 1024
	const keysLimit = 1 << 20
	cm := func(name, rest string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}` + rest + `}`
	}
	yml := "application/yaml"
	return []memoryCase{
		{"YAML: 1 MB string aliased 1 000 times (issue 21)", http.MethodPost, cmPath, yml,
			[]byte(strings.Replace(string(aliasedString(1<<20, 1000)), "amp", "m1", 1)), http.StatusRequestEntityTooLarge},
		{"YAML: 1 MB string aliased 22 times (the 24 MiB bound)", http.MethodPost, cmPath, yml,
			[]byte(strings.Replace(string(aliasedString(1<<20, 22)), "amp", "m2", 1)), http.StatusCreated},
		{"YAML: 3 MiB flow map of escaped keys, no alias", http.MethodPost, cmPath, yml,
			[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m3\nx: {" + distinctKeys(limit-100) + "}\n"), http.StatusCreated},
		{"JSON: 3 MiB array of zeros in an unknown field", http.MethodPost, cmPath, "application/json",
			[]byte(cm("m4", `,"x":[`+strings.Repeat("0,", limit/2-100)+`0]`)), http.StatusCreated},
		{"JSON: 1 MiB of data keys", http.MethodPost, cmPath, "application/json",
			[]byte(cm("m5", `,"data":{`+manyDataKeys(keysLimit)+`}`)), 0},
		{"protobuf: 1 MiB of data keys", http.MethodPost, cmPath, "application/vnd.kubernetes.protobuf",
			protobufConfigMap(t, "m6", keysLimit), 0},
		{"merge patch: 1 MiB of data keys", http.MethodPatch, cmPath + "/target", "application/merge-patch+json",
			[]byte(`{"data":{` + manyDataKeys(keysLimit) + `}}`), 0},
		{"strategic merge patch: 1 MiB of data keys", http.MethodPatch, cmPath + "/target", "application/strategic-merge-patch+json",
			[]byte(`{"data":{` + manyDataKeys(keysLimit) + `}}`), 0},
		{"JSON patch: copies doubling a value (the 3 MiB copy limit)", http.MethodPatch, cmPath + "/target", "application/json-patch+json",
			doublingCopies(), http.StatusUnprocessableEntity},
		{"apply: 1 MiB of data keys", http.MethodPatch, cmPath + "/target?fieldManager=m", "application/apply-patch+yaml",
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"data":{` + manyDataKeys(keysLimit) + `}}`),
			0},
	}
}

// manyDataKeys is a JSON object's members of about n bytes: short keys
// with empty values.
func manyDataKeys(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n-16; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strconv.FormatInt(int64(i), 36) + `":""`)
	}
	return b.String()
}

// protobufConfigMap is a ConfigMap of about n bytes in protobuf.
func protobufConfigMap(t *testing.T, name string, n int) []byte {
	t.Helper()
	obj := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{}}
	// Keys are added in batches, the size measured after each: Size walks
	// the whole map.
	for i := 0; obj.Size() < n-4096; {
		for end := i + 256; i < end; i++ {
			obj.Data[strconv.FormatInt(int64(i), 36)] = ""
		}
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// doublingCopies is a JSON patch whose copies double a value until the
// accumulated copies pass the 3 MiB limit (2 KB of patch for 64 MiB).
func doublingCopies() []byte {
	ops := []string{`{"op":"add","path":"/data","value":{"a":"` + strings.Repeat("x", 1024) + `"}}`}
	for i := range 16 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i))
	}
	return []byte("[" + strings.Join(ops, ",") + "]")
}

// sendMemoryCase sends c and returns the answer's code, reading it whole.
func sendMemoryCase(t *testing.T, hc *http.Client, base string, c memoryCase) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", c.contentType)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// resetPeak has the child collect garbage, return it to the OS and reset
// its peak RSS; it returns the child's RSS after.
func (ls *loadServer) resetPeak(t *testing.T) uint64 { return ls.ask(t, "reset", "RESET") }

// peak is the child's peak RSS since the last resetPeak.
func (ls *loadServer) peak(t *testing.T) uint64 { return ls.ask(t, "peak", "PEAK") }

// ask sends the child a command and reads its one-number answer.
func (ls *loadServer) ask(t *testing.T, cmd, answer string) uint64 {
	t.Helper()
	if _, err := io.WriteString(ls.in, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	for ls.out.Scan() {
		if v, ok := strings.CutPrefix(ls.out.Text(), answer+" "); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("load server: no %s: %v", answer, ls.out.Err())
	return 0
}

// servePeakCommand answers, in the child, TestRequestMemory's commands:
// "reset" (collect garbage, return it to the OS, reset the peak RSS by
// writing 5 to /proc/self/clear_refs; print the RSS) and "peak" (print
// VmHWM). It reports whether cmd was one of them.
func servePeakCommand(t *testing.T, cmd string) bool {
	switch cmd {
	case "reset":
		runtime.GC()
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Fatalf("reset the peak RSS: %v", err)
		}
		fmt.Printf("RESET %d\n", rssBytes(t))
	case "peak":
		fmt.Printf("PEAK %d\n", procStatusBytes(t, "VmHWM:"))
	default:
		return false
	}
	return true
}

// procStatusBytes is a kB field of /proc/self/status, in bytes.
func procStatusBytes(t *testing.T, field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
