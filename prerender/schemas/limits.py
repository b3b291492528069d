"""The documented limits of request parameters (README, "Limits")."""

MAX_ID_LENGTH = 64
MAX_SURROUNDING_PRODUCT_IDS = 10
MAX_CURRENT_PRODUCT_IDS = 20
MAX_CONTEXTS = 50
MAX_KEYWORD_LENGTH = 100
MAX_SERVES = 50
# Positions are returned unchanged: keep them exact in JavaScript clients (2**53 - 1).
MAX_POSITION = 2**53 - 1
