package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// Media types the LIST workloads ask for.
const (
	jsonType     = "application/json"
	protobufType = "application/vnd.kubernetes.protobuf"
)

// ListStats is what one paged traversal of a namespace's pods cost.
type ListStats struct {
	Pages   int
	Bytes   int64
	Elapsed time.Duration
	// Bodies holds each page's body when the traversal kept them.
	Bodies [][]byte
}

// PerPage is the time per page.
func (s ListStats) PerPage() time.Duration {
	if s.Pages == 0 {
		return 0
	}
	return s.Elapsed / time.Duration(s.Pages)
}

// MBPerSecond is the body bytes served per second, in MB (10^6).
func (s ListStats) MBPerSecond() float64 {
	return float64(s.Bytes) / 1e6 / s.Elapsed.Seconds()
}

// listRaw pages through the pods of ns with limit-sized pages in media
// type mt, reading each body as bytes and decoding nothing but the
// continue token: the server's cost, as far as a client can see it. Every
// page is read into one buffer, so the client allocates nothing per page
// (the server and this client share a process and its collector, and a
// client's garbage would make the collector scan the server's heap); keep
// keeps a copy of each body.
func listRaw(ctx context.Context, c *clients, ns, mt string, limit int, keep bool) (ListStats, error) {
	var st ListStats
	var buf bytes.Buffer
	cont := ""
	start := time.Now()
	for {
		body, err := getPage(ctx, c, ns, mt, limit, cont, &buf)
		if err != nil {
			return st, err
		}
		st.Pages++
		st.Bytes += int64(len(body))
		if keep {
			st.Bodies = append(st.Bodies, bytes.Clone(body))
		}
		if cont, err = continueOf(body, mt); err != nil {
			return st, err
		}
		if cont == "" {
			break
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// getPage GETs one page of ns's pods into buf (reset first) and returns
// its bytes, valid until buf is used again.
func getPage(ctx context.Context, c *clients, ns, mt string, limit int, cont string, buf *bytes.Buffer) ([]byte, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if cont != "" {
		q.Set("continue", cont)
	}
	resp, err := c.get(ctx, "/api/v1/namespaces/"+ns+"/pods?"+q.Encode(), mt)
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	defer resp.Body.Close()
	buf.Reset()
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("list pods: read body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list pods: %s: %.200s", resp.Status, buf.Bytes())
	}
	return buf.Bytes(), nil
}

// continueOf reads metadata.continue from a list body without decoding
// the items.
func continueOf(body []byte, mt string) (string, error) {
	if mt == protobufType {
		return protobufContinue(body)
	}
	return jsonContinue(body)
}

// jsonContinue finds "continue" in a typed list's JSON, whose metadata
// comes before its items.
func jsonContinue(body []byte) (string, error) {
	i := bytes.Index(body, []byte(`"items":`))
	if i < 0 {
		return "", errors.New("list body has no items")
	}
	head := body[:i]
	const key = `"continue":"`
	j := bytes.Index(head, []byte(key))
	if j < 0 {
		return "", nil
	}
	rest := head[j+len(key):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", errors.New("unterminated continue token")
	}
	return string(rest[:end]), nil
}

// protobufContinue reads the continue token out of the k8s protobuf
// envelope: magic, runtime.Unknown (field 2 raw) → list (field 1
// metadata) → ListMeta (field 3 continue).
func protobufContinue(body []byte) (string, error) {
	const magic = "k8s\x00"
	if !bytes.HasPrefix(body, []byte(magic)) {
		return "", errors.New("protobuf body without the k8s magic")
	}
	raw, err := protoField(body[len(magic):], 2)
	if err != nil {
		return "", fmt.Errorf("unknown.raw: %w", err)
	}
	lm, err := protoField(raw, 1)
	if err != nil {
		return "", fmt.Errorf("list.metadata: %w", err)
	}
	cont, err := protoField(lm, 3)
	if err != nil {
		return "", nil // no continue token
	}
	return string(cont), nil
}

// protoField returns the first length-delimited field num of a protobuf
// message.
func protoField(b []byte, num uint64) ([]byte, error) {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad tag")
		}
		b = b[n:]
		switch tag & 7 {
		case 0: // varint
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return nil, errors.New("bad varint")
			}
			b = b[n:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, errors.New("bad length")
			}
			if tag>>3 == num {
				return b[n : n+int(l)], nil
			}
			b = b[n+int(l):]
		default:
			return nil, fmt.Errorf("wire type %d not expected", tag&7)
		}
	}
	return nil, fmt.Errorf("field %d not found", num)
}

// identityClient is hc asking for Accept-Encoding: identity on every
// request. Go's transport adds gzip, and decompresses, only when a request
// has no Accept-Encoding of its own; rest.Config.DisableCompression does
// not reach the default transport client-go uses for plain HTTP.
func identityClient(hc *http.Client) *http.Client {
	plain := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	plain.Transport = identityTransport{next: next}
	return &plain
}

// identityTransport sets Accept-Encoding: identity on a copy of each
// request.
type identityTransport struct{ next http.RoundTripper }

func (t identityTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Accept-Encoding", "identity")
	return t.next.RoundTrip(req)
}

// listClientGo pages through the pods of ns with the typed clientset
// (protobuf), decoding every page as an informer's pager does.
func listClientGo(ctx context.Context, c *clients, ns string, limit int) (ListStats, error) {
	return listWith(ctx, c.cs, ns, limit)
}

// listClientGoPlain is listClientGo asking for uncompressed bodies.
func listClientGoPlain(ctx context.Context, c *clients, ns string, limit int) (ListStats, error) {
	return listWith(ctx, c.csPlain, ns, limit)
}

// listWith pages through the pods of ns with cs.
func listWith(ctx context.Context, cs kubernetes.Interface, ns string, limit int) (ListStats, error) {
	var st ListStats
	opts := metav1.ListOptions{Limit: int64(limit)}
	start := time.Now()
	for {
		l, err := cs.CoreV1().Pods(ns).List(ctx, opts)
		if err != nil {
			return st, fmt.Errorf("list pods through client-go: %w", err)
		}
		st.Pages++
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// decodeProtobuf decodes protobuf page bodies with client-go's own
// decoder, as the typed client does with a response, and returns the time
// that took: the floor under any LIST through client-go.
func decodeProtobuf(bodies [][]byte) (time.Duration, error) {
	codecs := scheme.Codecs.WithoutConversion()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), protobufType)
	if !ok {
		return 0, errors.New("client-go has no protobuf serializer")
	}
	dec := codecs.DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	start := time.Now()
	for _, b := range bodies {
		if _, _, err := dec.Decode(b, nil, &corev1.PodList{}); err != nil {
			return 0, fmt.Errorf("decode page: %w", err)
		}
	}
	return time.Since(start), nil
}

// measureClientGo measures client-go's paged LIST of ns's pods against
// client-go's decode of the same pages, opts.Rounds times after a warm-up.
// Each round runs a traversal as client-go does by default (asking for
// gzip), one asking for identity, the same two replayed from memory with
// no server (replay.go: client-go's own floor), and the decode of a raw
// traversal's bodies, back to back, so a change in the machine's load
// hits them alike; a row is the median round, and the quotients are the
// medians of each round's own quotient, not quotients of medians taken
// from different rounds.
func measureClientGo(ctx context.Context, c *clients, ns string, opts Options) ([]Measurement, error) {
	raw, err := listRaw(ctx, c, ns, protobufType, opts.PageSize, true)
	if err != nil {
		return nil, err
	}
	if _, err := listClientGo(ctx, c, ns, opts.PageSize); err != nil { // warm-up
		return nil, err
	}
	replays, err := newReplaySet(ctx, c, ns, opts.PageSize)
	if err != nil {
		return nil, err
	}
	defer replays.Close()
	traversals := []kubernetes.Interface{c.cs, c.csPlain, replays.memoryZipped, replays.memoryPlain, replays.wireZipped, replays.wirePlain}
	perPage := make([][]float64, len(traversals)) // ms/page, per traversal
	ratio := make([][]float64, len(traversals))   // ÷ the round's decode
	var dec []float64
	for range opts.Rounds {
		var st []ListStats
		for _, cs := range traversals {
			var s ListStats
			if err := collected(func() (err error) { s, err = listWith(ctx, cs, ns, opts.PageSize); return err }); err != nil {
				return nil, err
			}
			st = append(st, s)
		}
		var d time.Duration
		if err := collected(func() (err error) { d, err = decodeProtobuf(raw.Bodies); return err }); err != nil {
			return nil, err
		}
		dPage := d / time.Duration(len(raw.Bodies))
		dec = append(dec, ms(dPage))
		for i, s := range st {
			perPage[i] = append(perPage[i], ms(s.PerPage()))
			ratio[i] = append(ratio[i], float64(s.PerPage())/float64(dPage))
		}
	}
	return []Measurement{
		{Workload: "paged LIST client-go protobuf (ms/page)", Value: median(perPage[0])},
		{Workload: "paged LIST client-go protobuf, no gzip (ms/page)", Value: median(perPage[1])},
		{Workload: "client-go decode of the same page (ms/page)", Value: median(dec)},
		{Workload: "client-go LIST ÷ its decode (×)", Value: median(ratio[0])},
		{Workload: "client-go LIST, no gzip, ÷ its decode (×)", Value: median(ratio[1])},
		{Workload: "client-go LIST replayed from memory ÷ its decode (×)", Value: median(ratio[2])},
		{Workload: "client-go LIST replayed from memory, no gzip, ÷ its decode (×)", Value: median(ratio[3])},
		{Workload: "client-go LIST replayed over loopback ÷ its decode (×)", Value: median(ratio[4])},
		{Workload: "client-go LIST replayed over loopback, no gzip, ÷ its decode (×)", Value: median(ratio[5])},
	}, nil
}

// median is the middle value of vs (the mean of the two middle ones for an
// even count); vs is sorted in place.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}
