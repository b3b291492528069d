"""Turning upstream data into HTML: view models, templates, texts, static asset URLs (docs/architecture.md)."""
