"""Example customers of prerender (the demo shop in examples/shop)."""
