package core

import (
	"context"
	"errors"
	"strconv"

	"reviewd/store"
)

// SessionCookie is the name of the panel session cookie.
const SessionCookie = "reviewd_session"

// SessionActor resolves a session cookie value to a signed-in panel user. It answers
// nil (and no error) when the token is unknown, expired, waiting for its second step,
// or its user is disabled.
func (c *Core) SessionActor(ctx context.Context, token string) (*Actor, error) {
	if token == "" {
		return nil, nil
	}
	q := c.DB.Read()
	s, err := q.SessionByHash(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.Stage != "full" || !s.ExpiresAt.After(c.Now()) {
		return nil, nil
	}
	u, err := q.UserByID(ctx, s.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !u.DisabledAt.IsZero() {
		return nil, nil
	}
	return &Actor{Via: ViaSession, ID: strconv.FormatInt(u.ID, 10), Name: u.Username, Role: u.Role,
		Perms: PermsOfRole(u.Role), UserID: u.ID, SessionID: s.ID, CSRF: s.CSRF}, nil
}
