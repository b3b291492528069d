"""The documented limits of request parameters (README, "Limits")."""

MAX_ID_LENGTH = 64
# A publisher's own recipe id (the upstream's external ids are at most 120 characters).
MAX_EXTERNAL_ID_LENGTH = 120
MAX_SURROUNDING_PRODUCT_IDS = 10
MAX_CURRENT_PRODUCT_IDS = 20
MAX_CONTEXTS = 50
MAX_KEYWORD_LENGTH = 100
# The shopper's search text on the catalog pages and in the planner's panel.
MAX_SEARCH_LENGTH = 100
MAX_SERVES = 50
# Positions are returned unchanged: keep them exact in JavaScript clients (2**53 - 1).
MAX_POSITION = 2**53 - 1
MAX_LINE_QUANTITY = 99
MAX_CART_LINES = 500
# A retailer cart line's quantity (reconcile, payment): the recipe service's own limit.
MAX_CART_QUANTITY = 9_999
# When a browser reported its cart, in milliseconds since the epoch (up to the year 2286): the recipe service's.
MAX_REPORTED_AT = 1e13
# The shopper's choices sent with a recipe added to the basket (one per ingredient).
MAX_RECIPE_LINES = 100
MAX_ORDER_ID = 64
MAX_LIKE_IDS = 100
MAX_FAVORITE_ITEMS = 500
MAX_EVENTS = 50
MAX_EVENT_PATH = 512
MAX_EVENT_PROPS = 20
