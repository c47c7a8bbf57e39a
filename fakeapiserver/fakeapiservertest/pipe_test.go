package fakeapiservertest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestPipeListenerServesHTTPOnVirtualTime serves a handler that waits an
// hour before answering: inside the bubble the hour passes at once, which
// only works because the pipe blocks durably.
func TestPipeListenerServesHTTPOnVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := NewPipeListener()
		hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Hour)
			_, _ = io.WriteString(w, "late")
		})}
		served := make(chan error, 1)
		go func() { served <- hs.Serve(ln) }()
		client := &http.Client{Transport: &http.Transport{DialContext: ln.DialContext}}
		start := time.Now()
		resp, err := client.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "late" || time.Since(start) != time.Hour {
			t.Errorf("GET = %q after %v, want %q after 1h", body, time.Since(start), "late")
		}
		client.CloseIdleConnections()
		if err := hs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve = %v, want http.ErrServerClosed", err)
		}
	})
}

// TestPipeListenerClosed checks the errors after Close.
func TestPipeListenerClosed(t *testing.T) {
	ln := NewPipeListener()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ln.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close = %v, want net.ErrClosed", err)
	}
	if _, err := ln.DialContext(context.Background(), "tcp", "x"); !errors.Is(err, net.ErrClosed) {
		t.Errorf("DialContext after Close = %v, want net.ErrClosed", err)
	}
}
