package reviews

import (
	"context"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/store"
)

var errTooManyUploads = core.E(core.StatusBadRequest, "refused", "too_many_items: "+strconv.Itoa(MaxUnattachedPerLine))

// CheckUploadToken is what UploadMedia would refuse about the token and the line,
// checked before any byte of the file is received, so a request without a valid
// token never writes to disk: 401 token_required; token_refused / <detail>;
// invalid / line_reference_required; refused / too_many_items: 18. UploadMedia
// checks all of it again once the file is in.
func (c *Service) CheckUploadToken(ctx context.Context, site store.Channel, token, lineRef string) error {
	_, _, err := c.uploadScope(ctx, site, token, lineRef)
	return err
}

// uploadScope verifies an upload's token and finds its order line, refusing a
// line that already has MaxUnattachedPerLine uploads waiting.
func (c *Service) uploadScope(ctx context.Context, site store.Channel, token, lineRef string) (buyer.VerifiedToken, store.OrderLine, error) {
	if strings.TrimSpace(token) == "" {
		return buyer.VerifiedToken{}, store.OrderLine{}, core.ErrTokenRequired
	}
	v, err := c.Buyer.VerifyToken(ctx, c.DB.Read(), token, site, buyer.AllTokenKinds...)
	if err != nil {
		return v, store.OrderLine{}, err
	}
	ref := strings.TrimSpace(lineRef)
	if ref == "" {
		return v, store.OrderLine{}, core.Invalid("line_reference_required")
	}
	line, err := v.UploadLine(ref)
	if err != nil {
		return v, line, err
	}
	n, err := c.DB.Read().CountUnattachedMedia(ctx, line.ID)
	if err != nil {
		return v, line, err
	}
	if n >= MaxUnattachedPerLine {
		return v, line, errTooManyUploads
	}
	return v, line, nil
}
