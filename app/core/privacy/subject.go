package privacy

import (
	"context"
	"slices"
	"strings"

	"reviewd/app/core/checks"
	"reviewd/store"
)

// subjectData is what reviewd holds about one person: the orders placed with the
// address, the reviews of those orders, the questions asked with the address, the
// buyer answers written with those orders, and every review, question or answer
// whose text carries the address or the phone number.
type subjectData struct {
	orders    []store.Order
	reviews   []store.Review
	questions []store.Question
	answers   []store.Answer
	optOuts   []store.OptOut
}

// names are the person's names as written with their reviews, questions and
// answers (the erasure replaces them in every text with a mark).
func (d subjectData) names() []string {
	var out []string
	for _, r := range d.reviews {
		out = append(out, r.AuthorName)
	}
	for _, x := range d.questions {
		out = append(out, x.AskerName)
	}
	for _, a := range d.answers {
		out = append(out, a.AuthorName)
	}
	return out
}

// textBatch is how many texts one read of the text scan takes.
const textBatch = 500

// mentions scans the texts of table for the identifier and returns the ids that
// carry it.
func mentions(ctx context.Context, q *store.Q, table string, id identifier) ([]int64, error) {
	var out []int64
	var after int64
	for {
		rows, err := q.TextsAfter(ctx, table, after, textBatch)
		if err != nil {
			return nil, err
		}
		for _, t := range rows {
			after = t.ID
			if (id.kind == "email" && strings.Contains(strings.ToLower(t.Text), id.key)) ||
				(id.kind == "phone" && checks.HasPhone(t.Text, id.key)) {
				out = append(out, t.ID)
			}
		}
		if len(rows) < textBatch {
			return out, ctx.Err()
		}
	}
}

// gather reads what reviewd holds about the person id names.
func gather(ctx context.Context, q *store.Q, id identifier) (subjectData, error) {
	var d subjectData
	var err error
	if id.kind == "email" {
		if d.orders, err = q.OrdersOfCustomerEmail(ctx, id.key); err != nil {
			return d, err
		}
		if d.questions, err = q.QuestionsOfAsker(ctx, id.key); err != nil {
			return d, err
		}
		if d.optOuts, err = q.OptOutsByAddresses(ctx, []string{id.key}); err != nil {
			return d, err
		}
	} else {
		// Orders carry the customer's phone since messaging-app invitations.
		if d.orders, err = q.OrdersOfCustomerPhone(ctx, id.key); err != nil {
			return d, err
		}
		if d.optOuts, err = q.OptOutsOfPhone(ctx, id.key); err != nil {
			return d, err
		}
	}
	orderIDs := make([]int64, len(d.orders))
	for i, o := range d.orders {
		orderIDs[i] = o.ID
	}
	if len(orderIDs) > 0 {
		if d.reviews, err = q.ReviewsOfOrders(ctx, orderIDs); err != nil {
			return d, err
		}
		if d.answers, err = q.BuyerAnswersOfOrders(ctx, orderIDs); err != nil {
			return d, err
		}
	}
	have := func(ids []int64, has func(int64) bool) []int64 {
		return slices.DeleteFunc(ids, has)
	}
	rids, err := mentions(ctx, q, "reviews", id)
	if err != nil {
		return d, err
	}
	for _, rid := range have(rids, func(x int64) bool {
		return slices.ContainsFunc(d.reviews, func(r store.Review) bool { return r.ID == x })
	}) {
		r, err := q.ReviewByID(ctx, rid)
		if err != nil {
			return d, err
		}
		d.reviews = append(d.reviews, r)
	}
	qids, err := mentions(ctx, q, "questions", id)
	if err != nil {
		return d, err
	}
	for _, qid := range have(qids, func(x int64) bool {
		return slices.ContainsFunc(d.questions, func(r store.Question) bool { return r.ID == x })
	}) {
		x, err := q.QuestionByID(ctx, qid)
		if err != nil {
			return d, err
		}
		d.questions = append(d.questions, x)
	}
	aids, err := mentions(ctx, q, "answers", id)
	if err != nil {
		return d, err
	}
	for _, aid := range have(aids, func(x int64) bool {
		return slices.ContainsFunc(d.answers, func(r store.Answer) bool { return r.ID == x })
	}) {
		x, err := q.AnswerByID(ctx, aid)
		if err != nil {
			return d, err
		}
		d.answers = append(d.answers, x)
	}
	slices.SortFunc(d.reviews, func(a, b store.Review) int { return int(a.ID - b.ID) })
	slices.SortFunc(d.questions, func(a, b store.Question) int { return int(a.ID - b.ID) })
	slices.SortFunc(d.answers, func(a, b store.Answer) int { return int(a.ID - b.ID) })
	return d, nil
}
