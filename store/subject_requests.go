package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SubjectRequest is one personal-data request (access or erasure).
type SubjectRequest struct {
	ID               int64
	Kind             string // access or erasure
	IdentifierKind   string // email or phone
	IdentifierHash   string
	IdentifierSealed []byte
	Note             string
	State            string // received, completed, refused
	Reason           string
	Handler          string
	AffectedReviews  int
	PurgedMedia      int
	ReceivedAt       time.Time
	CompletedAt      time.Time
}

const qSubjectRequestCols = `id, kind, identifier_kind, identifier_hash, identifier_sealed, note, state, reason, handler,
	affected_reviews, purged_media, received_at, completed_at`

func scanSubjectRequest(sc scanner) (SubjectRequest, error) {
	var s SubjectRequest
	var received int64
	var completed sql.NullInt64
	err := sc.Scan(&s.ID, &s.Kind, &s.IdentifierKind, &s.IdentifierHash, &s.IdentifierSealed, &s.Note, &s.State, &s.Reason,
		&s.Handler, &s.AffectedReviews, &s.PurgedMedia, &received, &completed)
	s.ReceivedAt, s.CompletedAt = Time(received), NullTime(completed)
	return s, translate(err)
}

// CreateSubjectRequest stores a received request stamped q.Now.
func (q *Tx) CreateSubjectRequest(ctx context.Context, s SubjectRequest) (SubjectRequest, error) {
	s.State, s.ReceivedAt = "received", Time(Ms(q.Now))
	res, err := q.c.ExecContext(ctx, `INSERT INTO subject_requests (kind, identifier_kind, identifier_hash, identifier_sealed, note,
		state, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Kind, s.IdentifierKind, s.IdentifierHash, s.IdentifierSealed, s.Note,
		s.State, Ms(s.ReceivedAt))
	if err != nil {
		return s, fmt.Errorf("store: create subject request: %w", translate(err))
	}
	s.ID, err = res.LastInsertId()
	return s, err
}

// SubjectRequestByID reads one request.
func (q *Q) SubjectRequestByID(ctx context.Context, id int64) (SubjectRequest, error) {
	return scanSubjectRequest(q.c.QueryRowContext(ctx, `SELECT `+qSubjectRequestCols+` FROM subject_requests WHERE id = ?`, id))
}

// SubjectRequestFilter selects requests; zero fields do not filter.
type SubjectRequestFilter struct {
	Kind           string
	State          string
	IdentifierHash string
	ID             int64
	Oldest         bool
	Limit, Offset  int
}

// ListSubjectRequests lists requests, newest first (or oldest), with the total.
func (q *Q) ListSubjectRequests(ctx context.Context, f SubjectRequestFilter) ([]SubjectRequest, int, error) {
	where := ` WHERE 1=1`
	var args []any
	if f.Kind != "" {
		where += ` AND kind = ?`
		args = append(args, f.Kind)
	}
	if f.State != "" {
		where += ` AND state = ?`
		args = append(args, f.State)
	}
	if f.IdentifierHash != "" || f.ID != 0 {
		where += ` AND (identifier_hash = ? OR id = ?)`
		args = append(args, f.IdentifierHash, f.ID)
	}
	total, err := q.countRows(ctx, ` FROM subject_requests`+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qSubjectRequestCols+` FROM subject_requests`+where+
		listOrder(f.Oldest, "received_at", "id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 25)...)
	out, err := collect(rows, err, scanSubjectRequest)
	return out, total, err
}

// CloseSubjectRequest moves a received request to completed or refused, stamped
// q.Now. It reports false when the request was not in received any more.
func (q *Tx) CloseSubjectRequest(ctx context.Context, s SubjectRequest) (bool, error) {
	res, err := q.c.ExecContext(ctx, `UPDATE subject_requests SET state = ?, reason = ?, handler = ?, affected_reviews = ?,
		purged_media = ?, completed_at = ? WHERE id = ? AND state = 'received'`, s.State, s.Reason, s.Handler, s.AffectedReviews,
		s.PurgedMedia, Ms(q.Now), s.ID)
	if err != nil {
		return false, fmt.Errorf("store: close subject request: %w", translate(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// OrdersOfCustomerEmail lists every order (of any channel) whose customer address is
// email, ignoring case, and that is not erased yet, oldest first.
func (q *Q) OrdersOfCustomerEmail(ctx context.Context, email string) ([]Order, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOrderCols+` FROM orders
		WHERE customer_email = ? COLLATE NOCASE AND erased_at IS NULL ORDER BY id`, email)
	return collect(rows, err, scanOrder)
}

// OrdersOfCustomerPhone lists every order not erased yet whose customer phone
// (E.164) ends in the ten digits last10 (a number's local and international forms
// share them), oldest first. The partial index orders_customer_phone covers it.
func (q *Q) OrdersOfCustomerPhone(ctx context.Context, last10 string) ([]Order, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOrderCols+` FROM orders
		WHERE substr(customer_phone, -10) = ? AND customer_phone != '' AND erased_at IS NULL ORDER BY id`, last10)
	return collect(rows, err, scanOrder)
}

// OptOutsOfPhone lists the phone rows of the opt-out list whose number ends in the
// ten digits last10.
func (q *Q) OptOutsOfPhone(ctx context.Context, last10 string) ([]OptOut, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qOptOutCols+` FROM opt_outs
		WHERE channel_kind = 'whatsapp' AND substr(address, -10) = ? ORDER BY id`, last10)
	return collect(rows, err, scanOptOut)
}

// QuestionsOfAsker lists the questions asked with the address email (ignoring case)
// that are not erased yet.
func (q *Q) QuestionsOfAsker(ctx context.Context, email string) ([]Question, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qQuestionCols+` FROM questions
		WHERE asker_email = ? COLLATE NOCASE AND anonymized_at IS NULL ORDER BY id`, email)
	return collect(rows, err, scanQuestion)
}

// BuyerAnswersOfOrders lists the buyer answers written with the given orders.
func (q *Q) BuyerAnswersOfOrders(ctx context.Context, orderIDs []int64) ([]Answer, error) {
	return collectIn(ctx, q, `SELECT `+qAnswerCols+` FROM answers WHERE kind = 'buyer' AND order_id IN `, orderIDs,
		` ORDER BY id`, scanAnswer)
}

// TextRow is the id and free text of a review, question or answer, for the scan of
// a phone number through every text.
type TextRow struct {
	ID   int64
	Text string
}

// TextsAfter lists the id and text (title and body for reviews) of reviews,
// questions or answers (table) with id above afterID, ascending, at most limit.
func (q *Q) TextsAfter(ctx context.Context, table string, afterID int64, limit int) ([]TextRow, error) {
	var query string
	switch table {
	case "reviews":
		query = `SELECT id, title || ' ' || body || ' ' || author_name FROM reviews WHERE id > ? ORDER BY id LIMIT ?`
	case "questions":
		query = `SELECT id, body || ' ' || asker_name FROM questions WHERE id > ? ORDER BY id LIMIT ?`
	case "answers":
		query = `SELECT id, body || ' ' || author_name FROM answers WHERE id > ? ORDER BY id LIMIT ?`
	default:
		return nil, fmt.Errorf("store: texts of %q", table)
	}
	rows, err := q.c.QueryContext(ctx, query, afterID, limit)
	return collect(rows, err, func(sc scanner) (TextRow, error) {
		var t TextRow
		return t, translate(sc.Scan(&t.ID, &t.Text))
	})
}

// AnonymizeReviewText replaces a review's title and body, empties its author name
// and stamps anonymized_at with q.Now. Only app/core/reviews calls it (it refreshes
// the read model).
func (q *Tx) AnonymizeReviewText(ctx context.Context, id int64, title, body string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE reviews SET title = ?, body = ?, author_name = '', hide_name = 1,
		anonymized_at = coalesce(anonymized_at, ?), updated_at = ? WHERE id = ?`, title, body, Ms(q.Now), Ms(q.Now), id)
	if err != nil {
		return fmt.Errorf("store: anonymize review: %w", translate(err))
	}
	return nil
}

// AnonymizeQuestion replaces a question's body, empties the asker's name and
// address and stamps anonymized_at with q.Now.
func (q *Tx) AnonymizeQuestion(ctx context.Context, id int64, body string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE questions SET body = ?, asker_name = '', asker_email = '', hide_name = 1,
		anonymized_at = coalesce(anonymized_at, ?), updated_at = ? WHERE id = ?`, body, Ms(q.Now), Ms(q.Now), id)
	if err != nil {
		return fmt.Errorf("store: anonymize question: %w", translate(err))
	}
	return nil
}

// AnonymizeAnswer replaces an answer's body, empties the author's name of a buyer
// answer (a brand answer keeps the brand's) and stamps anonymized_at with q.Now.
func (q *Tx) AnonymizeAnswer(ctx context.Context, id int64, body string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE answers SET body = ?,
		author_name = CASE kind WHEN 'buyer' THEN '' ELSE author_name END, hide_name = CASE kind WHEN 'buyer' THEN 1 ELSE hide_name END,
		anonymized_at = coalesce(anonymized_at, ?), updated_at = ? WHERE id = ?`, body, Ms(q.Now), Ms(q.Now), id)
	if err != nil {
		return fmt.Errorf("store: anonymize answer: %w", translate(err))
	}
	return nil
}
