package catalogue

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/store"
)

// MaxProductsPerRequest is the most products one ingest call carries (CONTRACT).
const MaxProductsPerRequest = 100

// Field limits of a product.
const (
	maxKeyLen  = 255
	maxNameLen = 500
	maxURLLen  = 2048
)

// ProductInput is one product as POST /v1/ingest/products names its fields.
type ProductInput struct {
	VariantKey string `json:"variant_key"`
	GroupKey   string `json:"group_key"`
	CatalogID  string `json:"catalog_id"`
	Name       string `json:"name"`
	URL        string `json:"url"`
	ImageURL   string `json:"image_url"`
	Brand      string `json:"brand"`
	GTIN       string `json:"gtin"`
	MPN        string `json:"mpn"`
}

// IngestResult is the answer of POST /v1/ingest/products.
type IngestResult struct {
	Accepted int `json:"accepted"`
}

// ValidateProduct cleans and checks one product; path prefixes field names in
// error details ("products[3].").
func ValidateProduct(in ProductInput, path string) (store.Product, error) {
	var p store.Product
	var err error
	text := func(field, v string, max int, required bool) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = core.Text(path+field, core.SingleLine(v), max, required)
		return s
	}
	p.VariantKey = text("variant_key", in.VariantKey, maxKeyLen, true)
	p.GroupKey = text("group_key", in.GroupKey, maxKeyLen, false)
	p.CatalogID = text("catalog_id", in.CatalogID, maxKeyLen, false)
	p.Name = text("name", in.Name, maxNameLen, false)
	p.URL = text("url", in.URL, maxURLLen, false)
	p.ImageURL = text("image_url", in.ImageURL, maxURLLen, false)
	p.Brand = text("brand", in.Brand, maxNameLen, false)
	p.GTIN = text("gtin", in.GTIN, 64, false)
	p.MPN = text("mpn", in.MPN, 128, false)
	if err != nil {
		return p, err
	}
	for field, v := range map[string]string{"url": p.URL, "image_url": p.ImageURL} {
		if v == "" {
			continue
		}
		if u, perr := url.Parse(v); perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return p, core.Invalidf("field_invalid", path+field)
		}
	}
	if p.GTIN != "" && !validGTIN(p.GTIN) {
		return p, core.Invalidf("field_invalid", path+"gtin")
	}
	return p, nil
}

// validGTIN accepts 8, 12, 13 or 14 digits (GTIN-8, UPC-A, EAN-13, GTIN-14); the
// check digit is not enforced, since marketplace barcodes are seller-assigned often.
func validGTIN(s string) bool {
	switch len(s) {
	case 8, 12, 13, 14:
	default:
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// IngestProducts saves the products of one ingest call as a whole or not at all
// (1 to 100; batch false means a single product object was posted).
func (c *Service) IngestProducts(ctx context.Context, a *core.Actor, in []ProductInput, batch bool) (IngestResult, error) {
	if len(in) == 0 {
		if batch {
			return IngestResult{}, core.Invalidf("field_missing", "products")
		}
		return IngestResult{}, core.Invalidf("field_missing", "variant_key")
	}
	if len(in) > MaxProductsPerRequest {
		return IngestResult{}, core.Invalidf("batch_too_large", MaxProductsPerRequest)
	}
	ps := make([]store.Product, len(in))
	for i, p := range in {
		path := ""
		if batch {
			path = "products[" + strconv.Itoa(i) + "]."
		}
		var err error
		if ps[i], err = ValidateProduct(p, path); err != nil {
			return IngestResult{}, err
		}
		ps[i].Source = "ingest"
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		for _, p := range ps {
			if err := tx.UpsertProduct(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return IngestResult{}, err
	}
	return IngestResult{Accepted: len(ps)}, nil
}

// FillFromOrders adds the variants of order lines missing from the catalogue and
// fills empty group_key, catalog_id and name fields from the newest order line.
func (c *Service) FillFromOrders(ctx context.Context) (int64, error) {
	var n int64
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		n, err = tx.FillProductsFromOrderLines(ctx)
		return err
	})
	return n, err
}

// Reasons a marketplace barcode finds no single product.
const (
	UnmatchedNoBarcode = "no_barcode"
	UnmatchedNoProduct = "no_product"
	UnmatchedAmbiguous = "ambiguous"
)

// Match finds the product a marketplace row's barcode names: by gtin, else
// catalog_id, else variant_key (CONTRACT). reason is set when there is no single
// product.
func (c *Service) Match(ctx context.Context, q *store.Q, barcode string) (p store.Product, reason string, err error) {
	barcode = strings.TrimSpace(barcode)
	if barcode == "" {
		return p, UnmatchedNoBarcode, nil
	}
	ps, err := q.ProductsByBarcode(ctx, barcode, 2)
	switch {
	case err != nil:
		return p, "", err
	case len(ps) == 0:
		return p, UnmatchedNoProduct, nil
	case len(ps) > 1:
		return p, UnmatchedAmbiguous, nil
	}
	return ps[0], "", nil
}
