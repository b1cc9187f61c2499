package storefront

import "testing"

// TestRouteTableNamesCallers checks that every storefront route states its callers.
func TestRouteTableNamesCallers(t *testing.T) {
	for _, rt := range (&Handler{}).routes() {
		if rt.access == 0 {
			t.Errorf("%s %s: no access rule", rt.method, rt.path)
		}
	}
}
