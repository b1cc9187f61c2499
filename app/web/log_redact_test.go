package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"reviewd/app/web"
)

// TestDebugLogRedactsMailEventsCode: the request log line at debug level carries
// the route template, never the path with the mail-provider access code.
func TestDebugLogRedactsMailEventsCode(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	h := web.Base(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}), nil, nil)
	const code = "k7Qx9TopSecretAccessCode"
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/v1/mail-events/sendgrid/"+code, nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/v1/mail-events/generic", nil))

	out := buf.String()
	if strings.Contains(out, code) {
		t.Fatalf("access code in the log:\n%s", out)
	}
	if strings.Count(out, "msg=request") != 2 || strings.Contains(out, "/v1/mail-events") {
		t.Fatalf("want two request lines naming the route template, never the path:\n%s", out)
	}
}
