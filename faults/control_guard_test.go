package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestControlRefusesBrowsers sends, through real HTTP, the requests a web
// page can make a browser send (a text/plain POST, a form POST, anything
// with a foreign Origin or Sec-Fetch-Site cross-site) and the ones tools
// send; only the latter may add a fault.
func TestControlRefusesBrowsers(t *testing.T) {
	t.Parallel()
	in, _, _ := newTestInjector(t)
	srv := httptest.NewServer(ControlHandler(in))
	defer srv.Close()
	const endWatch = `{"kind":"EndWatch"}`
	tests := []struct {
		name, method, contentType, body string
		header                          map[string]string
		wantCode                        int
		wantReason                      metav1.StatusReason
	}{
		{name: "text/plain POST", method: http.MethodPost, contentType: "text/plain", body: endWatch,
			wantCode: 415, wantReason: metav1.StatusReasonUnsupportedMediaType},
		{name: "form POST", method: http.MethodPost, contentType: "application/x-www-form-urlencoded", body: endWatch,
			wantCode: 415, wantReason: metav1.StatusReasonUnsupportedMediaType},
		{name: "no Content-Type", method: http.MethodPost, body: endWatch,
			wantCode: 415, wantReason: metav1.StatusReasonUnsupportedMediaType},
		{name: "foreign Origin", method: http.MethodPost, contentType: "application/json", body: endWatch,
			header: map[string]string{"Origin": "http://attacker.example"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "cross-site fetch", method: http.MethodPost, contentType: "application/json", body: endWatch,
			header: map[string]string{"Sec-Fetch-Site": "cross-site"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "cross-site fetch, capitalised", method: http.MethodPost, contentType: "application/json", body: endWatch,
			header: map[string]string{"Sec-Fetch-Site": "Cross-Site"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "same-site fetch, upper case", method: http.MethodGet,
			header: map[string]string{"Sec-Fetch-Site": "SAME-SITE"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "same-site fetch", method: http.MethodGet,
			header: map[string]string{"Sec-Fetch-Site": "same-site"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "foreign Origin DELETE", method: http.MethodDelete,
			header: map[string]string{"Origin": "null"}, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{name: "same origin", method: http.MethodPost, contentType: "application/json; charset=utf-8", body: endWatch,
			header: map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}, wantCode: 201},
		{name: "curl", method: http.MethodPost, contentType: "application/json", body: endWatch, wantCode: 201},
		{name: "curl DELETE", method: http.MethodDelete, wantCode: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+"/_lwsim/faults", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			before := len(in.Faults())
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("%s = %d %s, want %d", tt.name, resp.StatusCode, body, tt.wantCode)
			}
			if tt.wantReason == "" {
				return
			}
			if after := len(in.Faults()); after != before {
				t.Errorf("refused request changed the faults: %d, then %d", before, after)
			}
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil || st.Reason != tt.wantReason {
				t.Errorf("body %s: reason %q (err %v), want %q", body, st.Reason, err, tt.wantReason)
			}
		})
	}
}

// TestControlBodyTooLarge (issue 21): a body past the control API's 1 MiB
// is a 413 Status the client reads, even one of 10 MiB sent over a real
// connection (it was a 400, and the connection was reset before the
// client had sent it all); no fault is added.
func TestControlBodyTooLarge(t *testing.T) {
	t.Parallel()
	in, _, _ := newTestInjector(t)
	srv := httptest.NewServer(ControlHandler(in))
	defer srv.Close()
	for _, size := range []int{maxControlBody + 1, 10 << 20} {
		body := `{"kind":"EndWatch","match":{"verbs":["` + strings.Repeat("x", size) + `"]}}`
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/_lwsim/faults", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("POST of %d bytes: %v, want the 413", len(body), err)
		}
		var st metav1.Status
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || st.Reason != metav1.StatusReasonRequestEntityTooLarge {
			t.Errorf("POST of %d bytes = %d %+v (%v), want a 413 Status", len(body), resp.StatusCode, st, err)
		}
	}
	if n := len(in.Faults()); n != 0 {
		t.Errorf("faults after the refused POSTs = %d, want 0", n)
	}
}

// TestControlBodyTooLargeRawConnection: over a raw connection, a client
// writing a 10 MiB body to the end (as curl does, never reading before it
// has sent everything) completes its write and reads the 413: the server
// reads the rest before answering instead of closing under it.
func TestControlBodyTooLargeRawConnection(t *testing.T) {
	t.Parallel()
	in, _, _ := newTestInjector(t)
	srv := httptest.NewServer(ControlHandler(in))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := strings.Repeat(" ", 10<<20)
	head := fmt.Sprintf("POST /_lwsim/faults HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		srv.Listener.Addr(), len(body))
	if _, err := io.WriteString(conn, head+body); err != nil {
		t.Fatalf("writing the 10 MiB request: %v (the server closed the connection under it)", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("10 MiB POST = %d, want 413", resp.StatusCode)
	}
}
