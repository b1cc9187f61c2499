package core

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"reviewd/store"
)

// CheckUploadToken is what UploadMedia would refuse about the token and the line,
// checked before any byte of the file is received, so a request without a valid
// token never writes to disk: 401 token_required; token_refused / <detail>;
// invalid / line_reference_required; refused / too_many_items: 18. UploadMedia
// checks all of it again once the file is in.
func (c *Core) CheckUploadToken(ctx context.Context, site store.Channel, token, lineRef string) error {
	if strings.TrimSpace(token) == "" {
		return ErrTokenRequired
	}
	v, err := c.VerifyToken(ctx, c.DB.Read(), token, site, AllTokenKinds...)
	if err != nil {
		return err
	}
	ref := strings.TrimSpace(lineRef)
	if ref == "" {
		return Invalid("line_reference_required")
	}
	line, err := v.uploadLine(ref)
	if err != nil {
		return err
	}
	n, err := c.DB.Read().CountUnattachedMedia(ctx, line.ID)
	if err != nil {
		return err
	}
	if n >= MaxUnattachedPerLine {
		return E(http.StatusBadRequest, "refused", "too_many_items: "+strconv.Itoa(MaxUnattachedPerLine))
	}
	return nil
}
