package privacy

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/store"
)

// Request kinds and states.
const (
	KindAccess      = "access"
	KindErasure     = "erasure"
	StateReceived   = "received"
	StateCompleted  = "completed"
	StateRefused    = "refused"
	maxNote         = 1000
	qaEventErased   = "anonymized"
	erasureQAReason = "data_subject_request"
)

// RequestPublicID is the id clients see.
func RequestPublicID(id int64) string { return "dsr_" + strconv.FormatInt(id, 10) }

func parseRequestID(s string) (int64, bool) { return core.ParseID("dsr_", s) }

// Row is a personal-data request row (spec 3): id, kind, state, received_at,
// completed_at, affected_reviews, purged_media, can_copy, plus the identifier.
type Row struct {
	ID              string     `json:"id"`
	Kind            string     `json:"kind"`
	State           string     `json:"state"`
	ReceivedAt      time.Time  `json:"received_at"`
	CompletedAt     *time.Time `json:"completed_at"`
	AffectedReviews int        `json:"affected_reviews"`
	PurgedMedia     int        `json:"purged_media"`
	CanCopy         bool       `json:"can_copy"`
	IdentifierKind  string     `json:"identifier_kind"`
	Identifier      string     `json:"identifier"`
}

// Detail is the record of one request: the row plus the note, the handler and the
// refusal reason, and with a preview what the request covers.
type Detail struct {
	Row
	Note    string   `json:"note"`
	Handler string   `json:"handler"`
	Reason  string   `json:"reason"`
	Preview *Preview `json:"preview,omitempty"`
}

// Preview counts what reviewd holds about the person.
type Preview struct {
	Orders    int `json:"orders"`
	Reviews   int `json:"reviews"`
	Questions int `json:"questions"`
	Answers   int `json:"answers"`
	Media     int `json:"media"`
	OptOuts   int `json:"opt_outs"`
}

func (s *Service) row(r store.SubjectRequest) Row {
	ident := ""
	if plain, err := s.Keys.Decrypt(r.IdentifierSealed); err == nil {
		ident = string(plain)
	}
	return Row{ID: RequestPublicID(r.ID), Kind: r.Kind, State: r.State, ReceivedAt: r.ReceivedAt.UTC(),
		CompletedAt: core.OptTime(r.CompletedAt), AffectedReviews: r.AffectedReviews, PurgedMedia: r.PurgedMedia,
		CanCopy: r.Kind == KindAccess && r.State == StateCompleted, IdentifierKind: r.IdentifierKind, Identifier: ident}
}

func (s *Service) detail(r store.SubjectRequest) Detail {
	return Detail{Row: s.row(r), Note: r.Note, Handler: r.Handler, Reason: r.Reason}
}

// NewRequest is the body of POST /admin/v1/subject-requests.
type NewRequest struct {
	Kind       string `json:"kind"`
	Identifier string `json:"identifier"`
	Note       string `json:"note"`
}

// Open records a received request (POST /admin/v1/subject-requests). Errors:
// invalid / kind, identifier_required, identifier, note (over 1000 characters).
func (s *Service) Open(ctx context.Context, a *core.Actor, in NewRequest) (Detail, error) {
	if in.Kind != KindAccess && in.Kind != KindErasure {
		return Detail{}, core.Invalid("kind")
	}
	id, err := parseIdentifier(in.Identifier)
	if err != nil {
		return Detail{}, err
	}
	note := core.MultiLine(in.Note)
	if utf8.RuneCountInString(note) > maxNote || !core.StorableText(note) {
		return Detail{}, core.Invalid("note")
	}
	r := store.SubjectRequest{Kind: in.Kind, IdentifierKind: id.kind, IdentifierHash: s.hash(id),
		IdentifierSealed: s.Keys.Encrypt([]byte(id.value)), Note: note}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if r, err = tx.CreateSubjectRequest(ctx, r); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "subject_request.received", RequestPublicID(r.ID),
			map[string]any{"kind": r.Kind, "identifier_kind": r.IdentifierKind})
	})
	return s.detail(r), err
}

// ListFilter is the query of the request list beside the list contract: kind and
// state; q finds a request by its id or its exact identifier.
type ListFilter struct {
	Kind, State string
}

// Page is one page of requests.
type Page struct {
	Items    []Row `json:"items"`
	Total    int   `json:"total"`
	Page     int   `json:"page"`
	Pages    int   `json:"pages"`
	PageSize int   `json:"page_size"`
}

// List lists requests, newest first, and logs subject_requests.listed with the
// number of rows shown. Errors: invalid / kind, state.
func (s *Service) List(ctx context.Context, a *core.Actor, l core.ListQuery, f ListFilter) (Page, error) {
	if f.Kind != "" && f.Kind != KindAccess && f.Kind != KindErasure {
		return Page{}, core.Invalid("kind")
	}
	if f.State != "" && f.State != StateReceived && f.State != StateCompleted && f.State != StateRefused {
		return Page{}, core.Invalid("state")
	}
	sf := store.SubjectRequestFilter{Kind: f.Kind, State: f.State, Oldest: l.Sort == "oldest", Limit: l.PageSize, Offset: l.Offset()}
	if l.Q != "" {
		sf.ID, _ = parseRequestID(l.Q)
		sf.IdentifierHash = "-"
		if id, err := parseIdentifier(l.Q); err == nil {
			sf.IdentifierHash = s.hash(id)
		}
	}
	rows, total, err := s.DB.Read().ListSubjectRequests(ctx, sf)
	if err != nil {
		return Page{}, err
	}
	p := Page{Items: []Row{}, Total: total, Page: l.Page, Pages: core.PageCount(total, l.PageSize), PageSize: l.PageSize}
	for _, r := range rows {
		p.Items = append(p.Items, s.row(r))
	}
	return p, s.logAccess(ctx, a, "subject_requests.listed", "", len(p.Items))
}

func (s *Service) byID(ctx context.Context, q *store.Q, publicID string) (store.SubjectRequest, error) {
	id, ok := parseRequestID(publicID)
	if !ok {
		return store.SubjectRequest{}, core.ErrNotFound
	}
	r, err := q.SubjectRequestByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, core.ErrNotFound
	}
	return r, err
}

// Get returns one request's record, logged as subject_request.viewed; with preview
// it adds what reviewd holds about the person, logged as
// subject_request.previewed. Unknown ids: 404 not_found.
func (s *Service) Get(ctx context.Context, a *core.Actor, publicID string, preview bool) (Detail, error) {
	q := s.DB.Read()
	r, err := s.byID(ctx, q, publicID)
	if err != nil {
		return Detail{}, err
	}
	d := s.detail(r)
	action := "subject_request.viewed"
	if preview {
		id, err := parseIdentifier(d.Identifier)
		if err != nil {
			return d, err
		}
		data, err := gather(ctx, q, id)
		if err != nil {
			return d, err
		}
		d.Preview = &Preview{Orders: len(data.orders), Reviews: len(data.reviews), Questions: len(data.questions),
			Answers: len(data.answers), OptOuts: len(data.optOuts)}
		for _, rv := range data.reviews {
			ms, err := q.MediaOfReview(ctx, rv.ID)
			if err != nil {
				return d, err
			}
			for _, m := range ms {
				if m.State != store.MediaRemoved {
					d.Preview.Media++
				}
			}
		}
		action = "subject_request.previewed"
	}
	return d, s.logAccess(ctx, a, action, d.ID, 1)
}

// CompleteInput is the optional body of POST .../<id>/complete: purge_media also
// removes the photos and videos of the person's reviews (erasure only).
type CompleteInput struct {
	PurgeMedia bool `json:"purge_media"`
}

// errClosed answers a completion or refusal of a request that is not received.
var errClosed = core.Conflict("request_closed", "")

// Complete completes a received request (POST .../<id>/complete). An erasure is
// carried out first, in the same transaction: the reviews, questions and answers of
// the person get marks for e-mail, phone and name in their texts and lose the
// author's or asker's name and address (reviews are marked anonymized), their
// media are purged when asked, and the customer data of their orders is
// pseudonymised by the order erasure (orders.EraseOrderCustomer). An access request
// becomes copyable. Errors: 404 not_found; 409 request_closed.
func (s *Service) Complete(ctx context.Context, a *core.Actor, publicID string, in CompleteInput) (Detail, error) {
	var r store.SubjectRequest
	var purged []string
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if r, err = s.byID(ctx, tx.Q, publicID); err != nil {
			return err
		}
		if r.State != StateReceived {
			return errClosed
		}
		detail := map[string]any{"kind": r.Kind}
		if r.Kind == KindErasure {
			plain, err := s.Keys.Decrypt(r.IdentifierSealed)
			if err != nil {
				return err
			}
			id, err := parseIdentifier(string(plain))
			if err != nil {
				return err
			}
			var counts map[string]int
			if purged, counts, err = s.erase(ctx, tx, a, id, in.PurgeMedia); err != nil {
				return err
			}
			r.AffectedReviews, r.PurgedMedia = counts["reviews"], len(purged)
			for k, v := range counts {
				detail[k] = v
			}
			detail["purged_media"] = len(purged)
		}
		r.State, r.Handler = StateCompleted, a.Name
		if ok, err := tx.CloseSubjectRequest(ctx, r); err != nil || !ok {
			if err == nil {
				err = errClosed
			}
			return err
		}
		if r, err = tx.SubjectRequestByID(ctx, r.ID); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "subject_request.completed", RequestPublicID(r.ID), detail)
	})
	if err != nil {
		return Detail{}, err
	}
	for _, m := range purged {
		s.Reviews.DeleteMediaFiles(m)
	}
	return s.detail(r), nil
}

// erase carries out an erasure in tx and returns the purged media and the counts
// of erased reviews, questions, answers and orders.
func (s *Service) erase(ctx context.Context, tx *store.Tx, a *core.Actor, id identifier, purgeMedia bool) ([]string, map[string]int, error) {
	d, err := gather(ctx, tx.Q, id)
	if err != nil {
		return nil, nil, err
	}
	names := d.names()
	counts := map[string]int{}
	var purged []string
	for _, r := range d.reviews {
		p, err := s.Reviews.EraseReviewAuthor(ctx, tx, a, r, names, purgeMedia)
		if err != nil {
			return nil, nil, err
		}
		purged = append(purged, p...)
		counts["reviews"]++
	}
	by, byID, byName := qaActor(a)
	for _, x := range d.questions {
		if err := tx.AnonymizeQuestion(ctx, x.ID, maskText(x.Body, append([]string{x.AskerName}, names...))); err != nil {
			return nil, nil, err
		}
		if err := tx.AddQAEvent(ctx, store.QAEvent{QuestionID: x.ID, Event: qaEventErased, FromState: x.State, ToState: x.State,
			Reason: erasureQAReason, ActorType: by, ActorID: byID, ActorName: byName}); err != nil {
			return nil, nil, err
		}
		counts["questions"]++
	}
	for _, x := range d.answers {
		if err := tx.AnonymizeAnswer(ctx, x.ID, maskText(x.Body, append([]string{x.AuthorName}, names...))); err != nil {
			return nil, nil, err
		}
		if err := tx.AddQAEvent(ctx, store.QAEvent{QuestionID: x.QuestionID, AnswerID: x.ID, Event: qaEventErased,
			FromState: x.State, ToState: x.State, Reason: erasureQAReason, ActorType: by, ActorID: byID, ActorName: byName}); err != nil {
			return nil, nil, err
		}
		counts["answers"]++
	}
	for _, o := range d.orders {
		done, err := s.Orders.EraseOrderCustomer(ctx, tx, o.ID, orders.EraseRequest)
		if err != nil {
			return nil, nil, err
		}
		if done {
			counts["orders"]++
		}
	}
	return purged, counts, nil
}

func qaActor(a *core.Actor) (typ, id, name string) {
	if a == nil {
		return core.ViaSystem, "", "system"
	}
	return a.Via, a.ID, a.Name
}

// RefuseInput is the body of POST .../<id>/refuse.
type RefuseInput struct {
	Reason string `json:"reason"`
}

// Refuse refuses a received request with a reason (POST .../<id>/refuse). Errors:
// invalid / reason_required, reason (over 1000 characters); 404 not_found; 409
// request_closed.
func (s *Service) Refuse(ctx context.Context, a *core.Actor, publicID string, in RefuseInput) (Detail, error) {
	reason := core.MultiLine(in.Reason)
	if strings.TrimSpace(reason) == "" {
		return Detail{}, core.Invalid("reason_required")
	}
	if utf8.RuneCountInString(reason) > maxNote || !core.StorableText(reason) {
		return Detail{}, core.Invalid("reason")
	}
	var r store.SubjectRequest
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if r, err = s.byID(ctx, tx.Q, publicID); err != nil {
			return err
		}
		if r.State != StateReceived {
			return errClosed
		}
		r.State, r.Reason, r.Handler = StateRefused, reason, a.Name
		if ok, err := tx.CloseSubjectRequest(ctx, r); err != nil || !ok {
			if err == nil {
				err = errClosed
			}
			return err
		}
		if r, err = tx.SubjectRequestByID(ctx, r.ID); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "subject_request.refused", RequestPublicID(r.ID), map[string]any{"kind": r.Kind})
	})
	if err != nil {
		return Detail{}, err
	}
	return s.detail(r), nil
}
