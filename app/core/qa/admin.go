package qa

import (
	"context"
	"encoding/json"
	"errors"
	"reviewd/app/core"
	"reviewd/store"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// QuestionFilter selects questions for GET /admin/v1/questions.
type QuestionFilter struct {
	core.ListQuery
	State          string
	Market         string
	Channel        string
	Unanswered     bool
	AnswersWaiting bool
}

// QuestionItem is one row of the admin question list.
type QuestionItem struct {
	ID             string     `json:"id"`
	Channel        string     `json:"channel"`
	Market         string     `json:"market"`
	Scope          string     `json:"scope"`
	Product        string     `json:"product"`
	VariantKey     string     `json:"variant_key"`
	GroupKey       string     `json:"group_key"`
	Language       string     `json:"language"`
	AskerName      string     `json:"asker_name"`
	NameHidden     bool       `json:"name_hidden"`
	HasEmail       bool       `json:"has_email"`
	SignedIn       bool       `json:"signed_in"`
	Body           string     `json:"body"`
	State          string     `json:"state"`
	FlagOpen       bool       `json:"flag_open"`
	Answers        int        `json:"answers"`
	AnswersWaiting int        `json:"answers_waiting"`
	CreatedAt      time.Time  `json:"created_at"`
	PublishedAt    *time.Time `json:"published_at"`
}

// QuestionCounters are the counters of the admin question list.
type QuestionCounters struct {
	Waiting        int `json:"waiting"`
	Unanswered     int `json:"unanswered"`
	AnswersWaiting int `json:"answers_waiting"`
}

// QuestionPage is the answer of GET /admin/v1/questions.
type QuestionPage struct {
	Items    []QuestionItem   `json:"items"`
	Total    int              `json:"total"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	PageSize int              `json:"page_size"`
	Counters QuestionCounters `json:"counters"`
	Enabled  bool             `json:"enabled"`
}

func qaQuestionItem(x store.Question, channel string) QuestionItem {
	product := x.VariantKey
	if x.Scope == "group" {
		product = x.GroupKey
	}
	return QuestionItem{ID: x.PublicID, Channel: channel, Market: x.Market, Scope: x.Scope, Product: product,
		VariantKey: x.VariantKey, GroupKey: x.GroupKey, Language: x.Language, AskerName: x.AskerName,
		NameHidden: x.HideName, HasEmail: x.AskerEmail != "", SignedIn: x.SignedIn, Body: x.Body, State: x.State,
		FlagOpen: x.FlagOpen, CreatedAt: x.CreatedAt, PublishedAt: core.OptTime(x.PublishedAt)}
}

// ListQuestions lists questions for the panel (GET /admin/v1/questions) with the
// filters state, market, channel, unanswered, answers_waiting and q (text, product,
// asker name or address, id), the counters (for the market and channel filters
// only) and whether questions are on. The asker names shown are logged in the
// personal-data access log (questions.listed). Errors: invalid / state, channel,
// channel_market_mismatch.
func (c *Service) ListQuestions(ctx context.Context, a *core.Actor, f QuestionFilter) (QuestionPage, error) {
	var out QuestionPage
	if f.State != "" && !slices.Contains([]string{QAPending, QAPublished, QARejected, QAHidden}, f.State) {
		return out, core.Invalid("state")
	}
	f.Market = strings.ToUpper(strings.TrimSpace(f.Market))
	q := c.DB.Read()
	only, err := core.ChannelFilter(ctx, q, f.Channel, f.Market)
	if err != nil {
		return out, err
	}
	chID := only.ID
	st, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return out, err
	}
	rows, total, err := q.ListQuestions(ctx, store.QuestionFilter{State: f.State, Market: f.Market, ChannelID: chID,
		Unanswered: f.Unanswered, AnswersWaiting: f.AnswersWaiting, Q: f.Q, Oldest: f.Sort == "oldest",
		Limit: f.PageSize, Offset: f.Offset()})
	if err != nil {
		return out, err
	}
	codes, err := core.ChannelCodes(ctx, q)
	if err != nil {
		return out, err
	}
	out = QuestionPage{Items: []QuestionItem{}, Total: total, Page: f.Page, Pages: core.PageCount(total, f.PageSize),
		PageSize: f.PageSize, Enabled: st.QuestionsEnabled}
	personal := 0
	for _, r := range rows {
		it := qaQuestionItem(r.Question, codes[r.ChannelID])
		it.Answers, it.AnswersWaiting = r.Answers, r.AnswersWaiting
		out.Items = append(out.Items, it)
		if r.AskerName != "" {
			personal++
		}
	}
	if out.Counters.Waiting, out.Counters.Unanswered, out.Counters.AnswersWaiting, err = q.QuestionCounters(ctx, f.Market, chID); err != nil {
		return out, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "questions.listed", "question", "", personal)
	})
	return out, err
}

// AnswerItem is an answer in the panel.
type AnswerItem struct {
	ID              string     `json:"id"`
	Question        string     `json:"question"`
	Kind            string     `json:"kind"`
	AuthorName      string     `json:"author_name"`
	NameHidden      bool       `json:"name_hidden"`
	Verified        bool       `json:"verified"`
	Body            string     `json:"body"`
	Language        string     `json:"language"`
	State           string     `json:"state"`
	FlagOpen        bool       `json:"flag_open"`
	Checks          []any      `json:"checks"`
	Notice          string     `json:"notice"`
	NoticeAt        *time.Time `json:"notice_at"`
	OrderReference  string     `json:"order_reference"`
	AvailableEvents []string   `json:"available_events"`
	CreatedAt       time.Time  `json:"created_at"`
	PublishedAt     *time.Time `json:"published_at"`
}

// QALedgerEntry is one history entry of a question or its answers.
type QALedgerEntry struct {
	Event     string    `json:"event"`
	Answer    string    `json:"answer,omitempty"`
	FromState string    `json:"from_state"`
	ToState   string    `json:"to_state"`
	Reason    string    `json:"reason"`
	ActorType string    `json:"actor_type"`
	ActorName string    `json:"actor_name"`
	At        time.Time `json:"at"`
}

// QuestionDetail is the answer of GET /admin/v1/questions/<id>.
type QuestionDetail struct {
	QuestionItem
	Checks          []any           `json:"checks"`
	AnswerList      []AnswerItem    `json:"answers"`
	Notice          *QANotice       `json:"notice"`
	AvailableEvents []string        `json:"available_events"`
	Ledger          []QALedgerEntry `json:"ledger"`
}

// QANotice is the outcome of the latest e-mail to the asker.
type QANotice struct {
	Answer string     `json:"answer"`
	Result string     `json:"result"`
	At     *time.Time `json:"at"`
}

func qaFindingList(s string) []any {
	var out []any
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []any{}
	}
	return out
}

// qaEvents lists the transition events and the state each reaches from each state.
var qaEvents = []struct {
	name  string
	moves map[string]string
}{
	{"approve", map[string]string{QAPending: QAPublished, QARejected: QAPublished}},
	{"reject", map[string]string{QAPending: QARejected}},
	{"rereview", map[string]string{QAPublished: QAPending, QARejected: QAPending, QAHidden: QAPending}},
	{"hide", map[string]string{QAPublished: QAHidden}},
	{"unhide", map[string]string{QAHidden: QAPublished}},
}

// qaAvailable lists the events offered from state; an erased text is never put
// live again (approve and unhide are left out).
func qaAvailable(state string, anonymized bool) []string {
	out := []string{}
	for _, e := range qaEvents {
		if _, ok := e.moves[state]; ok && !(anonymized && (e.name == "approve" || e.name == "unhide")) {
			out = append(out, e.name)
		}
	}
	return out
}

// qaMove validates an event from state: invalid / event for an unknown one, 409
// transition_refused / event_not_available when not offered, question_anonymized
// (or answer_anonymized) when it would put an erased text live.
func qaMove(event, state string, anonymized bool, subject string) (string, error) {
	for _, e := range qaEvents {
		if e.name != event {
			continue
		}
		to, ok := e.moves[state]
		if !ok {
			return "", core.Conflict("transition_refused", "event_not_available")
		}
		if anonymized && to == QAPublished {
			return "", core.Conflict("transition_refused", subject+"_anonymized")
		}
		return to, nil
	}
	return "", core.Invalid("event")
}

// reloadAnswerItem reads answer id again in tx and builds its panel item.
func (c *Service) reloadAnswerItem(ctx context.Context, tx *store.Tx, x store.Question, id int64) (AnswerItem, error) {
	ans, err := tx.AnswerByID(ctx, id)
	if err != nil {
		return AnswerItem{}, err
	}
	return c.answerItem(ctx, tx.Q, x, ans)
}

func (c *Service) answerItem(ctx context.Context, q *store.Q, x store.Question, ans store.Answer) (AnswerItem, error) {
	it := AnswerItem{ID: ans.PublicID, Question: x.PublicID, Kind: ans.Kind, AuthorName: ans.AuthorName,
		NameHidden: ans.HideName, Verified: ans.Kind == AnswerBuyer, Body: ans.Body, Language: ans.Language,
		State: ans.State, FlagOpen: ans.FlagOpen, Checks: qaFindingList(ans.Findings), Notice: ans.Notice,
		NoticeAt: core.OptTime(ans.NoticeAt), AvailableEvents: qaAvailable(ans.State, !ans.AnonymizedAt.IsZero()),
		CreatedAt: ans.CreatedAt, PublishedAt: core.OptTime(ans.PublishedAt)}
	if ans.OrderID != 0 {
		o, err := q.OrderByID(ctx, ans.OrderID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return it, err
		}
		it.OrderReference = o.ExternalID
	}
	return it, nil
}

// questionDetail builds the panel view of a question over q.
func (c *Service) questionDetail(ctx context.Context, q *store.Q, x store.Question) (QuestionDetail, error) {
	ch, err := q.ChannelByID(ctx, x.ChannelID)
	if err != nil {
		return QuestionDetail{}, err
	}
	d := QuestionDetail{QuestionItem: qaQuestionItem(x, ch.Code), Checks: qaFindingList(x.Findings),
		AnswerList: []AnswerItem{}, AvailableEvents: qaAvailable(x.State, !x.AnonymizedAt.IsZero()), Ledger: []QALedgerEntry{}}
	answers, err := q.AnswersOfQuestion(ctx, x.ID)
	if err != nil {
		return d, err
	}
	publicIDs := map[int64]string{}
	for _, ans := range answers {
		it, err := c.answerItem(ctx, q, x, ans)
		if err != nil {
			return d, err
		}
		publicIDs[ans.ID] = ans.PublicID
		d.AnswerList = append(d.AnswerList, it)
		if ans.State == QAPublished {
			d.Answers++
		}
		if ans.State == QAPending {
			d.AnswersWaiting++
		}
		if ans.Notice != "" && (d.Notice == nil || !ans.NoticeAt.Before(*d.Notice.At)) {
			d.Notice = &QANotice{Answer: ans.PublicID, Result: ans.Notice, At: core.OptTime(ans.NoticeAt)}
		}
	}
	events, err := q.QAEventsOf(ctx, x.ID)
	if err != nil {
		return d, err
	}
	for _, e := range events {
		d.Ledger = append(d.Ledger, QALedgerEntry{Event: e.Event, Answer: publicIDs[e.AnswerID], FromState: e.FromState,
			ToState: e.ToState, Reason: e.Reason, ActorType: e.ActorType, ActorName: e.ActorName, At: e.At})
	}
	return d, nil
}

// QuestionDetailOf returns the panel view of a question (GET
// /admin/v1/questions/<id>): the asker's full name, the answers with their authors,
// the outcome of the latest e-mail to the asker, the events offered and the
// history. The read is logged as question.viewed. Unknown ids: 404 not_found.
func (c *Service) QuestionDetailOf(ctx context.Context, a *core.Actor, publicID string) (QuestionDetail, error) {
	var d QuestionDetail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if d, err = c.questionDetail(ctx, tx.Q, x); err != nil {
			return err
		}
		return c.LogAccess(ctx, tx, a, "question.viewed", "question", x.PublicID, 1)
	})
	return d, err
}

// QATransitionInput is the body of the question and answer transitions.
type QATransitionInput struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
}

func (in *QATransitionInput) normalize() error {
	in.Event = strings.TrimSpace(in.Event)
	in.Reason = strings.TrimSpace(in.Reason)
	switch {
	case in.Event == "":
		return core.Invalid("event_required")
	case utf8.RuneCountInString(in.Reason) > MaxQAReason:
		return core.Invalid("reason_too_long")
	}
	return nil
}

// qaSubject is a question or an answer being moved by a moderator.
type qaSubject struct {
	kind, publicID, state string
	anonymized            bool
	questionID, answerID  int64
	detail                map[string]any // extra activity detail
	setState              func(to string, at time.Time) error
	setFlag               func(on bool) error
}

// moveQA applies one moderation event to a question or an answer in tx: the state
// move (qaMove), the publication time, closing the check flag on approve or reject,
// the Q&A history and the activity history. It returns the new state.
func (c *Service) moveQA(ctx context.Context, tx *store.Tx, a *core.Actor, in QATransitionInput, s qaSubject) (string, error) {
	to, err := qaMove(in.Event, s.state, s.anonymized, s.kind)
	if err != nil {
		return "", err
	}
	var at time.Time
	if to == QAPublished {
		at = tx.Now
	}
	if err := s.setState(to, at); err != nil {
		return "", err
	}
	if in.Event == "approve" || in.Event == "reject" {
		if err := s.setFlag(false); err != nil {
			return "", err
		}
	}
	if err := c.addQAEvent(ctx, tx, a, s.questionID, s.answerID, in.Event, s.state, to, in.Reason); err != nil {
		return "", err
	}
	detail := map[string]any{"from": s.state, "to": to, "reason": in.Reason}
	for k, v := range s.detail {
		detail[k] = v
	}
	return to, c.Record(ctx, tx, a, s.kind+"."+in.Event, s.kind, s.publicID, detail)
}

// TransitionQuestion applies a moderation event to a question (POST
// /admin/v1/questions/<id>/transition): approve, reject, rereview, hide, unhide as
// available_events offers them. A moderator's approve or reject closes the check
// flag. Errors: 404 not_found, invalid / event_required, event, reason_too_long,
// 409 transition_refused / event_not_available, question_anonymized.
func (c *Service) TransitionQuestion(ctx context.Context, a *core.Actor, publicID string, in QATransitionInput) (QuestionDetail, error) {
	if err := in.normalize(); err != nil {
		return QuestionDetail{}, err
	}
	var d QuestionDetail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if _, err := c.moveQA(ctx, tx, a, in, qaSubject{
			kind: "question", publicID: x.PublicID, state: x.State, anonymized: !x.AnonymizedAt.IsZero(), questionID: x.ID,
			setState: func(to string, at time.Time) error { return tx.SetQuestionState(ctx, x.ID, to, at) },
			setFlag:  func(on bool) error { return tx.SetQuestionFlag(ctx, x.ID, on) },
		}); err != nil {
			return err
		}
		if x, err = tx.QuestionByID(ctx, x.ID); err != nil {
			return err
		}
		d, err = c.questionDetail(ctx, tx.Q, x)
		return err
	})
	return d, err
}

// TransitionAnswer applies a moderation event to an answer (POST
// /admin/v1/answers/<id>/transition), like TransitionQuestion. When the answer goes
// live for the first time the asker gets the answer e-mail. It returns the answer.
func (c *Service) TransitionAnswer(ctx context.Context, a *core.Actor, publicID string, in QATransitionInput) (AnswerItem, error) {
	if err := in.normalize(); err != nil {
		return AnswerItem{}, err
	}
	var out AnswerItem
	var job *answerMail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		ans, err := tx.AnswerByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		x, err := tx.QuestionByID(ctx, ans.QuestionID)
		if err != nil {
			return err
		}
		to, err := c.moveQA(ctx, tx, a, in, qaSubject{
			kind: "answer", publicID: ans.PublicID, state: ans.State, anonymized: !ans.AnonymizedAt.IsZero(),
			questionID: x.ID, answerID: ans.ID, detail: map[string]any{"question": x.PublicID},
			setState: func(to string, at time.Time) error { return tx.SetAnswerState(ctx, ans.ID, to, at) },
			setFlag:  func(on bool) error { return tx.SetAnswerFlag(ctx, ans.ID, on) },
		})
		if err != nil {
			return err
		}
		if to == QAPublished {
			if job, err = c.publishedAnswerMail(ctx, tx, x, ans); err != nil {
				return err
			}
		}
		out, err = c.reloadAnswerItem(ctx, tx, x, ans.ID)
		return err
	})
	if err != nil {
		return AnswerItem{}, err
	}
	c.deliverAnswerMail(ctx, job, publicID, &out)
	return out, nil
}
