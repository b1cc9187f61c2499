package access

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"reviewd/app/core"
	"reviewd/app/mail"
	"reviewd/store"
)

// Lifetimes of the set-password links (spec 3, Errors): a new member's link lasts
// 3 days, a reset or a link sent by an owner 1 hour.
const (
	WelcomeLinkLife = 72 * time.Hour
	ResetLinkLife   = time.Hour
)

// Link purposes (password_links.purpose).
const (
	linkWelcome = "welcome"
	linkReset   = "reset"
)

// Errors of the member endpoints.
var (
	ErrEmailChangeOwnOnly = core.E(403, "email_change_own_only", "")
	ErrLastOwner          = core.Conflict("last_owner", "last_owner")
	ErrLinkInvalid        = core.Invalid("token")
)

// MemberPage is one page of the member list.
type MemberPage struct {
	Items []store.User
	Total int
}

// ListMembers lists panel members for the shared list contract: q matches the
// username or e-mail, sort newest (default) or oldest by creation. The read shows
// e-mail addresses, so it is written to the access log (users.listed).
func (s *Service) ListMembers(ctx context.Context, a *core.Actor, l core.ListQuery) (MemberPage, error) {
	all, err := s.DB.Read().ListUsers(ctx)
	if err != nil {
		return MemberPage{}, err
	}
	q := strings.ToLower(strings.TrimSpace(l.Q))
	var rows []store.User
	for _, u := range all {
		if q == "" || strings.Contains(strings.ToLower(u.Username), q) || strings.Contains(strings.ToLower(u.Email), q) {
			rows = append(rows, u)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if l.Sort == "oldest" {
			return rows[i].ID < rows[j].ID
		}
		return rows[i].ID > rows[j].ID
	})
	out := MemberPage{Total: len(rows)}
	if off := l.Offset(); off < len(rows) {
		out.Items = rows[off:min(off+l.PageSize, len(rows))]
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return s.rec.LogAccess(ctx, tx, a, "users.listed", "user", "", len(out.Items))
	})
	return out, err
}

// accountNames are the names a password may not contain: the service, the brand
// names and labels of the channels, the username and the local part of the
// address. They are also the strength estimate's user inputs, with the address.
func (s *Service) accountNames(ctx context.Context, u store.User) ([]string, error) {
	local, _, _ := strings.Cut(u.Email, "@")
	names := []string{u.Username, local, u.Email}
	chans, err := s.DB.Read().ListChannels(ctx)
	if err != nil {
		return nil, err
	}
	for _, ch := range chans {
		names = append(names, ch.BrandName, ch.Label)
	}
	return names, nil
}

// checkMember validates the username, e-mail and role of a new member.
func checkMember(in *NewUser) error {
	in.Username = strings.TrimSpace(in.Username)
	in.Email = strings.TrimSpace(in.Email)
	switch {
	case !reUsername.MatchString(in.Username):
		return core.Invalid("username")
	case in.Email == "":
		return core.Invalid("email_required")
	case !core.ValidEmail(in.Email):
		return core.Invalid("email_invalid")
	case !validRole(in.Role):
		return core.Invalid("role")
	}
	return nil
}

func validRole(r string) bool {
	for _, x := range core.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// AddMember adds a panel member without a password and mails a set-password link
// valid WelcomeLinkLife. mailed is false when the e-mail could not be handed to the
// mail server (sending off or failing); the member exists either way and an owner
// can send a new link.
func (s *Service) AddMember(ctx context.Context, a *core.Actor, username, email, role string) (store.User, bool, error) {
	in := NewUser{Username: username, Email: email, Role: role}
	if err := checkMember(&in); err != nil {
		return store.User{}, false, err
	}
	u := store.User{Username: in.Username, Email: in.Email, Role: in.Role}
	var token string
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.UserByUsername(ctx, u.Username); err == nil {
			return core.Invalid("username_taken")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		var err error
		if u, err = tx.CreateUser(ctx, u); err != nil {
			return err
		}
		if token, err = newLink(ctx, tx, u.ID, linkWelcome, WelcomeLinkLife); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.created", "user", u.Username, map[string]any{"role": u.Role, "email": true})
	})
	if err != nil {
		return store.User{}, false, err
	}
	return u, s.mailLink(ctx, u, token, linkWelcome), nil
}

// newLink stores a set-password link for userID and returns its token.
func newLink(ctx context.Context, tx *store.Tx, userID int64, purpose string, life time.Duration) (string, error) {
	token := core.RandomToken(32)
	_, err := tx.CreatePasswordLink(ctx, core.HashToken(token), store.PasswordLink{UserID: userID, Purpose: purpose,
		ExpiresAt: tx.Now.Add(life)})
	return token, err
}

// LinkURL is the panel page a set-password link opens. The token is in the fragment,
// so it reaches neither server logs nor Referer headers.
func (s *Service) LinkURL(token string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/panel/password#token=" + token
}

// mailLink sends a set-password link to u and reports whether the mail server took
// it. Failures are logged without the address.
func (s *Service) mailLink(ctx context.Context, u store.User, token, purpose string) bool {
	subject, life := "Set your reviewd panel password", "3 days"
	intro := fmt.Sprintf("An account was created for you on the reviewd panel (username %s).", u.Username)
	if purpose == linkReset {
		subject, life = "Reset your reviewd panel password", "1 hour"
		intro = fmt.Sprintf("A new password was requested for your reviewd panel account (username %s). "+
			"If you did not ask for it, ignore this e-mail: your password stays as it is.", u.Username)
	}
	text := fmt.Sprintf("%s\n\nChoose your password here (the link works once and for %s):\n%s\n", intro, life, s.LinkURL(token))
	if _, err := s.Mailer.Send(ctx, mail.Message{To: u.Email, Subject: subject, Text: text}); err != nil {
		s.Log.Warn("set-password link not sent", "user", u.ID, "error", err)
		return false
	}
	return true
}

// memberByID reads a member; 404 not_found when there is none.
func memberByID(ctx context.Context, q interface {
	UserByID(context.Context, int64) (store.User, error)
}, id int64) (store.User, error) {
	u, err := q.UserByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return u, core.ErrNotFound
	}
	return u, err
}

// MemberChange is the body of a member change; nil fields stay. CurrentPassword
// is the caller's password, needed to change the e-mail.
type MemberChange struct {
	Role            *string
	Email           *string
	CurrentPassword string
}

// ChangeMember changes a member's role (users permission; the last owner stays an
// owner: 409 last_owner) or the caller's own e-mail (another member's: 403
// email_change_own_only) after checking the caller's current password, as
// ChangeOwnEmail does (400 invalid / current_password).
func (s *Service) ChangeMember(ctx context.Context, a *core.Actor, id int64, in MemberChange) (store.User, error) {
	if in.Email != nil && id != a.UserID {
		return store.User{}, ErrEmailChangeOwnOnly
	}
	if in.Role != nil && !a.Can(core.PermUsers) {
		return store.User{}, core.ErrScopeMissing
	}
	var email string
	if in.Email != nil {
		self, err := s.SessionUser(ctx, a)
		if err != nil {
			return store.User{}, err
		}
		if !CheckPassword(self.PasswordHash, in.CurrentPassword) {
			return store.User{}, ErrCurrentPassword
		}
		email = strings.TrimSpace(*in.Email)
		if email == "" {
			return store.User{}, core.Invalid("email_required")
		}
		if !core.ValidEmail(email) {
			return store.User{}, core.Invalid("email_invalid")
		}
	}
	if in.Role != nil && !validRole(*in.Role) {
		return store.User{}, core.Invalid("role")
	}
	var u store.User
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if u, err = memberByID(ctx, tx, id); err != nil {
			return err
		}
		if in.Role != nil && *in.Role != u.Role {
			if u.Role == "owner" {
				if n, err := tx.CountOwners(ctx); err != nil {
					return err
				} else if n <= 1 {
					return ErrLastOwner
				}
			}
			if err := tx.SetUserRole(ctx, u.ID, *in.Role); err != nil {
				return err
			}
			if err := s.rec.Record(ctx, tx, a, "user.role_changed", "user", u.Username, map[string]any{"from": u.Role, "to": *in.Role}); err != nil {
				return err
			}
			u.Role = *in.Role
		}
		if in.Email != nil && email != u.Email {
			if err := tx.SetUserEmail(ctx, u.ID, email); err != nil {
				return err
			}
			if err := s.rec.Record(ctx, tx, a, "user.email_changed", "user", u.Username, nil); err != nil {
				return err
			}
			u.Email = email
		}
		return nil
	})
	return u, err
}

// RemoveMember removes a member with their sessions; the last owner stays (409
// last_owner).
func (s *Service) RemoveMember(ctx context.Context, a *core.Actor, id int64) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		u, err := memberByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if u.Role == "owner" {
			if n, err := tx.CountOwners(ctx); err != nil {
				return err
			} else if n <= 1 {
				return ErrLastOwner
			}
		}
		if err := tx.DeleteUser(ctx, u.ID); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.removed", "user", u.Username, map[string]any{"role": u.Role})
	})
}

// SendPasswordLink mails a member a set-password link valid ResetLinkLife. A member
// without an address: 400 invalid / email_required.
func (s *Service) SendPasswordLink(ctx context.Context, a *core.Actor, id int64) (bool, error) {
	var u store.User
	var token string
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if u, err = memberByID(ctx, tx, id); err != nil {
			return err
		}
		if strings.TrimSpace(u.Email) == "" {
			return core.Invalid("email_required")
		}
		if token, err = newLink(ctx, tx, u.ID, linkReset, ResetLinkLife); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.password_link_sent", "user", u.Username, nil)
	})
	if err != nil {
		return false, err
	}
	return s.mailLink(ctx, u, token, linkReset), nil
}

// MaxResetLinks is how many reset links one member gets per ResetLinkLife from
// reset requests; further requests are answered as always and write nothing.
const MaxResetLinks = 3

// resetQueue is how many reset requests wait for the worker; more are dropped
// (and answered as always).
const resetQueue = 64

// resetRequest is a reset request waiting for the worker.
type resetRequest struct {
	ctx   context.Context
	a     *core.Actor
	email string
}

// resetWorker writes and mails reset links after the answer, one request at a
// time, so the answer takes as long for a member's address as for an unknown one
// and a flood of requests is drained at the worker's pace.
type resetWorker struct {
	once  sync.Once
	queue chan resetRequest
	stop  chan struct{}
	done  sync.WaitGroup
}

// RequestPasswordReset mails a 1-hour link to every member with the address, at
// most MaxResetLinks per member within ResetLinkLife. The answer is the same, and
// takes the same time, whether or not the address is a member's: the links are
// written and mailed after it. Only a missing address is refused (400 invalid /
// email_required).
func (s *Service) RequestPasswordReset(ctx context.Context, a *core.Actor, email string) error {
	email = strings.TrimSpace(email)
	if email == "" {
		return core.Invalid("email_required")
	}
	if !core.ValidEmail(email) {
		return nil
	}
	w := &s.resets
	w.once.Do(func() {
		w.queue, w.stop = make(chan resetRequest, resetQueue), make(chan struct{})
		w.done.Add(1)
		go s.resetLoop()
	})
	var actor core.Actor
	if a != nil {
		actor = *a
	}
	select {
	case <-w.stop:
	case w.queue <- resetRequest{ctx: context.WithoutCancel(ctx), a: &actor, email: email}:
	default:
		s.Log.Warn("password reset request dropped: queue full")
	}
	return nil
}

func (s *Service) resetLoop() {
	w := &s.resets
	defer w.done.Done()
	for {
		select {
		case <-w.stop:
			return
		case req := <-w.queue:
			if err := s.sendResetLinks(req.ctx, req.a, req.email); err != nil {
				s.Log.Error("password reset request failed", "error", err)
			}
		}
	}
}

// StopResets ends the reset worker (a request it is handling is finished first);
// later reset requests are answered and dropped.
func (s *Service) StopResets() {
	w := &s.resets
	w.once.Do(func() { w.stop = make(chan struct{}) })
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	w.done.Wait()
}

// sendResetLinks writes and mails the reset links of a request.
func (s *Service) sendResetLinks(ctx context.Context, a *core.Actor, email string) error {
	users, err := s.DB.Read().UsersByEmail(ctx, email)
	if err != nil {
		return err
	}
	for _, u := range users {
		if !u.DisabledAt.IsZero() {
			continue
		}
		var token string
		err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			n, err := tx.CountPasswordLinks(ctx, u.ID, linkReset, tx.Now.Add(-ResetLinkLife))
			if err != nil || n >= MaxResetLinks {
				return err
			}
			if token, err = newLink(ctx, tx, u.ID, linkReset, ResetLinkLife); err != nil {
				return err
			}
			return s.rec.Record(ctx, tx, a, "user.password_reset_requested", "user", u.Username, nil)
		})
		if err != nil {
			return err
		}
		if token != "" {
			s.mailLink(ctx, u, token, linkReset)
		}
	}
	return nil
}

// SetPasswordWithLink sets a member's password with the token of a link. An
// unknown, used or expired token: 400 invalid / token. The link and the member's
// other links are used up and every session of the member ends.
func (s *Service) SetPasswordWithLink(ctx context.Context, a *core.Actor, token, password string) error {
	if token == "" {
		return ErrLinkInvalid
	}
	l, err := s.DB.Read().PasswordLinkByHash(ctx, core.HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return ErrLinkInvalid
	} else if err != nil {
		return err
	}
	if !l.UsedAt.IsZero() || !l.ExpiresAt.After(s.DB.Now()) {
		return ErrLinkInvalid
	}
	u, err := s.DB.Read().UserByID(ctx, l.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return ErrLinkInvalid
	} else if err != nil {
		return err
	}
	hash, err := s.strongHash(ctx, u, password)
	if err != nil {
		return err
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		// Checked again inside the write: two uses of one link race to here.
		l, err := tx.PasswordLinkByHash(ctx, core.HashToken(token))
		if err != nil || !l.UsedAt.IsZero() {
			return ErrLinkInvalid
		}
		if err := setPassword(ctx, tx, u.ID, hash); err != nil {
			return err
		}
		actor := actorOf(a, u)
		return s.rec.Record(ctx, tx, actor, "user.password_set", "user", u.Username, map[string]any{"link": l.Purpose})
	})
}

// strongHash checks a new password against the strength rules and the account's
// names and hashes it.
func (s *Service) strongHash(ctx context.Context, u store.User, password string) (string, error) {
	names, err := s.accountNames(ctx, u)
	if err != nil {
		return "", err
	}
	if err := CheckPasswordStrength(password, names...); err != nil {
		return "", err
	}
	return HashPassword(password)
}

// setPassword stores a new password hash, uses up the member's links and ends the
// member's sessions.
func setPassword(ctx context.Context, tx *store.Tx, userID int64, hash string) error {
	if err := tx.SetUserPassword(ctx, userID, hash); err != nil {
		return err
	}
	if err := tx.UsePasswordLinks(ctx, userID); err != nil {
		return err
	}
	return tx.DeleteUserSessions(ctx, userID)
}

// ChangePassword changes the caller's password after checking the current one (400
// invalid / current_password). Other sessions of the member end; the caller's
// stays.
func (s *Service) ChangePassword(ctx context.Context, a *core.Actor, current, password string) error {
	u, err := s.SessionUser(ctx, a)
	if err != nil {
		return err
	}
	if !CheckPassword(u.PasswordHash, current) {
		return ErrCurrentPassword
	}
	hash, err := s.strongHash(ctx, u, password)
	if err != nil {
		return err
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.SetUserPassword(ctx, u.ID, hash); err != nil {
			return err
		}
		if err := tx.UsePasswordLinks(ctx, u.ID); err != nil {
			return err
		}
		if err := tx.DeleteOtherSessions(ctx, u.ID, a.SessionID); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "user.password_changed", "user", u.Username, nil)
	})
}

// MemberID reads a member id from a path.
func MemberID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, core.ErrNotFound
	}
	return id, nil
}
