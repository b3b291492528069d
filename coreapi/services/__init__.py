"""Business logic of coreapi: plain functions over a SQLAlchemy session, no Flask request state."""
