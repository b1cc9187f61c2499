// Package held holds the panel's approve and reject decisions for an undo window
// before they take effect. A held decision is a row (held_decisions), so a restart
// inside the window loses nothing; when the window has passed it is applied as one
// ordinary transition of the reviews service (state, review history, transparency
// log, activity, rejection notice), and an undo deletes it, leaving one activity
// entry (review.decision_undone) and nothing in the history or the transparency
// log. It imports reviews and lower layers only.
package held

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// Window is how long a panel decision can be undone before it takes effect.
const Window = 10 * time.Second

// Service holds, undoes and applies held decisions.
type Service struct {
	DB      *store.DB
	Reviews *reviews.Service
	*core.Recorder
	core.Clock
	Log *slog.Logger
}

// Decision is a held decision as the panel shows it.
type Decision struct {
	Review string    `json:"review"`
	Event  string    `json:"event"`
	Reason string    `json:"reason,omitempty"`
	Until  time.Time `json:"until"`
}

// actor is what a held decision keeps of who decided: enough for the history,
// the transparency log and the activity entry written when it takes effect.
type actor struct {
	Via       string `json:"via"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Role      string `json:"role,omitempty"`
	UserID    int64  `json:"user_id,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	UserAgent string `json:"user_agent,omitempty"`
}

// Holds reports whether an event is held by the panel (approve and reject).
func Holds(event string) bool { return event == reviews.EventApprove || event == reviews.EventReject }

// Hold keeps an approve or reject of a review for Window before it takes effect.
// The input is checked now with TransitionReview's errors; 409 transition_refused
// / event_not_available also when the review already has a held decision.
func (s *Service) Hold(ctx context.Context, a *core.Actor, publicID string, in reviews.ReviewTransitionInput) (Decision, error) {
	var out Decision
	if !Holds(in.Event) {
		return out, core.Invalid("event")
	}
	b, err := json.Marshal(actor{Via: a.Via, ID: a.ID, Name: a.Name, Role: a.Role, UserID: a.UserID,
		RequestID: a.RequestID, UserAgent: a.UserAgent})
	if err != nil {
		return out, err
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := s.Reviews.CheckReviewTransition(ctx, tx.Q, publicID, &in)
		if err != nil {
			return err
		}
		h := store.HeldDecision{ReviewID: r.ID, Event: in.Event, Reason: in.Reason, FromState: r.State,
			Actor: string(b), DecidedAt: tx.Now, DueAt: tx.Now.Add(Window)}
		if err := tx.HoldDecision(ctx, h); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return core.Conflict("transition_refused", "event_not_available")
			}
			return err
		}
		out = Decision{Review: publicID, Event: in.Event, Reason: in.Reason, Until: h.DueAt}
		return nil
	})
	return out, err
}

// Of is the held decision of a review; ok is false when it has none.
func (s *Service) Of(ctx context.Context, publicID string) (Decision, bool, error) {
	q := s.DB.Read()
	r, err := q.ReviewByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) {
		return Decision{}, false, nil
	} else if err != nil {
		return Decision{}, false, err
	}
	h, err := q.HeldDecisionOf(ctx, r.ID)
	if errors.Is(err, store.ErrNotFound) {
		return Decision{}, false, nil
	} else if err != nil {
		return Decision{}, false, err
	}
	return Decision{Review: publicID, Event: h.Event, Reason: h.Reason, Until: h.DueAt}, true, nil
}

// ErrUndoClosed is the undo of a decision that has taken effect (or of none).
var ErrUndoClosed = core.Conflict("transition_refused", "undo_window_closed")

// Undo takes back a held decision: the review stays where it was, and one
// activity entry (review.decision_undone) records the decision and its undo.
// Errors: 404 not_found; 409 transition_refused / undo_window_closed.
func (s *Service) Undo(ctx context.Context, a *core.Actor, publicID string) (Decision, error) {
	var out Decision
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := tx.ReviewByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		h, err := tx.HeldDecisionOf(ctx, r.ID)
		if errors.Is(err, store.ErrNotFound) {
			return ErrUndoClosed
		} else if err != nil {
			return err
		}
		if ok, err := tx.DropHeldDecision(ctx, r.ID); err != nil {
			return err
		} else if !ok {
			return ErrUndoClosed
		}
		out = Decision{Review: publicID, Event: h.Event, Reason: h.Reason, Until: h.DueAt}
		return s.Record(ctx, tx, a, "review.decision_undone", "review", publicID,
			map[string]any{"event": h.Event, "reason": h.Reason, "state": r.State})
	})
	return out, err
}

// ApplyDue applies every held decision due at now, each as one transition of the
// reviews service in the name of who decided, and returns how many took effect. A
// decision the review has moved past meanwhile (another moderator acted, the
// review was erased) is dropped. The row is deleted in the transition's own
// transaction, so an undo that comes first takes the decision back for good and
// one that comes after finds the window closed.
func (s *Service) ApplyDue(ctx context.Context, now time.Time) (int, error) {
	due, err := s.DB.Read().DueHeldDecisions(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, h := range due {
		var who actor
		if err := json.Unmarshal([]byte(h.Actor), &who); err != nil {
			errs = append(errs, err)
			continue
		}
		a := &core.Actor{Via: who.Via, ID: who.ID, Name: who.Name, Role: who.Role, UserID: who.UserID,
			RequestID: who.RequestID, UserAgent: who.UserAgent}
		_, err := s.Reviews.TransitionReviewWith(ctx, a, h.PublicID, reviews.ReviewTransitionInput{Event: h.Event,
			Reason: h.Reason, From: h.FromState}, func(tx *store.Tx, _ store.Review) error {
			if ok, err := tx.DropHeldDecision(ctx, h.ReviewID); err != nil {
				return err
			} else if !ok {
				return ErrUndoClosed // undone meanwhile: the move is not made
			}
			return nil
		})
		var ce *core.Error
		switch {
		case err == nil:
			n++
			continue // its row went with the move
		case errors.Is(err, ErrUndoClosed):
			continue
		case errors.As(err, &ce) && ce.Status < 500:
			s.Log.Info("held decision dropped: the review has moved on", "review", h.PublicID, "event", h.Event, "err", err)
		default:
			errs = append(errs, err)
			continue
		}
		if err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			_, err := tx.DropHeldDecision(ctx, h.ReviewID)
			return err
		}); err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// Run applies due decisions every second until ctx ends (serve runs it; a
// decision made before a restart is applied at the first tick).
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if _, err := s.ApplyDue(ctx, s.Now()); err != nil && ctx.Err() == nil {
			s.Log.Warn("held decisions not applied", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
