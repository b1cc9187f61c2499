// Package core holds reviewd's domain rules: validation, state changes and
// permissions. It calls store and never imports net/http; HTTP surfaces turn its
// *Error values into responses with app/web.
package core

import "fmt"

// Status codes of the errors: the HTTP status a surface answers with.
const (
	StatusOK                    = 200
	StatusBadRequest            = 400
	StatusUnauthorized          = 401
	StatusForbidden             = 403
	StatusNotFound              = 404
	StatusMethodNotAllowed      = 405
	StatusConflict              = 409
	StatusRequestEntityTooLarge = 413
	StatusTooManyRequests       = 429
	StatusInternalServerError   = 500
	StatusBadGateway            = 502
)

// Error is a failure a client sees: an HTTP status and the spec's error and detail
// codes. Detail may carry a value after a colon ("field_too_long: title").
type Error struct {
	Status int
	Code   string
	Detail string
	// Extra fields merged into the error body (rarely used, for example path and
	// token on proof_refused).
	Extra map[string]any
	// Refusal marks a refused credential or unreadable body; those count toward the
	// per-IP refusal limit.
	Refusal bool
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s / %s", e.Status, e.Code, e.Detail) }

// E builds an error; an empty detail repeats the code.
func E(status int, code, detail string) *Error {
	if detail == "" {
		detail = code
	}
	return &Error{Status: status, Code: code, Detail: detail}
}

// AsRefusal returns a copy of e that counts toward the per-IP refusal limit.
func (e *Error) AsRefusal() *Error {
	c := *e
	c.Refusal = true
	return &c
}

// With returns a copy of e with extra body fields.
func (e *Error) With(extra map[string]any) *Error {
	c := *e
	c.Extra = extra
	return &c
}

// Invalid is 400 invalid / detail.
func Invalid(detail string) *Error { return E(StatusBadRequest, "invalid", detail) }

// Invalidf is 400 invalid / "<detail>: <value>".
func Invalidf(detail string, value any) *Error {
	return E(StatusBadRequest, "invalid", fmt.Sprintf("%s: %v", detail, value))
}

// Refused is 403 refused / detail.
func Refused(detail string) *Error { return E(StatusForbidden, "refused", detail) }

// Forbidden is 403 forbidden / detail.
func Forbidden(detail string) *Error { return E(StatusForbidden, "forbidden", detail) }

// Conflict is 409 code / detail.
func Conflict(code, detail string) *Error { return E(StatusConflict, code, detail) }

// Common errors shared by every surface.
var (
	ErrNotFound         = E(StatusNotFound, "not_found", "")
	ErrRateLimited      = E(StatusTooManyRequests, "rate_limited", "")
	ErrInvalidJSON      = E(StatusBadRequest, "invalid_json", "")
	ErrBodyEmpty        = Invalid("body_empty")
	ErrBodyInvalid      = Invalid("body_invalid")
	ErrQueryInvalid     = Invalid("invalid")
	ErrTokenRequired    = E(StatusUnauthorized, "token_required", "")
	ErrScopeMissing     = Forbidden("scope_missing")
	ErrPanelSession     = Forbidden("panel_session_required")
	ErrInternal         = E(StatusInternalServerError, "internal", "")
	ErrMethodNotAllowed = E(StatusMethodNotAllowed, "method_not_allowed", "")
)
