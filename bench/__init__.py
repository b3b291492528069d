"""`make bench`: a self-contained performance run of prerender (see docs/performance.md)."""
