package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/qa"
	"reviewd/app/web"
)

// maxQABody is the largest body of the question moderation endpoints.
const maxQABody = 32 << 10

// handleQuestionList serves GET /admin/v1/questions: the question list with the
// filters state, market, channel, unanswered=1, answers_waiting=1 and q, the
// counters (waiting, unanswered, answers_waiting) and enabled.
func (h *Handler) handleQuestionList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	f := qa.QuestionFilter{ListQuery: l, State: v.Get("state"), Market: v.Get("market"), Channel: v.Get("channel")}
	for name, dst := range map[string]*bool{"unanswered": &f.Unanswered, "answers_waiting": &f.AnswersWaiting} {
		switch v.Get(name) {
		case "", "0":
		case "1":
			*dst = true
		default:
			return core.Invalid(name)
		}
	}
	out, err := h.QA.ListQuestions(r.Context(), a, f)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleQuestionGet serves GET /admin/v1/questions/<id>: the question detail.
func (h *Handler) handleQuestionGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.QA.QuestionDetailOf(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleQuestionTransition serves POST /admin/v1/questions/<id>/transition: body
// event, reason; answers the question detail.
func (h *Handler) handleQuestionTransition(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in qa.QATransitionInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.QA.TransitionQuestion(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleAnswerTransition serves POST /admin/v1/answers/<id>/transition: body event,
// reason; answers the answer row.
func (h *Handler) handleAnswerTransition(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in qa.QATransitionInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.QA.TransitionAnswer(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleBrandAnswer serves POST /admin/v1/questions/<id>/answer: the brand's answer
// to a live question, published at once; 201 with the answer row.
func (h *Handler) handleBrandAnswer(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in qa.BrandAnswerInput
	if err := web.DecodeJSON(r, maxQABody, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.QA.AnswerAsBrand(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}
