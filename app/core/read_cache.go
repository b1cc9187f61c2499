package core

import (
	"context"
	"encoding/json"

	"reviewd/store"
)

// CachedReviewList is ReviewList as the JSON body of the answer.
func (c *Core) CachedReviewList(ctx context.Context, ch store.Channel, in ListInput) ([]byte, error) {
	l, err := c.ReviewList(ctx, ch, in)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CachedSSR is RenderSSR.
func (c *Core) CachedSSR(ctx context.Context, ch store.Channel, in SSRInput) (SSRBody, error) {
	return c.RenderSSR(ctx, ch, in)
}
