// Package web is the HTTP plumbing shared by every surface: the handler adapter, the
// one error writer, the JSON reader and writer, middleware and request context. It
// imports app/core for error values and never holds business rules.
package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/store"
)

// H adapts an error-returning handler to http.Handler; failures go to Error.
type H func(w http.ResponseWriter, r *http.Request) error

func (h H) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		Error(w, r, err)
	}
}

// Error is the only code that picks an error status. *core.Error is written as it
// is; store.ErrNotFound becomes 404 not_found and store.ErrConflict 409 conflict;
// anything else is a 500 internal whose real text goes only to the log.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	var ce *core.Error
	switch {
	case errors.As(err, &ce):
	case errors.Is(err, store.ErrNotFound):
		ce = core.ErrNotFound
	case errors.Is(err, store.ErrConflict):
		ce = core.E(http.StatusConflict, "conflict", "")
	case errors.Is(err, context.Canceled):
		ce = core.E(499, "canceled", "")
	default:
		route := ""
		if cr := mux.CurrentRoute(r); cr != nil {
			route, _ = cr.GetPathTemplate()
		}
		slog.Error("request failed", "method", r.Method, "route", route, "request_id", RequestID(r.Context()), "err", err)
		ce = core.ErrInternal
	}
	if ce.Refusal {
		MarkRefused(r.Context())
	}
	body := map[string]any{"error": ce.Code, "detail": ce.Detail}
	for k, v := range ce.Extra {
		body[k] = v
	}
	if ce.Status == http.StatusMethodNotAllowed {
		if allow, ok := ce.Extra["allow"].(string); ok {
			w.Header().Set("Allow", allow)
			delete(body, "allow")
		}
	}
	_ = JSON(w, ce.Status, body)
}

// JSON writes v with status. It never fails the request after the header is sent.
func JSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
	return nil
}

// NoContent writes 204.
func NoContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Vars returns the path variables of the matched route.
func Vars(r *http.Request) map[string]string { return mux.Vars(r) }

// Query reads one query parameter and refuses unstorable characters in it
// (400 invalid / invalid).
func Query(r *http.Request, name string) (string, error) {
	v := r.URL.Query().Get(name)
	if !Storable(v) {
		return "", core.ErrQueryInvalid
	}
	return v, nil
}

// CheckQuery refuses a request whose query string carries an unstorable character in
// any parameter (400 invalid / invalid).
func CheckQuery(r *http.Request) error {
	for k, vs := range r.URL.Query() {
		if !Storable(k) {
			return core.ErrQueryInvalid
		}
		for _, v := range vs {
			if !Storable(v) {
				return core.ErrQueryInvalid
			}
		}
	}
	return nil
}

// Storable reports whether s is valid UTF-8 without NUL characters.
func Storable(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return false
	}
	return strings.ToValidUTF8(s, "\uFFFD") == s
}
