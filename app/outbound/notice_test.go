package outbound

import (
	"net/http"
	"testing"
	"time"
)

// TestNoticeRequest: a notice is a JSON POST carrying the service's timestamp,
// event id and signature headers and the caller's limits.
func TestNoticeRequest(t *testing.T) {
	r := Notice{URL: "https://shop.example/hook", UserAgent: "service-webhook", Timestamp: "2026-06-01T10:00:00.000+00:00",
		EventID: "ev_1", Signature: "abc", Body: []byte(`{}`), Timeout: time.Second, MaxBytes: 10}.Request()
	if r.Method != http.MethodPost || r.URL != "https://shop.example/hook" || string(r.Body) != "{}" || r.Timeout != time.Second || r.MaxBytes != 10 {
		t.Fatalf("request %+v", r)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "service-webhook",
		"X-Service-Timestamp": "2026-06-01T10:00:00.000+00:00", "X-Service-Event-Id": "ev_1", "X-Service-Signature": "abc"} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// TestRetryable: server errors, 408 and 429 ask for a later attempt; other
// statuses do not.
func TestRetryable(t *testing.T) {
	for s, want := range map[int]bool{500: true, 503: true, 408: true, 429: true, 200: false, 400: false, 404: false, 410: false} {
		if Retryable(s) != want {
			t.Errorf("Retryable(%d) = %v", s, !want)
		}
	}
}
