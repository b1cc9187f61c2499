package outbound

import (
	"net/http"
	"time"
)

// Notice is one signed JSON notice to a store server (the notice protocol of the
// own-system sending route): a POST with the service's timestamp, event id and
// signature headers.
type Notice struct {
	URL       string
	UserAgent string
	// Timestamp, EventID and Signature are the X-Service-Timestamp,
	// X-Service-Event-Id and X-Service-Signature headers.
	Timestamp string
	EventID   string
	Signature string
	Body      []byte
	Timeout   time.Duration
	MaxBytes  int64
}

// Request is the outbound call of n.
func (n Notice) Request() Request {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", n.UserAgent)
	h.Set("X-Service-Timestamp", n.Timestamp)
	h.Set("X-Service-Event-Id", n.EventID)
	h.Set("X-Service-Signature", n.Signature)
	return Request{Method: http.MethodPost, URL: n.URL, Header: h, Body: n.Body, Timeout: n.Timeout, MaxBytes: n.MaxBytes}
}

// Retryable tells whether a receiver's answer status asks for a later attempt: a
// server error, 408 or 429. Other statuses outside 2xx are final.
func Retryable(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}
