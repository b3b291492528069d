"""Business logic of coreapi: plain functions over a SQLAlchemy session, no Flask request state.

Concurrent writes (tests/coreapi/test_concurrency.py): a basket write first locks the shopper's
(supplier and identity) open basket (PostgreSQL: ``SELECT ... FOR UPDATE``; SQLite: the database's
write lock, taken by the write's first statement), so writes to one basket run one after the other
and none is lost; two first writes that both create the basket are settled by the one-open-basket
unique index (``INSERT ... ON CONFLICT DO NOTHING``). A write with an idempotency key claims the
key's row before anything else, in the same way (``idempotency``): of two requests with one key,
the second waits for the first and answers its outcome. Menu writes lock the shopper's menu the
same way (``menus``); finalizing one locks the menu, then the basket. A basket transfer
(``transfers``) is created with its shopper's basket locked first, then the shopper's earlier
transfers revoked; a redeem locks the source basket, then claims the transfer (a conditional
``UPDATE``: of two redeems of one token, the second waits for the first and finds it redeemed), then
locks the target basket: no two writers wait on each other in a cycle. Likes are
``INSERT ... ON CONFLICT DO NOTHING`` and ``DELETE``, idempotent in any interleaving; a shopper's
preferences are one ``INSERT ... ON CONFLICT DO UPDATE`` (the last write wins, whole) or a ``DELETE``;
events are plain inserts. PostgreSQL (READ COMMITTED) runs writes to different baskets in parallel; SQLite has
one writer at a time, the others waiting up to the driver's busy timeout (5 s).
"""
