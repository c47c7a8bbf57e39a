package faults

import (
	"encoding/json"
	"io"
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
