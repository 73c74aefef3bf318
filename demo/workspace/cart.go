// Package shop is a tiny sample workspace that planmode's demo plans work on.
package shop

import "errors"

// Item is a line of a cart.
type Item struct {
	SKU      string
	Quantity int
	PriceCts int
}

// Cart holds items.
type Cart struct {
	Items []Item
}

// Add puts an item in the cart.
func (c *Cart) Add(it Item) error {
	if it.Quantity <= 0 {
		return errors.New("quantity must be positive")
	}
	c.Items = append(c.Items, it)
	return nil
}

// Total returns the cart's total in cents.
func (c *Cart) Total() int {
	t := 0
	for _, it := range c.Items {
		t += it.Quantity * it.PriceCts
	}
	return t
}
