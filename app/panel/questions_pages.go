package panel

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/qa"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// handleQuestions serves GET /panel/questions: the question list with counters.
func (h *Handler) handleQuestions(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 25)
	if err != nil {
		return err
	}
	f := qa.QuestionFilter{ListQuery: l, State: r.URL.Query().Get("state")}
	f.Unanswered = r.URL.Query().Get("unanswered") == "1"
	list, err := h.QA.ListQuestions(r.Context(), a, f)
	if err != nil {
		return err
	}
	d := questionsData{List: list, Q: l.Q, State: f.State}
	d.Prev, d.Next = pager(r, "questions", list.Page, list.Pages)
	return h.show(w, r, a, "questions", d)
}

type questionData struct {
	qa.QuestionDetail
	Reasons []brand.CodeLabel
}

// handleQuestion serves GET /panel/questions/<id>: the question, its answers, the
// brand answer form and its transitions.
func (h *Handler) handleQuestion(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.QA.QuestionDetailOf(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	v := h.view(r, a, "question")
	v.Data = questionData{QuestionDetail: d, Reasons: brand.Reasons(brand.ReasonsQuestionRejection, v.Lang)}
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handleAnswer serves POST /panel/questions/<id>/answer: body (qa.AnswerAsBrand,
// as POST /admin/v1/questions/<id>/answer).
func (h *Handler) handleAnswer(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	if _, err := h.QA.AnswerAsBrand(r.Context(), a, id, qa.BrandAnswerInput{Body: r.PostForm.Get("body")}); err != nil {
		return err
	}
	return back(w, r, "/panel/questions/"+id, "answered")
}

// handleQuestionTransition serves POST /panel/questions/<id>/transition: event,
// reason (qa.TransitionQuestion, as POST /admin/v1/questions/<id>/transition).
func (h *Handler) handleQuestionTransition(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	in := qa.QATransitionInput{Event: r.PostForm.Get("event"), Reason: r.PostForm.Get("reason")}
	if _, err := h.QA.TransitionQuestion(r.Context(), a, id, in); err != nil {
		return err
	}
	return back(w, r, "/panel/questions/"+id, in.Event)
}

// ---- invitations ----

type invitationsData struct {
	Invites           sending.InviteList
	Logs              sending.SendLogList
	State, Prev, Next string
	OptOuts           *optOutResult
}
