"""Blueprints: routes only. Each parses with a schema, asks the gateway, renders a template."""
