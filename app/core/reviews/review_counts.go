package reviews

import (
	"context"
	"time"
)

// ReviewsPerWeek counts the reviews submitted in each of the weeks weeks ending at
// end (the last bucket is [end-7d, end)), oldest first: the panel overview chart.
func (c *Service) ReviewsPerWeek(ctx context.Context, end time.Time, weeks int) ([]int, error) {
	return c.DB.Read().ReviewsPerWeek(ctx, end, weeks)
}
