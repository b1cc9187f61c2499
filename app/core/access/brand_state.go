package access

import (
	"context"

	"reviewd/app/core"
	"reviewd/store"
)

// Brand states, set from the console (reviewd brand freeze, close, reopen). A frozen
// brand keeps its data and its storefront reads; a closed one serves neither. Both
// keep only the data export on the management API.
const (
	BrandActive = "active"
	BrandFrozen = "frozen"
	BrandClosed = "closed"
)

// Errors of an inactive brand.
var (
	ErrBrandInactive  = core.Forbidden("brand_inactive")
	ErrTenantInactive = core.Refused("tenant_inactive")
)

// BrandState reads the brand's state.
func (s *Service) BrandState(ctx context.Context) (string, error) {
	return s.DB.Read().BrandState(ctx)
}

// SetBrandState sets the brand's state and records the change.
func (s *Service) SetBrandState(ctx context.Context, a *core.Actor, state string) error {
	switch state {
	case BrandActive, BrandFrozen, BrandClosed:
	default:
		return core.Invalid("state")
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		prev, err := tx.BrandState(ctx)
		if err != nil {
			return err
		}
		if err := tx.SetBrandState(ctx, state); err != nil {
			return err
		}
		return s.rec.Record(ctx, tx, a, "brand.state_changed", "brand", "", map[string]any{"from": prev, "to": state})
	})
}

// AdminAllowed refuses a management call while the brand is frozen or closed (403
// forbidden / brand_inactive). exempt calls (signing in and out, the data export)
// pass.
func (s *Service) AdminAllowed(ctx context.Context, exempt bool) error {
	if exempt {
		return nil
	}
	st, err := s.BrandState(ctx)
	if err != nil {
		return err
	}
	if st != BrandActive {
		return ErrBrandInactive
	}
	return nil
}

// StorefrontAllowed refuses a storefront call of an inactive brand (403 refused /
// tenant_inactive): a closed brand serves nothing, a frozen one reads only.
func (s *Service) StorefrontAllowed(ctx context.Context, read bool) error {
	st, err := s.BrandState(ctx)
	if err != nil {
		return err
	}
	if st == BrandClosed || (st == BrandFrozen && !read) {
		return ErrTenantInactive
	}
	return nil
}
