package readmodel

import (
	"context"
	"reviewd/app/core"
	"reviewd/store"
	"strings"
)

// TopicView is one topic of the list answer: the word (usable as the topic
// parameter) and the number of reviews containing it.
type TopicView struct {
	Topic string `json:"topic"`
	Count int    `json:"count"`
}

// GalleryItem is one gallery entry: a media item plus its review.
type GalleryItem struct {
	MediaItemView
	ReviewID  string `json:"review_id"`
	Rating    int    `json:"rating"`
	Author    string `json:"author"`
	Anonymous bool   `json:"anonymous"`
}

// buildGallery lists up to 12 ready media of a product's newest published reviews
// with media, newest review first, each review's files in their order.
func (c *Service) buildGallery(ctx context.Context, q *store.Q, ref productRef) ([]GalleryItem, error) {
	ids, err := q.MediaReviewsNewest(ctx, ref.Scope, ref.Key, ref.Market, MaxGalleryItems)
	if err != nil {
		return nil, err
	}
	out := []GalleryItem{}
	if len(ids) == 0 {
		return out, nil
	}
	media, err := q.MediaOfReviews(ctx, ids)
	if err != nil {
		return nil, err
	}
	byReview := map[int64][]store.Media{}
	for _, m := range media {
		byReview[m.ReviewID] = append(byReview[m.ReviewID], m)
	}
	for _, id := range ids {
		r, err := q.ReviewByID(ctx, id)
		if err != nil {
			return nil, err
		}
		author, anon := reviewAuthor(r)
		for _, m := range byReview[id] {
			item, ok := c.PublicMediaItem(m)
			if !ok {
				continue
			}
			out = append(out, GalleryItem{MediaItemView: item, ReviewID: r.PublicID, Rating: r.Rating, Author: author,
				Anonymous: anon})
			if len(out) == MaxGalleryItems {
				return out, nil
			}
		}
	}
	return out, nil
}

// reviewAuthor is the author of a review as the storefront shows it
// (DisplayAuthor); anonymous when there is no name (none given, or erased).
func reviewAuthor(r store.Review) (author string, anonymous bool) {
	name := strings.TrimSpace(r.AuthorName)
	if name == "" || !r.AnonymizedAt.IsZero() {
		return "", true
	}
	return core.DisplayAuthor(name, r.HideName), false
}
