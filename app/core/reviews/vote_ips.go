package reviews

import (
	"context"
	"net/netip"

	"reviewd/store"
)

// claimVoteIP allows one counted new vote per review per visitor address and UTC
// day, whatever visitor_key is sent: visitor_key only removes duplicates, so
// without this one address could reorder the helpful sort by sending new keys.
// IPv6 addresses count by their /64. It reports false when another visitor from
// the address has voted on the review today already (the same visitor may
// withdraw and vote again).
func (c *Service) claimVoteIP(ctx context.Context, tx *store.Tx, reviewID int64, ip, visitor string) (bool, error) {
	addr := ip
	if a, err := netip.ParseAddr(ip); err == nil {
		a = a.Unmap()
		if a.Is6() {
			p, _ := a.Prefix(64)
			addr = p.String()
		} else {
			addr = a.String()
		}
	}
	day := tx.Now.UTC().Format("2006-01-02")
	return tx.ClaimVoteIP(ctx, reviewID, c.Keys.Pseudonym("vote-ip", addr+"|"+day), visitor)
}
