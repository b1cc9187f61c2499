package admin

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/web"
	"reviewd/store"
)

// memberJSON is a user row of the member endpoints (CONTRACT, "Management
// resources").
func memberJSON(u store.User) map[string]any {
	var last any
	if !u.LastSignIn.IsZero() {
		last = u.LastSignIn.UTC().Format(time.RFC3339)
	}
	return map[string]any{"id": u.ID, "username": u.Username, "email": u.Email, "role": u.Role,
		"second_step": u.TOTPOn, "created_at": u.CreatedAt.UTC().Format(time.RFC3339), "last_sign_in_at": last}
}

// handleUserList serves GET /admin/v1/users.
func (h *Handler) handleUserList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	p, err := h.Access.ListMembers(r.Context(), a, l)
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(p.Items))
	for _, u := range p.Items {
		items = append(items, memberJSON(u))
	}
	return web.JSON(w, http.StatusOK, map[string]any{"items": items, "total": p.Total, "page": l.Page,
		"pages": core.PageCount(p.Total, l.PageSize), "page_size": l.PageSize})
}

// handleUserCreate serves POST /admin/v1/users: the new member is mailed a
// set-password link valid 3 days.
func (h *Handler) handleUserCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Username string `json:"username"`
		Email    string `json:"email"`
		Role     string `json:"role"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	u, mailed, err := h.Access.AddMember(r.Context(), a, in.Username, in.Email, in.Role)
	if err != nil {
		return err
	}
	out := memberJSON(u)
	out["mailed"] = mailed
	return web.JSON(w, http.StatusCreated, out)
}

// userID reads the {id} of a member path.
func userID(r *http.Request) (int64, error) { return access.MemberID(mux.Vars(r)["id"]) }

// handleUserUpdate serves PATCH /admin/v1/users/<id>: role, or one's own email
// with current_password.
func (h *Handler) handleUserUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := userID(r)
	if err != nil {
		return err
	}
	var in struct {
		Role            *string `json:"role"`
		Email           *string `json:"email"`
		CurrentPassword string  `json:"current_password"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	u, err := h.Access.ChangeMember(r.Context(), a, id, access.MemberChange{Role: in.Role, Email: in.Email, CurrentPassword: in.CurrentPassword})
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, memberJSON(u))
}

// handleUserDelete serves DELETE /admin/v1/users/<id>.
func (h *Handler) handleUserDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := userID(r)
	if err != nil {
		return err
	}
	if err := h.Access.RemoveMember(r.Context(), a, id); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleUserPasswordLink serves POST /admin/v1/users/<id>/password-link: a 1-hour
// link mailed to the member.
func (h *Handler) handleUserPasswordLink(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := userID(r)
	if err != nil {
		return err
	}
	mailed, err := h.Access.SendPasswordLink(r.Context(), a, id)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, map[string]any{"mailed": mailed})
}

// handlePasswordReset serves POST /admin/v1/session/password-reset (no session):
// always 202 requested true, whether or not the address is a member's.
func (h *Handler) handlePasswordReset(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := h.checkSignInRequest(r); err != nil {
		return err
	}
	if err := h.Limits.AllowPasswordReset(web.ClientIP(r.Context())); err != nil {
		return err
	}
	var in struct {
		Email string `json:"email"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if err := h.Access.RequestPasswordReset(r.Context(), requestActor(r), in.Email); err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, map[string]any{"requested": true})
}

// handlePasswordSet serves POST /admin/v1/session/password (no session): the
// password of a set-password link.
func (h *Handler) handlePasswordSet(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	if err := web.HoldRefusal(r.Context()); err != nil {
		return err
	}
	if err := h.checkSignInRequest(r); err != nil {
		return err
	}
	var in struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if err := h.Access.SetPasswordWithLink(r.Context(), requestActor(r), in.Token, in.Password); err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"changed": true})
}

// handlePasswordChange serves POST /admin/v1/session/password-change.
func (h *Handler) handlePasswordChange(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Current  string `json:"current_password"`
		Password string `json:"password"`
	}
	if err := web.DecodeJSON(r, sessionBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if err := h.Access.ChangePassword(r.Context(), a, in.Current, in.Password); err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"changed": true})
}
