package shop

import "testing"

func TestTotal(t *testing.T) {
	var c Cart
	if err := c.Add(Item{SKU: "tea", Quantity: 2, PriceCts: 350}); err != nil {
		t.Fatal(err)
	}
	if got := c.Total(); got != 700 {
		t.Fatalf("Total = %d, want 700", got)
	}
}
