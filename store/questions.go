package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Question is one product question. AskerName and AskerEmail are personal data.
type Question struct {
	ID           int64
	PublicID     string
	ChannelID    int64
	Market       string
	Scope        string // variant or group
	VariantKey   string
	GroupKey     string
	Language     string
	AskerName    string
	AskerEmail   string
	SignedIn     bool
	HideName     bool
	Body         string
	State        string
	FlagOpen     bool
	Findings     string // JSON list
	CreatedAt    time.Time
	PublishedAt  time.Time
	UpdatedAt    time.Time
	AnonymizedAt time.Time
}

// Answer is one answer to a question: kind brand or buyer.
type Answer struct {
	ID           int64
	PublicID     string
	QuestionID   int64
	Kind         string
	ChannelID    int64
	TokenID      int64
	OrderID      int64
	LineID       int64
	AuthorName   string
	HideName     bool
	Body         string
	Language     string
	State        string
	FlagOpen     bool
	Findings     string // JSON list
	ActorID      string
	Notice       string
	NoticeAt     time.Time
	CreatedAt    time.Time
	PublishedAt  time.Time
	UpdatedAt    time.Time
	AnonymizedAt time.Time
}

// QAEvent is one entry of a question's history (AnswerID set for an answer's).
type QAEvent struct {
	ID         int64
	QuestionID int64
	AnswerID   int64
	Event      string
	FromState  string
	ToState    string
	Reason     string
	ActorType  string
	ActorID    string
	ActorName  string
	At         time.Time
}

const (
	qQuestionCols = `id, public_id, channel_id, market, scope, variant_key, group_key, language, asker_name, asker_email,
		signed_in, hide_name, body, state, flag_open, findings, created_at, published_at, updated_at, anonymized_at`
	qQuestionInsert = `INSERT INTO questions (public_id, channel_id, market, scope, variant_key, group_key, language,
		asker_name, asker_email, signed_in, hide_name, body, state, flag_open, findings, created_at, published_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qAnswerCols = `id, public_id, question_id, kind, channel_id, token_id, order_id, line_id, author_name, hide_name, body,
		language, state, flag_open, findings, actor_id, notice, notice_at, created_at, published_at, updated_at, anonymized_at`
	qAnswerInsert = `INSERT INTO answers (public_id, question_id, kind, channel_id, token_id, order_id, line_id, author_name,
		hide_name, body, language, state, flag_open, findings, actor_id, created_at, published_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qQAEventCols = `id, question_id, answer_id, event, from_state, to_state, reason, actor_type, actor_id, actor_name, at`
)

func scanQuestion(sc scanner) (Question, error) {
	var x Question
	var signed, hide, flag int
	var created, updated int64
	var published, anonymized sql.NullInt64
	err := sc.Scan(&x.ID, &x.PublicID, &x.ChannelID, &x.Market, &x.Scope, &x.VariantKey, &x.GroupKey, &x.Language,
		&x.AskerName, &x.AskerEmail, &signed, &hide, &x.Body, &x.State, &flag, &x.Findings, &created, &published,
		&updated, &anonymized)
	x.SignedIn, x.HideName, x.FlagOpen = signed == 1, hide == 1, flag == 1
	x.CreatedAt, x.UpdatedAt = Time(created), Time(updated)
	x.PublishedAt, x.AnonymizedAt = NullTime(published), NullTime(anonymized)
	return x, translate(err)
}

func scanAnswer(sc scanner) (Answer, error) {
	var x Answer
	var token, order, line, noticeAt, published, anonymized sql.NullInt64
	var hide, flag int
	var created, updated int64
	err := sc.Scan(&x.ID, &x.PublicID, &x.QuestionID, &x.Kind, &x.ChannelID, &token, &order, &line, &x.AuthorName, &hide,
		&x.Body, &x.Language, &x.State, &flag, &x.Findings, &x.ActorID, &x.Notice, &noticeAt, &created, &published,
		&updated, &anonymized)
	x.TokenID, x.OrderID, x.LineID = idOf(token), idOf(order), idOf(line)
	x.HideName, x.FlagOpen = hide == 1, flag == 1
	x.CreatedAt, x.UpdatedAt = Time(created), Time(updated)
	x.NoticeAt, x.PublishedAt, x.AnonymizedAt = NullTime(noticeAt), NullTime(published), NullTime(anonymized)
	return x, translate(err)
}

func scanQAEvent(sc scanner) (QAEvent, error) {
	var e QAEvent
	var answer sql.NullInt64
	var at int64
	err := sc.Scan(&e.ID, &e.QuestionID, &answer, &e.Event, &e.FromState, &e.ToState, &e.Reason, &e.ActorType,
		&e.ActorID, &e.ActorName, &at)
	e.AnswerID, e.At = idOf(answer), Time(at)
	return e, translate(err)
}

func findingsOr(s string) string {
	if s == "" {
		return "[]"
	}
	return s
}

// CreateQuestion inserts a question; it returns it with ID, CreatedAt and UpdatedAt
// set.
func (q *Tx) CreateQuestion(ctx context.Context, x Question) (Question, error) {
	x.Findings = findingsOr(x.Findings)
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, qQuestionInsert, x.PublicID, x.ChannelID, x.Market, x.Scope, x.VariantKey, x.GroupKey,
		x.Language, x.AskerName, x.AskerEmail, boolInt(x.SignedIn), boolInt(x.HideName), x.Body, x.State,
		boolInt(x.FlagOpen), x.Findings, now, nullMs(x.PublishedAt), now)
	if err != nil {
		return x, fmt.Errorf("store: create question: %w", translate(err))
	}
	x.ID, _ = res.LastInsertId()
	x.CreatedAt, x.UpdatedAt = q.Now, q.Now
	return x, nil
}

// QuestionByID finds a question by id.
func (q *Q) QuestionByID(ctx context.Context, id int64) (Question, error) {
	return scanQuestion(q.c.QueryRowContext(ctx, `SELECT `+qQuestionCols+` FROM questions WHERE id = ?`, id))
}

// QuestionByPublicID finds a question by its public id.
func (q *Q) QuestionByPublicID(ctx context.Context, publicID string) (Question, error) {
	return scanQuestion(q.c.QueryRowContext(ctx, `SELECT `+qQuestionCols+` FROM questions WHERE public_id = ?`, publicID))
}

// SetQuestionState moves a question to state. publishedAt, when not zero, becomes
// its publication time unless it has one already.
func (q *Tx) SetQuestionState(ctx context.Context, id int64, state string, publishedAt time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE questions SET state = ?, published_at = coalesce(published_at, ?), updated_at = ?
		WHERE id = ?`, state, nullMs(publishedAt), Ms(q.Now), id)
	return translate(err)
}

// SetQuestionFlag opens or closes the check flag of a question.
func (q *Tx) SetQuestionFlag(ctx context.Context, id int64, open bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE questions SET flag_open = ?, updated_at = ? WHERE id = ?`, boolInt(open), Ms(q.Now), id)
	return translate(err)
}

// productWhere selects the questions of one product of a market by scope.
func productWhere(market, scope, key string) (string, []any) {
	col := "variant_key"
	if scope == "group" {
		col = "group_key"
	}
	return `market = ? AND scope = ? AND ` + col + ` = ?`, []any{market, scope, key}
}

// PublishedQuestions lists the published questions of a product in a market, newest
// publication first, with the total count.
func (q *Q) PublishedQuestions(ctx context.Context, market, scope, key string, offset, limit int) ([]Question, int, error) {
	where, args := productWhere(market, scope, key)
	where += ` AND state = 'published'`
	var total int
	if err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM questions WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, translate(err)
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qQuestionCols+` FROM questions WHERE `+where+`
		ORDER BY published_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	out, err := collect(rows, err, scanQuestion)
	return out, total, err
}

// PublishedAnswersOf lists the published answers of the given questions, in
// publication order.
func (q *Q) PublishedAnswersOf(ctx context.Context, questionIDs []int64) ([]Answer, error) {
	if len(questionIDs) == 0 {
		return nil, nil
	}
	args := make([]any, len(questionIDs))
	for i, id := range questionIDs {
		args[i] = id
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qAnswerCols+` FROM answers WHERE state = 'published'
		AND question_id IN (`+placeholders(len(args))+`) ORDER BY published_at, id`, args...)
	return collect(rows, err, scanAnswer)
}

// QuestionFilter selects questions for the admin list. Empty fields do not filter.
type QuestionFilter struct {
	State          string
	Market         string
	ChannelID      int64
	Unanswered     bool // published questions without a published answer
	AnswersWaiting bool // questions with an answer awaiting approval
	Q              string
	Oldest         bool
	Limit, Offset  int
}

// QuestionRow is a question with its answer counts.
type QuestionRow struct {
	Question
	Answers        int // published answers
	AnswersWaiting int // answers awaiting approval
}

const qAnswerCounts = `(SELECT count(*) FROM answers a WHERE a.question_id = questions.id AND a.state = 'published'),
	(SELECT count(*) FROM answers a WHERE a.question_id = questions.id AND a.state = 'pending')`

func (f QuestionFilter) where() (string, []any) {
	w := ` WHERE 1=1`
	var args []any
	if f.State != "" {
		w += ` AND state = ?`
		args = append(args, f.State)
	}
	if f.Market != "" {
		w += ` AND market = ?`
		args = append(args, f.Market)
	}
	if f.ChannelID != 0 {
		w += ` AND channel_id = ?`
		args = append(args, f.ChannelID)
	}
	if f.Unanswered {
		w += ` AND state = 'published' AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.question_id = questions.id AND a.state = 'published')`
	}
	if f.AnswersWaiting {
		w += ` AND EXISTS (SELECT 1 FROM answers a WHERE a.question_id = questions.id AND a.state = 'pending')`
	}
	if s := strings.TrimSpace(f.Q); s != "" {
		like := "%" + likeEscape(s) + "%"
		w += ` AND (body LIKE ? ESCAPE '\' OR variant_key LIKE ? ESCAPE '\' OR group_key LIKE ? ESCAPE '\'
			OR asker_name LIKE ? ESCAPE '\' OR asker_email LIKE ? ESCAPE '\' OR public_id = ?)`
		args = append(args, like, like, like, like, like, s)
	}
	return w, args
}

// ListQuestions lists questions for the admin list, newest first (oldest first with
// f.Oldest), with the total count.
func (q *Q) ListQuestions(ctx context.Context, f QuestionFilter) ([]QuestionRow, int, error) {
	where, args := f.where()
	total, err := q.countRows(ctx, ` FROM questions`+where, args)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.c.QueryContext(ctx, `SELECT `+qQuestionCols+`, `+qAnswerCounts+` FROM questions`+where+
		listOrder(f.Oldest, "created_at", "id")+` LIMIT ? OFFSET ?`, pageArgs(args, f.Limit, f.Offset, 25)...)
	out, err := collect(rows, err, func(sc scanner) (QuestionRow, error) {
		var r QuestionRow
		var err error
		r.Question, err = scanQuestion(extraScanner{sc, []any{&r.Answers, &r.AnswersWaiting}})
		return r, err
	})
	return out, total, err
}

// QuestionCounters counts, within a market and channel (empty and 0 = all), the
// questions awaiting approval, the published questions without a published answer
// and the answers awaiting approval.
func (q *Q) QuestionCounters(ctx context.Context, market string, channelID int64) (waiting, unanswered, answersWaiting int, err error) {
	err = q.c.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM questions WHERE state = 'pending' AND (? = '' OR market = ?) AND (? = 0 OR channel_id = ?)),
		(SELECT count(*) FROM questions WHERE state = 'published' AND (? = '' OR market = ?) AND (? = 0 OR channel_id = ?)
			AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.question_id = questions.id AND a.state = 'published')),
		(SELECT count(*) FROM answers a JOIN questions x ON x.id = a.question_id WHERE a.state = 'pending'
			AND (? = '' OR x.market = ?) AND (? = 0 OR x.channel_id = ?))`,
		market, market, channelID, channelID, market, market, channelID, channelID, market, market, channelID, channelID).
		Scan(&waiting, &unanswered, &answersWaiting)
	return waiting, unanswered, answersWaiting, translate(err)
}

// CreateAnswer inserts an answer; it returns it with ID, CreatedAt and UpdatedAt set.
func (q *Tx) CreateAnswer(ctx context.Context, x Answer) (Answer, error) {
	x.Findings = findingsOr(x.Findings)
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, qAnswerInsert, x.PublicID, x.QuestionID, x.Kind, x.ChannelID, nullID(x.TokenID),
		nullID(x.OrderID), nullID(x.LineID), x.AuthorName, boolInt(x.HideName), x.Body, x.Language, x.State,
		boolInt(x.FlagOpen), x.Findings, x.ActorID, now, nullMs(x.PublishedAt), now)
	if err != nil {
		return x, fmt.Errorf("store: create answer: %w", translate(err))
	}
	x.ID, _ = res.LastInsertId()
	x.CreatedAt, x.UpdatedAt = q.Now, q.Now
	return x, nil
}

// AnswerByID finds an answer by id.
func (q *Q) AnswerByID(ctx context.Context, id int64) (Answer, error) {
	return scanAnswer(q.c.QueryRowContext(ctx, `SELECT `+qAnswerCols+` FROM answers WHERE id = ?`, id))
}

// AnswerByPublicID finds an answer by its public id.
func (q *Q) AnswerByPublicID(ctx context.Context, publicID string) (Answer, error) {
	return scanAnswer(q.c.QueryRowContext(ctx, `SELECT `+qAnswerCols+` FROM answers WHERE public_id = ?`, publicID))
}

// AnswersOfQuestion lists every answer of a question (any state), oldest first.
func (q *Q) AnswersOfQuestion(ctx context.Context, questionID int64) ([]Answer, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qAnswerCols+` FROM answers WHERE question_id = ? ORDER BY id`, questionID)
	return collect(rows, err, scanAnswer)
}

// SetAnswerState moves an answer to state. publishedAt, when not zero, becomes its
// publication time unless it has one already.
func (q *Tx) SetAnswerState(ctx context.Context, id int64, state string, publishedAt time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE answers SET state = ?, published_at = coalesce(published_at, ?), updated_at = ?
		WHERE id = ?`, state, nullMs(publishedAt), Ms(q.Now), id)
	return translate(err)
}

// SetAnswerFlag opens or closes the check flag of an answer.
func (q *Tx) SetAnswerFlag(ctx context.Context, id int64, open bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE answers SET flag_open = ?, updated_at = ? WHERE id = ?`, boolInt(open), Ms(q.Now), id)
	return translate(err)
}

// SetAnswerNotice records the outcome of the e-mail to the asker about an answer.
func (q *Tx) SetAnswerNotice(ctx context.Context, id int64, notice string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE answers SET notice = ?, notice_at = ? WHERE id = ?`, notice, Ms(q.Now), id)
	return translate(err)
}

// AddQAEvent writes one history entry of a question or answer.
func (q *Tx) AddQAEvent(ctx context.Context, e QAEvent) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO qa_history (question_id, answer_id, event, from_state, to_state, reason,
		actor_type, actor_id, actor_name, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.QuestionID, nullID(e.AnswerID),
		e.Event, e.FromState, e.ToState, e.Reason, e.ActorType, e.ActorID, e.ActorName, Ms(q.Now))
	if err != nil {
		return fmt.Errorf("store: add question event: %w", translate(err))
	}
	return nil
}

// QAEventsOf lists the history of a question and its answers, oldest first.
func (q *Q) QAEventsOf(ctx context.Context, questionID int64) ([]QAEvent, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qQAEventCols+` FROM qa_history WHERE question_id = ? ORDER BY at, id`, questionID)
	return collect(rows, err, scanQAEvent)
}

// CountAnswerEmails counts the answer e-mails to an address (by its hash) since a
// time.
func (q *Q) CountAnswerEmails(ctx context.Context, addressHash string, since time.Time) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM answer_emails WHERE address_hash = ? AND at > ?`,
		addressHash, Ms(since)).Scan(&n)
	return n, translate(err)
}

// AddAnswerEmail records an answer e-mail to an address (by its hash) at q.Now.
func (q *Tx) AddAnswerEmail(ctx context.Context, addressHash string, answerID int64) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO answer_emails (address_hash, answer_id, at) VALUES (?, ?, ?)`,
		addressHash, answerID, Ms(q.Now))
	return translate(err)
}
