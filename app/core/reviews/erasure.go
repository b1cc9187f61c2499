package reviews

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/checks"
	"reviewd/store"
)

// EraseReviewAuthor carries out a personal-data erasure on one review in tx: names
// and contact details in its title and body become marks (checks.MaskPersonalData
// with the author's name and names), the author's name is emptied, the review is
// marked anonymized (it can no longer be approved or shown again), and with
// purgeMedia every photo and video is removed for data_subject_request. The review's
// history records it and the read model is refreshed. It returns the public ids of
// the removed media, whose files the caller deletes (DeleteMediaFiles) once tx is
// committed.
func (c *Service) EraseReviewAuthor(ctx context.Context, tx *store.Tx, a *core.Actor, r store.Review, names []string, purgeMedia bool) ([]string, error) {
	names = append([]string{r.AuthorName}, names...)
	title, body := checks.MaskPersonalData(r.Title, names), checks.MaskPersonalData(r.Body, names)
	if err := tx.AnonymizeReviewText(ctx, r.ID, title, body); err != nil {
		return nil, err
	}
	if err := maskNotes(ctx, tx, r, names); err != nil {
		return nil, err
	}
	var purged []string
	if purgeMedia {
		ms, err := tx.MediaOfReview(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.State == store.MediaRemoved {
				continue
			}
			if err := tx.RemoveMedia(ctx, m.ID, brand.MediaRemovalDataRequest); err != nil {
				return nil, err
			}
			purged = append(purged, m.PublicID)
		}
	}
	detail := map[string]any{"purged_media": len(purged)}
	if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventAnonymized, r.State, r.State, brand.MediaRemovalDataRequest, detail); err != nil {
		return nil, err
	}
	return purged, c.afterReviewStateChange(ctx, tx, r.ID)
}

// maskNotes masks the person's names and contact details in the brand's seller
// response and resolution note of a review (the brand's text may name the
// reviewer), and in the texts that the review's history and the activity entries
// about it keep (a note's earlier wording, a report's closing note).
func maskNotes(ctx context.Context, tx *store.Tx, r store.Review, names []string) error {
	reviewID := r.ID
	notes := []struct {
		read  func(context.Context, int64) (store.ReviewNote, error)
		write func(context.Context, int64, string) error
	}{{tx.SellerResponseOf, tx.MaskSellerResponse}, {tx.ResolutionOf, tx.MaskResolution}}
	for _, n := range notes {
		note, err := n.read(ctx, reviewID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if masked := checks.MaskPersonalData(note.Body, names); masked != note.Body {
			if err := n.write(ctx, reviewID, masked); err != nil {
				return err
			}
		}
	}
	history, activity, err := tx.RecordTexts(ctx, reviewID, r.PublicID)
	if err != nil {
		return err
	}
	return tx.MaskRecordTexts(ctx, maskedDetails(history, names), maskedDetails(activity, names))
}

// maskedDetails returns the rows whose JSON detail holds a string that masking
// changes, with every string value masked (numbers, keys and structure stay).
func maskedDetails(rows []store.TextRow, names []string) []store.TextRow {
	var out []store.TextRow
	for _, t := range rows {
		dec := json.NewDecoder(strings.NewReader(t.Text))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		changed := false
		var walk func(any) any
		walk = func(x any) any {
			switch e := x.(type) {
			case string:
				if m := checks.MaskPersonalData(e, names); m != e {
					changed = true
					return m
				}
			case map[string]any:
				for k, c := range e {
					e[k] = walk(c)
				}
			case []any:
				for i, c := range e {
					e[i] = walk(c)
				}
			}
			return x
		}
		v = walk(v)
		if !changed {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		out = append(out, store.TextRow{ID: t.ID, Text: string(b)})
	}
	return out
}
